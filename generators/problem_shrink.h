// Shrinking any problem, not only generated ones: a structural shrink tree over ConvProblem (fewer
// dimensions, smaller sizes, plainer options), so that `convparity shrink`, imported benchdnn cases
// and fuzzer findings minimize as well as RapidCheck's own counterexamples.
#pragma once

#include <rapidcheck.h>

#include "core/conv_problem.h"

namespace convparity {

// The valid one-step simplifications of `p`, most aggressive first (RapidCheck's convention).
std::vector<ConvProblem> SimplerProblems(const ConvProblem& p);

// `p` with the shrink tree that SimplerProblems spans.
rc::Shrinkable<ConvProblem> ShrinkableProblem(const ConvProblem& p);

}  // namespace convparity
