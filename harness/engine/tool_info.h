// What reports say about the tool that wrote them.
#pragma once

#include "reports/report_json.h"

namespace convparity {

ToolInfo CurrentToolInfo();  // our version, LibTorch's, and the oracle's ATen backend

}  // namespace convparity
