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

// A chain (core/graph.h ChainGraph) adds the residual convolution's result to the first one's: in
// exact mode its %w2 is ±2, so that y1 + w2·y1 never cancels to zero where y1 is odd (with ±1, half
// of all 1×1 single-channel blocks would be exactly zero), and the first convolution's ranges leave
// room for the factor 2·K2 + 1.
constexpr int64_t kExactChainWeight = 2;
ExactRange ChooseExactRange(const ConvProblem& p, Direction d, GraphForm form = GraphForm::kConv);

// Stream ids for MixSeed(seed, id): one independent stream per tensor, fixed forever (changing them
// changes every stored case's data).
enum class TensorId : uint64_t {
  kInput = 1,
  kWeight = 2,
  kBias = 3,
  kGradOutput = 4,
  kChainWeight = 5,
};

// Fills the tensors `d` reads, in logical order, with shapes p.input_shape(), p.weight_shape(),
// p.bias_shape(), p.output_shape(); the others stay empty. A chain also gets %w2, the residual
// convolution's weight (ResidualConv(p).weight_shape(), read in every direction; the chain's
// backward directions differentiate the block without p's bias, which no gradient needs).
//   kExact:    integers of ChooseExactRange (with range 1 when even that is not exact: check
//              ChooseExactRange(p, d).exact and skip the case).
//   kUniform:  uniform in [-1, 1), multiples of 2^-23.
//   kPositive: uniform in [0, 1), multiples of 2^-24.
//   kWide:     ±m · 2^e, m in [1, 2) with 24 significant bits, e uniform in [-8, 8]: products and
//              sums of any feasible length neither underflow to subnormals nor overflow.
CaseInputs FillInputs(const ConvProblem& p, Direction d, Fill fill, uint64_t seed,
                      GraphForm form = GraphForm::kConv);

}  // namespace convparity
