// Runs one problem on the implementation of oneDNN a variant asks for. The implementations that
// accept a problem are found by iterating its primitive descriptor (oneDNN's order of preference)
// once per problem shape, direction and algorithm, and kept, with the primitives made from them,
// in a small cache: the members of the adapter's family that check the same case (onednn,
// onednn#2, …) share one iteration, and shrinking, which re-runs shapes, reuses primitives.
#pragma once

#include <cstdint>
#include <string>

#include "convparity_plugin.h"

namespace convparity_onednn {

enum class Direction { kForward, kBackwardData, kBackwardWeight };

// What a run asks for: oneDNN's k-th choice (0 = its first) among the direct implementations, or
// its first Winograd implementation.
struct Choice {
  bool winograd = false;
  int index = 0;
};

// Buffers in PyTorch's contiguous layouts (convparity_plugin.h); unused ones are null.
struct Buffers {
  const float* src = nullptr;       // x      (fwd, bwd_weight)
  const float* weights = nullptr;   // w      (fwd, bwd_data)
  const float* bias = nullptr;      // b      (fwd with bias)
  const float* diff_dst = nullptr;  // dy     (bwd_data, bwd_weight)
  float* result = nullptr;          // y, dx or dw
};

// What happened: CONVPARITY_OK, _UNSUPPORTED or _ERROR, with the decline's or error's reason, or
// the implementation that ran (oneDNN's impl_info_str) and whether it is inexact (Winograd).
struct Outcome {
  int code = CONVPARITY_ERROR;
  std::string message;
  std::string implementation;
  bool inexact = false;
};

Outcome Run(const convparity_problem& p, Direction direction, Choice choice, const Buffers& b);

}  // namespace convparity_onednn
