// Judging parity (docs/TOLERANCE.md): exact mode compares bitwise with the float64 reference
// rounded to float32; random mode bounds each element's error by c·u·√K·A_i, A = the same
// convolution on absolute values.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <vector>

#include "core/conv_case.h"
#include "core/tensor.h"
#include "core/verdict.h"

namespace convparity {

// The error bound of random mode. c was chosen by measurement
// (tests/harness/engine/tolerance_test.cc): correct kernels in four summation orders stay below it,
// a bfloat16 accumulator and a dropped term do not.
struct ErrorBound {
  double c = 4.0;  // measured: max error/bound ≈ 0.5 (0.508) over 9·10^6 elements
  // kPlaneErrorBound's c. Measured with oneDNN's Winograd (F(4,3), every direction): max bound use
  // 0.45 over 1.4·10^6 elements of the wide-exponent fill (backward-weight; c = 4 would fail it),
  // at most 0.1 on the other fills (tests/adapters/onednn_adapter_test.cc prints it).
  double c_inexact = 16.0;
  double unit_roundoff = 1.0 / (1 << 24);  // float32
  double floor = 1e-37;                    // absolute, for elements whose terms are all zero
  double Of(double magnitude, int64_t reduction_length) const;
};

// The NaN the harness poisons result buffers with before a SUT runs; an element still holding
// exactly this bit pattern afterwards was never written.
float PoisonValue();
bool IsPoison(float v);

// How a result is compared with the reference: bitwise with the reference rounded to float32; or
// element by element within the error bound c·u·√K·A_i; or, for an inexact algorithm, within
// c_inexact·u·√K·max(A over the element's plane), a plane being the elements that share the first
// two logical indices ((n, c) of data, (o, i) of a weight). NOTE: Winograd's transforms mix the
// terms of a whole tile, so its error follows the magnitudes of the tile, not of the element: a
// wide-exponent fill puts elements with a tiny A_i beside large ones and breaks the elementwise
// bound with a correct Winograd (measured: tests/adapters/onednn_adapter_test.cc).
enum class Comparison { kBitwise, kErrorBound, kPlaneErrorBound };
// Exact fill is compared bitwise, random fills within the error bound, and a result the SUT says
// came from an inexact algorithm (RunNotes::inexact) within the plane's bound, whatever the fill:
// small integers do not make Winograd exact.
Comparison ComparisonFor(Fill fill, bool inexact_result);
// The largest magnitude of each element's plane, element by element: kPlaneErrorBound's A.
std::vector<double> PlaneMaxima(const Shape& shape, const std::vector<double>& magnitude);

// Where the problem's structure reaches the result, element by element in logical order: non-zero
// where some term of the reduction lands (a tap meets the input, a bias is added), zero where none
// does, so that the result is zero there whatever the data (positions no tap reaches,
// padding-only windows, the positions a strided backward-data skips). The same case computed on
// all-ones inputs is one (check_case.h ReachOf). Empty: not known.
using ReachFn = std::function<std::vector<double>()>;

// `reference` and `magnitude` are float64 in logical order; `got` float32 in logical order.
// `magnitude` may be empty when comparing bitwise. A result that agrees is mistrusted when over
// 70% of the elements the structure reaches are exactly zero: zeros of the data prove little, zeros
// of the structure do not count. `reach` is asked only when over 70% of the whole reference is
// zero (a case that is not mostly zero pays nothing); without it every element counts as reached.
Judgement Judge(const Shape& reference_shape, const std::vector<double>& reference,
                const std::vector<double>& magnitude, const HostTensor& got, Comparison comparison,
                int64_t reduction_length, const ErrorBound& bound = {}, const ReachFn& reach = {});
inline Judgement Judge(const Shape& reference_shape, const std::vector<double>& reference,
                       const std::vector<double>& magnitude, const HostTensor& got, Fill fill,
                       int64_t reduction_length, const ErrorBound& bound = {}) {
  return Judge(reference_shape, reference, magnitude, got, ComparisonFor(fill, false),
               reduction_length, bound);
}

}  // namespace convparity
