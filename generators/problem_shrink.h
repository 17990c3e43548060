// Shrinking any problem, not only generated ones: the single-step reductions of a ConvProblem
// (fewer dimensions, smaller sizes, plainer options), written once for both shrinkers that use
// them: the structural shrink tree here, so that `convparity shrink`, imported benchdnn cases and
// fuzzer findings minimize as well as RapidCheck's own counterexamples, and the campaign's
// 1-minimal pass (harness/engine/shrink_structural.h).
#pragma once

#include <rapidcheck.h>

#include <vector>

#include "core/conv_problem.h"

namespace convparity {

// The kinds of single-step reduction. Each shrinker tries them in an order of its own.
enum class Reduction {
  kDropDimension,        // rank down: drop any one spatial dimension
  kBatch,                // a smaller batch
  kGroups,               // fewer groups, keeping the channels per group
  kInChannelsPerGroup,   // fewer input channels per group
  kOutChannelsPerGroup,  // fewer output channels per group
  kSpatial,     // per spatial dimension: input, kernel, stride, dilation, each padding side and
                // output_padding, each smaller
  kOptions,     // each enum field and flag (core/problem_fields.def) plain: channels-first
                // data, the natural weight layout, no bias …
  kTransposed,  // ordinary in place of transposed (output_padding dropped with it)
  kGroupsKeepingChannels,  // fewer groups, keeping the channel counts: wider groups, plainer
                           // though they add multiply-adds (a depthwise problem made dense)
};

// The candidates of one kind of reduction of `p`, unchecked (they may be invalid, or equal `p`).
// A size goes down to its floor, half way there and one less, in that order.
std::vector<ConvProblem> ReductionsOf(const ConvProblem& p, Reduction kind);

// The valid one-step simplifications of `p`, most aggressive first (RapidCheck's convention).
std::vector<ConvProblem> SimplerProblems(const ConvProblem& p);

// `p` with the shrink tree that SimplerProblems spans.
rc::Shrinkable<ConvProblem> ShrinkableProblem(const ConvProblem& p);

}  // namespace convparity
