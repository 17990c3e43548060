// Python literals read back as the doubles written (reports/python_literals.h).
#include "reports/python_literals.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>
#include <vector>

namespace convparity {
namespace {

TEST(PythonNumber, ShortestRoundTripAndTheValuesPythonSpellsOtherwise) {
  EXPECT_EQ(PythonNumber(3), "3");
  EXPECT_EQ(PythonNumber(-4), "-4");
  EXPECT_EQ(PythonNumber(0.1), "0.1");
  EXPECT_EQ(PythonNumber(0), "0");
  EXPECT_EQ(PythonNumber(-0.0), "-0.0");  // "-0" is Python's integer 0: the sign would be lost
  EXPECT_EQ(PythonNumber(std::nan("")), "float(\"nan\")");
  EXPECT_EQ(PythonNumber(-std::numeric_limits<double>::infinity()), "-float(\"inf\")");
  // A float32 written as the double it equals reads back as that double.
  const float f = 0.1f;
  EXPECT_EQ(std::stod(PythonNumber(f)), static_cast<double>(f));
  EXPECT_EQ(std::stod(PythonNumber(1.0 / 3)), 1.0 / 3);
}

TEST(PythonTensorCall, ShapeThenValuesWrappedBeforeTheWidth) {
  EXPECT_EQ(PythonTensorCall(Shape{1, 2}, std::vector<double>{1, -2}), "tensor([1, 2], [1, -2])");
  const std::string wrapped = PythonTensorCall(Shape{30}, std::vector<float>(30, -3.0f), 40);
  size_t start = 0;
  int lines = 0;
  for (size_t end; (end = wrapped.find('\n', start)) != std::string::npos; start = end + 1) {
    EXPECT_LE(end - start, 40u) << wrapped;
    ++lines;
  }
  EXPECT_LE(wrapped.size() - start, 40u) << wrapped;
  EXPECT_GE(lines, 3) << wrapped;
  EXPECT_EQ(wrapped.find("\n    -3,"), wrapped.find('\n')) << wrapped;
}

}  // namespace
}  // namespace convparity
