// Judging parity (TOLERANCE.md): exact mode compares bitwise with the float64 reference rounded to
// float32; random mode bounds each element's error by c·u·√K·A_i, A = the same convolution on
// absolute values.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "core/conv_case.h"
#include "core/tensor.h"
#include "core/verdict.h"

namespace convparity {

// The error bound of random mode. c was chosen by measurement (tests/harness/engine/tolerance_test.cc):
// correct kernels in four summation orders stay below it, a bfloat16 accumulator and a dropped term
// do not.
struct ErrorBound {
  double c = 4.0;  // measured: max error/bound ≈ 0.5 over 9·10^6 elements
  double unit_roundoff = 1.0 / (1 << 24);  // float32
  double floor = 1e-37;                    // absolute, for elements whose terms are all zero
  double Of(double magnitude, int64_t reduction_length) const;
};

// The NaN the harness poisons result buffers with before a SUT runs; an element still holding
// exactly this bit pattern afterwards was never written.
float PoisonValue();
bool IsPoison(float v);

// How a result is compared with the reference: bitwise with the reference rounded to float32, or
// element by element within the error bound.
enum class Comparison { kBitwise, kErrorBound };
// Exact fill is compared bitwise, unless the SUT said its result came from an inexact algorithm
// (RunNotes::inexact): small integers do not make Winograd's transforms exact, so such a result is
// held to the random-mode bound (TOLERANCE.md), like a random fill.
Comparison ComparisonFor(Fill fill, bool inexact_result);

// `reference` and `magnitude` are float64 in logical order; `got` float32 in logical order.
// `magnitude` may be empty when comparing bitwise.
Judgement Judge(const Shape& reference_shape, const std::vector<double>& reference,
                const std::vector<double>& magnitude, const HostTensor& got, Comparison comparison,
                int64_t reduction_length, const ErrorBound& bound = {});
inline Judgement Judge(const Shape& reference_shape, const std::vector<double>& reference,
                       const std::vector<double>& magnitude, const HostTensor& got, Fill fill,
                       int64_t reduction_length, const ErrorBound& bound = {}) {
  return Judge(reference_shape, reference, magnitude, got, ComparisonFor(fill, false),
               reduction_length, bound);
}

}  // namespace convparity
