#include "reports/python_literals.h"

#include <charconv>
#include <cmath>

namespace convparity {

std::string PythonNumber(double v) {
  if (std::isnan(v)) return "float(\"nan\")";
  if (std::isinf(v)) return v > 0 ? "float(\"inf\")" : "-float(\"inf\")";
  if (v == 0) return std::signbit(v) ? "-0.0" : "0";
  char buf[32];
  // The shortest form that round-trips (C++17 to_chars without a precision): Python's float()
  // and literal parsing round correctly, so they read back the same double.
  const std::to_chars_result r = std::to_chars(buf, buf + sizeof buf, v);
  return std::string(buf, r.ptr);
}

std::string PythonTensorCall(const Shape& shape, const std::vector<double>& values, size_t width) {
  std::string out = "tensor([";
  for (size_t i = 0; i < shape.size(); ++i) out += (i ? ", " : "") + std::to_string(shape[i]);
  out += "], [";
  size_t line_start = 0;
  for (size_t i = 0; i < values.size(); ++i) {
    const std::string number = PythonNumber(values[i]) + (i + 1 < values.size() ? "," : "");
    if (i > 0) {
      if (out.size() - line_start + 1 + number.size() + 2 > width) {
        out += "\n    ";
        line_start = out.size() - 4;
      } else {
        out += " ";
      }
    }
    out += number;
  }
  return out + "])";
}

std::string PythonTensorCall(const Shape& shape, const std::vector<float>& values, size_t width) {
  return PythonTensorCall(shape, std::vector<double>(values.begin(), values.end()), width);
}

}  // namespace convparity
