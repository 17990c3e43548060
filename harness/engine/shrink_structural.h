// The second stage of shrinking: after the generator's shrink tree (shrink_search.h), which stops
// in local minima (RapidCheck's mapcat commits once an inner value has shrunk), a structural pass
// over every single reduction toward the plainest case, repeated until none still fails. The case
// it returns is then 1-minimal: no single reduction of CaseReductions() keeps the verdict, unless a
// bound (SUT calls, seconds) ended the pass first, which the result says.
#pragma once

#include <cstdint>
#include <functional>
#include <vector>

#include "core/conv_case.h"

namespace convparity {

// Every valid single-step reduction of `c` toward the plainest case: rank down (drop any one
// spatial dimension), batch, groups (keeping channels per group), input and output channels per
// group, and per spatial dimension the input, kernel, stride, dilation, each padding side and
// output_padding (each to its floor, half way there and one less); data and weight layouts to the
// natural ones, bias off, transposed off (output_padding dropped with it); groups again, keeping
// the channel counts (plainer, though it adds multiply-adds); then the case's options: a chain to
// the convolution alone, the algorithm to direct, the fill to exact.
// A transposed case whose stride or dilation shrinks keeps its output_padding valid by clamping it.
std::vector<ConvCase> CaseReductions(const ConvCase& c);

struct StructuralShrinkBounds {
  int64_t max_calls = 600;  // SUT calls (candidate checks)
  double max_seconds = 30;  // 0: no limit
};

struct StructuralShrinkResult {
  ConvCase shrunk;
  std::vector<ConvCase> steps;  // each accepted reduction, in order
  int64_t calls = 0;            // candidates checked
  bool bound_hit = false;       // a bound ended the pass before the fixpoint: maybe not 1-minimal
  double seconds = 0;
};

// Reduces `failing` while `holds` (the same verdict as the original's) stays true for a reduction,
// to a fixpoint. Greedy: the first reduction that holds is taken, and the reductions of the new
// case are tried from the start. A candidate already seen not to hold is not checked again.
StructuralShrinkResult ShrinkToOneMinimal(const ConvCase& failing,
                                          const std::function<bool(const ConvCase&)>& holds,
                                          const StructuralShrinkBounds& bounds = {});

}  // namespace convparity
