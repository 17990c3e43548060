// Python source text for numbers and float64 tensors that reads back exactly: the double Python
// parses is the double written (a snippet that carries a case's values must not round them).
#pragma once

#include <string>
#include <vector>

#include "core/conv_problem.h"

namespace convparity {

// The shortest decimal that reads back as `v` ("3", "0.1", "1.5e-07"), "-0.0" for negative zero
// (Python reads "-0" as the integer 0), float("nan"), float("inf"), -float("inf").
std::string PythonNumber(double v);

// `tensor([d0, d1, ...], [v0, v1, ...])`: a call of the snippet's helper that builds a float64
// tensor of `shape` from its values in logical (row-major) order. The list wraps before column
// `width`, each continuation line indented by four spaces.
std::string PythonTensorCall(const Shape& shape, const std::vector<double>& values,
                             size_t width = 100);

// The same for float32 values (every input convparity fills is a float32): written as the doubles
// they equal, so float64 arithmetic on them is the oracle's.
std::string PythonTensorCall(const Shape& shape, const std::vector<float>& values,
                             size_t width = 100);

}  // namespace convparity
