// Deterministic case data (docs/TOLERANCE.md): the same problem, direction, fill and seed give
// bit-identical values on any machine. Values are generated in logical order, so a problem's
// layouts never change them.
#pragma once

#include <cstdint>

#include "core/conv_case.h"
#include "core/tensor.h"

namespace convparity {

// Exact mode: integers in [-range, range] (a `density` share non-zero) such that every partial sum
// of the reduction stays an integer below 2^24 in magnitude, so float32 in any order is exact. The
// bound is a worst case: K · data_range · weight_range + bias_range ≤ kExactSumLimit (2^22, a
// factor 4 below float32's 2^24), whatever values the fill draws.
struct ExactRange {
  int64_t data_range;    // R for the input / grad_output
  int64_t weight_range;  // R for the weight (or for grad_output in bwd_weight)
  int64_t bias_range;    // 0 unless the direction reads a bias (fwd with p.bias)
  double density;        // share of non-zero values; 1: dense inputs exercise every path
  bool exact;            // false when the reduction is too long for any range ≥ 1 (then: skip)
};

constexpr int64_t kExactSumLimit = int64_t{1} << 22;
// 8 distinct non-zero values: a read of a wrong element differs 7 times in 8; wider ranges add
// little and eat into the room for long reductions.
constexpr int64_t kMaxExactRange = 4;

// A graph form that does more after the convolution (core/case_graphs.h) leaves room for it: the
// convolution's limit is divided by the form's exact_growth.
ExactRange ChooseExactRange(const ConvProblem& p, Direction d, const GraphForm& form = ConvForm());

// Fills the vars a case reads (core/case_graphs.h CaseVars), each on its stream, in logical order.
// A graph form's own vars (a chain's %w2) are filled as weights, with range 1 times their
// exact_scale in exact mode.
//   kExact:    integers of ChooseExactRange (with range 1 when even that is not exact: check
//              ChooseExactRange(p, d).exact and skip the case).
//   kUniform:  uniform in [-1, 1), multiples of 2^-23.
//   kPositive: uniform in [0, 1), multiples of 2^-24.
//   kWide:     ±m · 2^e, m in [1, 2) with 24 significant bits, e uniform in [-8, 8]: products and
//              sums of any feasible length neither underflow to subnormals nor overflow.
CaseInputs FillInputs(const ConvProblem& p, Direction d, Fill fill, uint64_t seed,
                      const GraphForm& form = ConvForm());

}  // namespace convparity
