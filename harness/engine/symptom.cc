#include "harness/engine/symptom.h"

#include <cmath>

namespace convparity {
namespace {

// The judge's own rule (judge.cc Judge): each element's largest allowed error.
std::vector<double> ElementLimits(const Shape& shape, const std::vector<double>& magnitude,
                                  size_t n, Comparison comparison, int64_t reduction_length,
                                  const ErrorBound& bound) {
  if (comparison == Comparison::kBitwise) return std::vector<double>(n, 0.0);
  ErrorBound b = bound;
  if (comparison == Comparison::kPlaneErrorBound) b.c = bound.c_inexact;
  const std::vector<double> bounded =
      comparison == Comparison::kPlaneErrorBound ? PlaneMaxima(shape, magnitude) : magnitude;
  std::vector<double> limits(n);
  for (size_t i = 0; i < n; ++i) limits[i] = b.Of(bounded[i], reduction_length);
  return limits;
}

}  // namespace

Symptom ClassifySymptom(const Shape& reference_shape, const std::vector<double>& reference,
                        const std::vector<double>& magnitude, const HostTensor& got,
                        Comparison comparison, int64_t reduction_length, const ErrorBound& bound) {
  const size_t n = reference.size();
  const bool exact = comparison == Comparison::kBitwise;
  const bool has_magnitude = magnitude.size() == n;
  if (got.values.size() != n || (!exact && !has_magnitude)) return Symptom::kWrong;
  const std::vector<double> limits =
      ElementLimits(reference_shape, magnitude, n, comparison, reduction_length, bound);
  ErrorBound narrow = bound;
  narrow.unit_roundoff = kNarrowUnitRoundoff;
  int64_t wrong = 0;
  bool precision = has_magnitude;
  for (size_t i = 0; i < n; ++i) {
    const double expected =
        exact ? static_cast<double>(static_cast<float>(reference[i])) : reference[i];
    const double error = std::fabs(static_cast<double>(got.values[i]) - expected);
    if (error <= limits[i]) continue;  // NaN is never within: it is wrong
    ++wrong;
    precision = precision && std::isfinite(error) &&
                (!exact || magnitude[i] > kNarrowExactIntegers) &&
                error <= narrow.Of(magnitude[i], reduction_length);
  }
  if (wrong == 0) return Symptom::kNone;
  return precision ? Symptom::kPrecision : Symptom::kWrong;
}

}  // namespace convparity
