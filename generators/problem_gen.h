// RapidCheck generators of valid convolution problems, built along the dependency chain (kind →
// rank → per dimension: kernel, dilation, stride → output_padding → padding → size; then groups →
// channels, batch, layouts) with a mapcat whose shrinking does not commit, so that invalid cases
// cannot occur by construction, and biased toward the edges where convolution code breaks
// (docs/ARCHITECTURE.md, "Generators").
//
// Every choice shrinks toward its plainest option (fewer dimensions, ordinary convolution,
// kernel 1, stride 1, dilation 1, no padding, output size 1, groups 1, one channel, batch 1,
// channels-first, the natural weight layout, no bias), so a failing case shrinks to a small, plain
// problem; a dimension that matters survives when the rank shrinks (any subset can be kept).
// The generation size is ignored: the space's MAC cap bounds a case, shrinking makes it small.
#pragma once

#include <rapidcheck.h>

#include <cstdint>
#include <ostream>
#include <vector>

#include "core/conv_problem.h"
#include "core/defaults.h"
#include "core/spelling.h"

namespace convparity {

// The space a generator draws from.
struct ProblemSpace {
  std::vector<int> ranks{1, 2, 3};
  bool ordinary = true;
  bool transposed = true;
  int64_t max_macs = defaults::kMaxMacs;
  // Kernel sizes go up to the smaller of this and defaults::kMaxKernelOfRank (64, 15, 11 taps in
  // 1-, 2-, 3-D); sizes beyond 9 are drawn rarely, so the small-kernel bias stays.
  int64_t max_kernel = defaults::kMaxKernel;
  // About large_percent of the cases are "large": drawn with bigger sizes and channel counts at
  // block sizes, and fitted to max_macs × large_factor instead of max_macs. Off when either is
  // ≤ 0 or 1.
  int large_percent = defaults::kLargeCasePercent;
  int64_t large_factor = defaults::kLargeCaseFactor;
  bool layouts = true;  // channels-last data and non-natural weight layouts
  bool bias = true;
  bool dilation = true;  // off: no axis dilated
  // The ways channels are grouped that are drawn, bit GroupKind (core/capabilities.h): plain,
  // grouped, depthwise, depthwise with a multiplier.
  uint32_t group_kinds = ~0u;
  // > 0: channel counts are also drawn as multiples of this (1 or 2 times it), for SUTs whose
  // blocked layouts take only such counts (ONNX Runtime's NCHWc rewrite: 8 or 16 on x86).
  int64_t channel_multiple = 0;
};

// The largest kernel `space` allows in `rank` dimensions.
int64_t MaxKernel(const ProblemSpace& space, int rank);

// The MACs cap of a large case of `space` (max_macs when large cases are off); saturates.
int64_t LargeMacs(const ProblemSpace& space);

// Valid problems of `space`. Sizes that would exceed max_macs (LargeMacs for a large case) are
// scaled down (batch, channels, spatial sizes, then kernels), not rejected. Throws
// rc::GenerationFailure when the space is empty (no usable rank, or neither ordinary nor
// transposed).
rc::Gen<ConvProblem> GenProblem(const ProblemSpace& space = {});

// True when `p` is valid (Validate) and inside `space`: its rank, kind, kernel sizes, MACs (up to
// LargeMacs), layouts, bias, dilation and grouping are all allowed.
bool InSpace(const ConvProblem& p, const ProblemSpace& space);

// GenProblem without its final InSpace filter; what it yields outside the space is what GenProblem
// rejects. Exposed to measure the rejection rate (which must stay under 10%).
rc::Gen<ConvProblem> GenProblemUnfiltered(const ProblemSpace& space = {});

// Wished spellings (core/spelling.h), drawn by the one recipe as the byte decoder draws them: each
// way plain half the time, else one of the values `allowed` allows. FitSpelling makes a wish a
// problem's spelling; the wish shrinks toward plain.
rc::Gen<Spelling> GenSpelling(const SpellingMask& allowed = SpellingMask::All());

// RapidCheck prints a problem in a counterexample as its descriptor (found by argument lookup).
void showValue(const ConvProblem& p, std::ostream& os);

}  // namespace convparity
