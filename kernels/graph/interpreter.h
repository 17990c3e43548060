// Runs a graph on our kernels: conv-family nodes on the direct kernel, every other op by its
// definition. Tensors are float32, contiguous in their node's shape (core/graph.h).
#pragma once

#include <map>
#include <string>
#include <vector>

#include "core/graph.h"
#include "core/status.h"
#include "core/tensor.h"
#include "kernels/sum_order.h"

namespace convparity {

using GraphBindings = std::map<std::string, HostTensor>;  // var name → value (shape = the var's)

// Checks shapes (InferShapes must have run), binds every var, evaluates every node the outputs need,
// and returns the outputs in order. kInvalid when a var is unbound or has the wrong shape.
Result<std::vector<HostTensor>> Interpret(const Graph& graph, const GraphBindings& vars,
                                          SumOrder order = SumOrder::kSequential);

// Evaluates one node from its operands' values (fold_constants uses it on constant subgraphs).
Result<HostTensor> EvaluateNode(const Graph& graph, int node,
                                const std::vector<const HostTensor*>& operands,
                                SumOrder order = SumOrder::kSequential);

}  // namespace convparity
