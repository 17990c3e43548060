#include "generators/fill.h"

#include <algorithm>
#include <cmath>
#include <string>

#include "core/case_graphs.h"
#include "core/prng.h"

namespace convparity {
namespace {

// Which role a var plays in the reduction, to pick its exact range: a factor of its products, the
// bias, or a var a graph form adds (range 1, times its exact_scale).
enum class Role { kData, kWeight, kBias, kOwn };

Role RoleOf(const std::string& var, Direction d) {
  if (var == kInputVar) return Role::kData;
  if (var == kWeightVar) return Role::kWeight;
  if (var == kBiasVar) return Role::kBias;
  if (var == kGradOutputVar) return d == Direction::kBackwardData ? Role::kData : Role::kWeight;
  return Role::kOwn;
}

float ExactValue(Prng& rng, int64_t range) {
  // Never zero: dense inputs exercise every path (TOLERANCE.md). Sign and magnitude as integers,
  // converted once; every integer below 2^24 is exact in float32.
  const int64_t magnitude = rng.Between(1, range);
  return static_cast<float>(rng.Below(2) ? -magnitude : magnitude);
}

float UniformValue(Prng& rng) {
  // 24 random bits centred on zero: k · 2^-23 for k in [-2^23, 2^23), i.e. [-1, 1).
  const int64_t k = static_cast<int64_t>(rng.Next() >> 40) - (int64_t{1} << 23);
  return static_cast<float>(k) * (1.0f / 8388608.0f);
}

float WideValue(Prng& rng) {
  // ±(2^23 + m) · 2^(e − 23): a full 24-bit significand scaled by 2^e, e in [-8, 8]. ldexp is exact
  // for normal results, so the value does not depend on the platform's libm.
  const uint64_t bits = rng.Next();
  const int64_t significand = (int64_t{1} << 23) + static_cast<int64_t>(bits >> 41);
  const int exponent = static_cast<int>(rng.Between(-8, 8));
  const float magnitude = std::ldexp(static_cast<float>(significand), exponent - 23);
  return (bits & 1) ? -magnitude : magnitude;
}

HostTensor FillTensor(const Shape& shape, uint64_t stream, Role role, Fill fill,
                      const ExactRange& exact, uint64_t seed) {
  HostTensor t{shape, std::vector<float>(static_cast<size_t>(NumElements(shape)))};
  Prng rng(MixSeed(seed, stream));
  const int64_t range = role == Role::kData     ? exact.data_range
                        : role == Role::kWeight ? exact.weight_range
                        : role == Role::kBias   ? exact.bias_range
                                                : 1;
  for (float& v : t.values) {  // logical order: layouts never change values
    switch (fill) {
      case Fill::kExact:
        v = ExactValue(rng, std::max<int64_t>(range, 1));
        break;
      case Fill::kUniform:
        v = UniformValue(rng);
        break;
      case Fill::kPositive:
        v = rng.UnitFloat();
        break;
      case Fill::kWide:
        v = WideValue(rng);
        break;
    }
  }
  return t;
}

}  // namespace

ExactRange ChooseExactRange(const ConvProblem& p, Direction d, const GraphForm& form) {
  const int64_t k = ReductionLength(p, d);
  const bool has_bias = d == Direction::kForward && p.bias;
  const int64_t limit = kExactSumLimit / form.exact_growth(p);
  // The largest R whose worst case, every term at ±R·R with one sign plus the bias, stays under the
  // limit. Checked by division so that no product can overflow.
  for (int64_t r = kMaxExactRange; r >= 1; --r) {
    const int64_t bias = has_bias ? r : 0;
    if (bias < limit && k <= (limit - bias) / (r * r)) return ExactRange{r, r, bias, 1.0, true};
  }
  return ExactRange{1, 1, has_bias ? 1 : 0, 1.0, false};
}

CaseInputs FillInputs(const ConvProblem& p, Direction d, Fill fill, uint64_t seed,
                      const GraphForm& form) {
  const ExactRange exact = ChooseExactRange(p, d, form);
  CaseInputs in;
  for (const CaseVar& var : CaseVars(form, p, d)) {
    const Role role = RoleOf(var.name, d);
    HostTensor t = FillTensor(var.shape, var.stream, role, fill, exact, seed);
    if (role == Role::kOwn && fill == Fill::kExact)
      for (float& v : t.values) v *= static_cast<float>(var.exact_scale);
    in.vars[var.name] = std::move(t);
  }
  return in;
}

}  // namespace convparity
