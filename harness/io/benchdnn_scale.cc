#include "harness/io/benchdnn_scale.h"

#include <algorithm>
#include <vector>

#include "generators/fit_budget.h"

namespace convparity {
namespace {

// Beyond 2^30 no size is a convolution anyone runs; below it cap·stride stays far from overflow.
constexpr int64_t kMaxNumber = int64_t{1} << 30;

int64_t FloorDiv(int64_t a, int64_t b) { return a >= 0 ? a / b : -((-a + b - 1) / b); }  // b > 0
int64_t CeilDiv(int64_t a, int64_t b) { return -FloorDiv(-a, b); }
int64_t Mod(int64_t a, int64_t m) { return a - FloorDiv(a, m) * m; }

// The input size for dimension j: the largest one not above the current size that keeps the input
// and the output at most `cap`, or, if none does, the smallest valid one. An ordinary convolution
// keeps its input size modulo the stride, so its last window ends as far from the input's end as
// before (the end padding was chosen for that).
int64_t FitInput(const ConvProblem& p, int j, int64_t cap) {
  cap = std::min(cap, kMaxNumber);  // keeps cap·stride far from overflow
  const int64_t s = p.stride[j], pads = p.pad_begin[j] + p.pad_end[j];
  const int64_t dk = p.dilation[j] * (p.kernel[j] - 1) + 1;
  int64_t hi = std::min(p.input[j], cap), lo = 1, modulus = 1;
  if (!p.transposed) {
    modulus = s;
    hi = std::min(hi, cap * s - 1 - pads + dk);  // output ⌊(i + pads − dk)/s⌋ + 1 ≤ cap
    lo = std::max<int64_t>(lo, dk - pads);       // output ≥ 1
  } else {
    const int64_t rest = pads - dk - p.output_padding[j];  // output = (i − 1)·s − rest
    hi = std::min(hi, FloorDiv(cap + rest, s) + 1);
    lo = std::max<int64_t>(lo, CeilDiv(1 + rest, s) + 1);
  }
  const int64_t r = Mod(p.input[j], modulus);
  const int64_t smallest = lo + Mod(r - lo, modulus);  // ≤ the current size, which is valid
  const int64_t largest = hi - Mod(hi - r, modulus);
  return largest >= smallest ? largest : smallest;
}

// Halves the per-group channel counts (then the groups) toward their floors: 2 where the original
// had ≥ 2 (so grouped stays grouped and not depthwise), 1 where it had 1; per-group output channels
// stay fewer than / as many as / more than the per-group input channels.
bool ShrinkChannels(ConvProblem& p, const ConvProblem& original) {
  const int64_t a0 = original.in_channels / original.groups;
  const int64_t b0 = original.out_channels / original.groups;
  const int64_t g = p.groups, a = p.in_channels / g, b = p.out_channels / g;
  auto floor_of = [](int64_t v) -> int64_t { return v >= 2 ? 2 : 1; };
  auto half = [](int64_t v) { return (v + 1) / 2; };
  int64_t na, nb;
  if (a0 == b0) {
    na = nb = std::max(floor_of(a0), half(a));
  } else if (a0 < b0) {
    na = std::max(floor_of(a0), half(a));
    nb = std::max({floor_of(b0), na + 1, half(b)});
  } else {
    nb = std::max(floor_of(b0), half(b));
    na = std::max({floor_of(a0), nb + 1, half(a)});
  }
  int64_t ng = g;
  if (na == a && nb == b) {
    if (original.groups == 1 || g <= 2) return false;
    ng = std::max<int64_t>(2, half(g));
  }
  p.groups = ng;
  p.in_channels = ng * na;
  p.out_channels = ng * nb;
  return true;
}

// Halves the largest spatial extent that can still shrink.
bool ShrinkSpatial(ConvProblem& p) {
  const Dims out = p.output();
  auto extent = [&](int j) { return std::max(p.input[j], out[j]); };
  std::vector<int> order;
  for (int j = 0; j < p.rank; ++j) order.push_back(j);
  std::stable_sort(order.begin(), order.end(), [&](int x, int y) { return extent(x) > extent(y); });
  for (int j : order) {
    const int64_t fitted = FitInput(p, j, std::max<int64_t>(1, extent(j) / 2));
    if (fitted < p.input[j]) {
      p.input[j] = fitted;
      return true;
    }
  }
  return false;
}

}  // namespace

ConvProblem ScaleDown(const ConvProblem& original, const ScaleOptions& options) {
  if (!Validate(original).ok()) return original;
  ConvProblem p = original;
  if (options.max_batch > 0) p.batch = std::min(p.batch, options.max_batch);
  if (options.max_spatial > 0)
    for (int j = 0; j < p.rank; ++j) p.input[j] = FitInput(p, j, options.max_spatial);
  if (options.max_macs > 0) {
    // Channels first: real networks' MACs sit in their channels, and kernels and padding are part
    // of the character, which small spatial sizes would crowd out. No halving of the largest size:
    // only these, in order, each step.
    FitPolicy<ConvProblem> policy;
    policy.over = [&options](const ConvProblem& x) { return x.macs() > options.max_macs; };
    auto applied = [](bool shrunk) { return shrunk ? FitStep::kApplied : FitStep::kNotApplicable; };
    policy.fallbacks = {[&](ConvProblem& x) { return applied(ShrinkChannels(x, original)); },
                        [&](ConvProblem& x) { return applied(ShrinkSpatial(x)); },
                        [&](ConvProblem& x) {
                          if (x.batch == 1) return FitStep::kNotApplicable;
                          x.batch = (x.batch + 1) / 2;
                          return FitStep::kApplied;
                        }};
    FitToBudget(p, policy);
  }
  return p;
}

}  // namespace convparity
