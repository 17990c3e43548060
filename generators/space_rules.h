// The problem space's rules that the generator (generators/problem_gen.cc, over RapidCheck) and the
// byte decoder (generators/byte_decoder.cc, over bytes, and its encoder) share, and the ranges in
// which they differ on purpose, side by side. Internal to generators/.
//
// NOTE: the two recipes stay two: the generator's draws and shrink trees are those of the
// fixed-seed campaign and of the known bugs' shrunk cases, and the byte format is that of every
// fuzzer corpus; they make their choices in different orders and split them differently (the
// generator draws an ordinary dimension's output size, the decoder its input's excess over the
// smallest valid one), so one recipe would change one of them. What they share is here.
#pragma once

#include <array>
#include <climits>
#include <cstddef>
#include <cstdint>

#include "core/conv_problem.h"

namespace convparity {
namespace space {

// The largest values each recipe draws (its smallest are 1, or 2 where a separate choice says
// "more than 1").
struct ChoiceRanges {
  int64_t max_dilation;
  int64_t max_stride;
  int64_t pad_beyond_reach;  // padding past the dilated kernel's reach
  int64_t max_batch;
  int64_t max_groups;            // grouped, not depthwise
  int64_t max_depthwise_groups;  // depthwise: groups == C_in
  int64_t max_multiplier;        // depthwise: C_out / C_in
};

// The generator's (the weights of its options are in problem_gen.cc).
inline constexpr ChoiceRanges kGeneratorRanges{4, 10, 3, 8, 8, 64, 4};
// The byte decoder's: wider, so that the fuzzer reaches past the generator's edges, and covering
// them, so that every generated case encodes.
inline constexpr ChoiceRanges kByteRanges{6, 12, 3, 8, 16, 64, 8};

constexpr bool Covers(const ChoiceRanges& wide, const ChoiceRanges& narrow) {
  return wide.max_dilation >= narrow.max_dilation && wide.max_stride >= narrow.max_stride &&
         wide.pad_beyond_reach >= narrow.pad_beyond_reach && wide.max_batch >= narrow.max_batch &&
         wide.max_groups >= narrow.max_groups &&
         wide.max_depthwise_groups >= narrow.max_depthwise_groups &&
         wide.max_multiplier >= narrow.max_multiplier;
}
static_assert(Covers(kByteRanges, kGeneratorRanges), "the byte format must carry generated cases");

// One option of a choice: the values lo..hi (none when hi < lo). The generator draws the option
// with `weight` and shrinks toward option 0, the plainest; the byte decoder reads the option's
// index, then the value, and the encoder writes the first option that holds the value it wants.
struct ChoiceOption {
  int weight;
  int64_t lo, hi;
};

// The first of `options` that holds `value`; the last when none does (the encoder then reports
// the value as outside that option's range).
template <size_t N>
int OptionOf(const std::array<ChoiceOption, N>& options, int64_t value) {
  for (size_t i = 0; i < N; ++i)
    if (options[i].lo <= value && value <= options[i].hi) return static_cast<int>(i);
  return static_cast<int>(N) - 1;
}

// ATen: a transposed dimension's output_padding < max(stride, dilation).
inline int64_t MaxOutputPadding(int64_t stride, int64_t dilation) {
  return (stride > dilation ? stride : dilation) - 1;
}

// output_padding up to `max`: 0, the maximum (an edge of its own), or anything from 1 to it.
inline std::array<ChoiceOption, 3> OutputPaddingOptions(int64_t max) {
  return {{{50, 0, 0}, {max > 0 ? 35 : 0, max, max}, {15, 1, max}}};
}

// The weight layouts in the order both recipes choose (and shrink or encode toward) them: the
// natural one first, then the other plain order, then the spatial-first and spatial-middle ones.
inline std::array<WeightLayout, 4> WeightLayoutOptions(bool transposed) {
  const WeightLayout natural = transposed ? WeightLayout::kIO : WeightLayout::kOI;
  const WeightLayout swapped = transposed ? WeightLayout::kOI : WeightLayout::kIO;
  return {natural, swapped, WeightLayout::kSpatialIO, WeightLayout::kOSpatialI};
}

// max_macs × large_factor, the MAC cap of a large case; saturates. Callers decide when there are
// no large cases (then the cap is their max_macs).
inline int64_t LargeCaseMacs(int64_t max_macs, int64_t large_factor) {
  if (max_macs > INT64_MAX / large_factor) return INT64_MAX;
  return max_macs * large_factor;
}

}  // namespace space
}  // namespace convparity
