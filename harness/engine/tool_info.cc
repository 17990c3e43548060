#include "harness/engine/tool_info.h"

#include "oracles/torch_oracle.h"

namespace convparity {

ToolInfo CurrentToolInfo() {
  return ToolInfo{CONVPARITY_VERSION, TorchOracle::TorchVersion(), TorchOracle::Backend()};
}

ToolInfo ToolInfoFor(const ConvProblem& p) {
  ToolInfo tool = CurrentToolInfo();
  tool.oracle_backend = TorchOracle::Backend(p);
  return tool;
}

}  // namespace convparity
