// What the graph oracle (graph_oracle.h) computes for a graph, decided and checked before ATen
// runs: the output, the wrt vars, the nodes whose values are needed and those that carry a
// gradient. Apart from the evaluation so that it compiles without ATen's headers.
#pragma once

#include <string>
#include <vector>

#include "core/graph.h"
#include "core/status.h"
#include "oracles/graph_oracle.h"

namespace convparity::graph_oracle_internal {

// Which nodes the computation visits, decided (and the inputs checked) before ATen runs.
struct Plan {
  int output = -1;
  std::vector<int> wrt_nodes;  // the var nodes named `wrt`
  std::vector<bool> evaluate;  // forward values the result needs
  std::vector<bool> on_path;   // nodes between a wrt var and the output: they carry a gradient
};

// kInvalid with graph_oracle.h's messages: an output that is not one existing node, a node whose
// shape is not the inferred one, a var unbound or misshapen, wrt not a var, grad_output misshapen.
Result<Plan> MakePlan(const Graph& g, const GraphInputs& vars, const std::string& wrt,
                      const HostTensor& grad_output);

}  // namespace convparity::graph_oracle_internal
