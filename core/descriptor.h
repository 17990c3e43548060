// The descriptor: one line, no spaces, that names a problem completely and parses back to it.
//
//   [direction:][t]<rank>d[_g<g>][_mb<n>]_ic<c>_oc<c>_i<size>_k<size>[_s<size>][_p<size> | _pb<size>_pe<size>]
//       [_d<size>][_op<size>][_<data layout>][_<weight layout>][_b][_f32]
//
// <size> is `AxBxC` (one value per spatial dimension) or a single value for all of them; pb or pe alone
// leaves the other 0. The short form
// omits defaults (g1, mb1, s1, p0, d1, op0, channels-first, the natural weight layout, no bias, f32).
// Example: bwd_weight:t2d_g2_ic4_oc6_i9x9_k3x3_s2x2_p1x1_d2x2_op1x0_nhwc_hwio
// NOTE: dilation is PyTorch's (1 = none); benchdnn writes it minus one.
#pragma once

#include <optional>
#include <string>

#include "core/conv_problem.h"
#include "core/status.h"

namespace convparity {

std::string ProblemDescriptor(const ConvProblem& p, bool long_form = false);
std::string CaseDescriptor(const ConvProblem& p, Direction d);  // "fwd:2d_ic…"

struct ParsedDescriptor {
  ConvProblem problem;
  std::optional<Direction> direction;  // present when the text had a "dir:" prefix
};
// Does not Validate(); a syntax error names the token and what was expected.
Result<ParsedDescriptor> ParseDescriptor(const std::string& text);

}  // namespace convparity
