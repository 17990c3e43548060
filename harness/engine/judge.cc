#include "harness/engine/judge.h"

#include <algorithm>
#include <cmath>
#include <cstring>

namespace convparity {
namespace {

constexpr uint32_t kPoisonBits = 0x7FC0DEADu;  // a quiet NaN with a payload no arithmetic produces

Shape Unravel(const Shape& shape, int64_t linear) {
  Shape index(shape.size());
  for (size_t d = shape.size(); d > 0; --d) {
    index[d - 1] = linear % shape[d - 1];
    linear /= shape[d - 1];
  }
  return index;
}

// Mistrusted: more than this share of the reference is exactly zero where the structure reaches.
constexpr double kMistrustZeroShare = 0.7;

}  // namespace

double ErrorBound::Of(double magnitude, int64_t reduction_length) const {
  return c * unit_roundoff *
             std::sqrt(static_cast<double>(std::max<int64_t>(reduction_length, 1))) * magnitude +
         floor;
}

float PoisonValue() {
  float v;
  std::memcpy(&v, &kPoisonBits, sizeof v);
  return v;
}

bool IsPoison(float v) {
  uint32_t bits;
  std::memcpy(&bits, &v, sizeof bits);
  return bits == kPoisonBits;
}

Comparison ComparisonFor(Fill fill, bool inexact_result) {
  if (inexact_result) return Comparison::kPlaneErrorBound;
  return fill == Fill::kExact ? Comparison::kBitwise : Comparison::kErrorBound;
}

// The largest magnitude of each element's plane (its first two logical indices), element by
// element.
std::vector<double> PlaneMaxima(const Shape& shape, const std::vector<double>& magnitude) {
  int64_t plane = 1;
  for (size_t d = 2; d < shape.size(); ++d) plane *= shape[d];
  std::vector<double> maxima(magnitude.size());
  for (size_t start = 0; start < magnitude.size(); start += static_cast<size_t>(plane)) {
    const size_t end = std::min(magnitude.size(), start + static_cast<size_t>(plane));
    double m = 0;
    for (size_t i = start; i < end; ++i) m = std::max(m, magnitude[i]);
    for (size_t i = start; i < end; ++i) maxima[i] = m;
  }
  return maxima;
}

namespace {

// The share of the elements `reach` says the structure reaches that are exactly zero in
// `reference`; `all_zeros` (the share over every element) when the reach is not known. No element
// reached: no zero of the data.
double DataZeroShare(const std::vector<double>& reference, const ReachFn& reach, double all_zeros) {
  if (!reach) return all_zeros;
  const std::vector<double> reached = reach();
  if (reached.size() != reference.size()) return all_zeros;
  int64_t n = 0, zeros = 0;
  for (size_t i = 0; i < reference.size(); ++i)
    if (reached[i] != 0) {
      ++n;
      zeros += reference[i] == 0.0;
    }
  return n ? static_cast<double>(zeros) / static_cast<double>(n) : 0.0;
}

}  // namespace

Judgement Judge(const Shape& reference_shape, const std::vector<double>& reference,
                const std::vector<double>& magnitude, const HostTensor& got, Comparison comparison,
                int64_t reduction_length, const ErrorBound& bound, const ReachFn& reach) {
  Judgement j;
  const bool exact = comparison == Comparison::kBitwise;
  const bool plane = comparison == Comparison::kPlaneErrorBound;
  const std::vector<double> plane_maxima =
      plane ? PlaneMaxima(reference_shape, magnitude) : std::vector<double>{};
  ErrorBound inexact = bound;
  inexact.c = bound.c_inexact;
  if (got.shape != reference_shape || got.values.size() != reference.size()) {
    j.verdict = Verdict::kShapeMismatch;
    return j;
  }
  const int64_t n = static_cast<int64_t>(reference.size());
  j.elements = n;
  int64_t zeros = 0;
  double worst_score = -1;
  // ErrorBound::Of(m, K) is scale · m + floor, the same products in the same order.
  const double scale = (plane ? inexact.c : bound.c) * bound.unit_roundoff *
                       std::sqrt(static_cast<double>(std::max<int64_t>(reduction_length, 1)));
  const std::vector<double>& bounded = plane ? plane_maxima : magnitude;
  for (int64_t i = 0; i < n; ++i) {
    const double expected =
        exact ? static_cast<double>(static_cast<float>(reference[i])) : reference[i];
    const float got_f = got.values[i];
    zeros += reference[i] == 0.0;
    j.unwritten += IsPoison(got_f);
    // NOTE: exact mode compares values, so +0 and -0 are equal; a NaN never is.
    double error = std::fabs(static_cast<double>(got_f) - expected);
    if (std::isnan(error)) error = INFINITY;
    const double limit = exact ? 0.0 : scale * bounded[i] + bound.floor;
    const bool mismatch = !(error <= limit);
    // An exact element (most of them) changes no maximum: the divisions are for the others.
    double use = 0;
    if (error != 0) {
      use = limit > 0 ? error / limit : INFINITY;
      j.max_abs_error = std::max(j.max_abs_error, error);
      j.max_bound_use = std::max(j.max_bound_use, use);
      if (expected != 0) j.max_rel_error = std::max(j.max_rel_error, error / std::fabs(expected));
    }
    const double score = exact ? error : use;
    if (mismatch) {
      ++j.mismatches;
      if (!j.first)
        j.first = ElementReport{Unravel(reference_shape, i), expected, got_f, error, limit};
    }
    if (score > worst_score) {
      worst_score = score;
      j.worst = ElementReport{Unravel(reference_shape, i), expected, got_f, error, limit};
    }
  }
  j.zero_share = n ? static_cast<double>(zeros) / n : 0.0;
  // Of the zeros, only the data's can make a result that agrees untrustworthy; they are never more
  // than all of them, so the reach is asked for only when all of them would be too many.
  j.data_zero_share = j.zero_share;
  const bool agrees = j.unwritten == 0 && j.mismatches == 0;
  if (agrees && j.zero_share > kMistrustZeroShare)
    j.data_zero_share = DataZeroShare(reference, reach, j.zero_share);
  if (j.unwritten > 0)
    j.verdict = Verdict::kUnwritten;
  else if (j.mismatches > 0)
    j.verdict = Verdict::kFailed;
  else if (j.data_zero_share > kMistrustZeroShare)
    j.verdict = Verdict::kMistrusted;
  else
    j.verdict = Verdict::kPassed;
  return j;
}

}  // namespace convparity
