// Scaling benchdnn problems (real networks' layers) down to a budget while keeping their
// character, so that imported lists run in seconds. `convparity import-benchdnn` --max-batch,
// --max-spatial and --scale-macs.
#pragma once

#include <cstdint>

#include "core/conv_problem.h"

namespace convparity {

// Budgets for ScaleDown; 0 keeps that aspect as it is.
struct ScaleOptions {
  int64_t max_batch = 0;
  int64_t max_spatial = 0;  // every spatial extent of the input and the output
  int64_t max_macs = 0;
};

// Shrinks batch, spatial sizes and, while over max_macs, channels (then spatial sizes and batch
// further), keeping the configuration's character: rank, kind, kernel, stride, dilation, padding,
// output_padding, layouts, bias; groups > 1, depthwise-ness, whether the per-group output channels
// are fewer than, as many as or more than the per-group input channels, and per-group counts of 1;
// for an ordinary convolution the input size modulo the stride (so the same trailing rows go
// unread). Never grows anything. A budget that the fixed parts (a huge kernel, say) exceed is met
// as far as it can be: the result is then a fixed point, ScaleDown(result) == result. An invalid
// problem is returned unchanged; a valid one stays valid.
ConvProblem ScaleDown(const ConvProblem& p, const ScaleOptions& options);

}  // namespace convparity
