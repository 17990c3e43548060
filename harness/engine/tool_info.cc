#include "harness/engine/tool_info.h"

#include "oracles/torch_oracle.h"

namespace convparity {

ToolInfo CurrentToolInfo() {
  return ToolInfo{CONVPARITY_VERSION, TorchOracle::TorchVersion(), TorchOracle::Backend()};
}

}  // namespace convparity
