// The problem space's rules and ranges, which the recipe (generators/space_recipe.h) is drawn
// with: the generator's ranges and the byte decoder's wider ones side by side, and the choices the
// recipe and the encoder share. Internal to generators/.
#pragma once

#include <array>
#include <climits>
#include <cstddef>
#include <cstdint>

#include "core/conv_problem.h"
#include "generators/choice.h"

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
  // Past the generator's edges (the byte format's own options; 0 in the generator's ranges):
  int64_t max_extent;    // a dimension's output size (ordinary) or input size (transposed)
  int64_t max_channels;  // a channel count, plain or per group, drawn uniformly
};

// The generator's (the weights of its options are in space_recipe.h).
inline constexpr ChoiceRanges kGeneratorRanges{4, 10, 3, 8, 8, 64, 4, 0, 0};
// The byte decoder's: wider, so that the fuzzer reaches past the generator's edges, and covering
// them, so that every generated case encodes.
inline constexpr ChoiceRanges kByteRanges{6, 12, 3, 8, 16, 64, 8, 1024, 64};

constexpr bool Covers(const ChoiceRanges& wide, const ChoiceRanges& narrow) {
  return wide.max_dilation >= narrow.max_dilation && wide.max_stride >= narrow.max_stride &&
         wide.pad_beyond_reach >= narrow.pad_beyond_reach && wide.max_batch >= narrow.max_batch &&
         wide.max_groups >= narrow.max_groups &&
         wide.max_depthwise_groups >= narrow.max_depthwise_groups &&
         wide.max_multiplier >= narrow.max_multiplier && wide.max_extent >= narrow.max_extent &&
         wide.max_channels >= narrow.max_channels;
}
static_assert(Covers(kByteRanges, kGeneratorRanges), "the byte format must carry generated cases");

// ATen: a transposed dimension's output_padding < max(stride, dilation).
inline int64_t MaxOutputPadding(int64_t stride, int64_t dilation) {
  return (stride > dilation ? stride : dilation) - 1;
}

// output_padding up to `max`: 0, the maximum (an edge of its own), or anything from 1 to it.
inline recipe::IntOptions OutputPaddingOptions(int64_t max) {
  return {{50, 0, 0}, {max > 0 ? 35 : 0, max, max}, {15, 1, max}};
}

// The weight layouts in the order the recipe chooses (and shrinks or encodes toward) them: the
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
