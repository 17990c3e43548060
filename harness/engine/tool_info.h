// What reports say about the tool that wrote them.
#pragma once

#include "core/conv_problem.h"
#include "reports/report_json.h"

namespace convparity {

ToolInfo CurrentToolInfo();  // our version, LibTorch's, and the oracle's ATen backend
// The same, with the ATen backend the oracle uses for `p`: what a report of a case of `p` says.
ToolInfo ToolInfoFor(const ConvProblem& p);

}  // namespace convparity
