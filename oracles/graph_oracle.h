// The reference of every case (case_reference.h builds its graph): a graph (core/graph.h) evaluated
// op by op in ATen float64, and its first-order gradient by reverse accumulation with ATen's own
// convolution backward, independent of our gradient pass (kernels/graph/). This header names no
// ATen type.
#pragma once

#include <map>
#include <string>

#include "core/graph.h"
#include "core/status.h"
#include "core/tensor.h"
#include "oracles/torch_oracle.h"  // RefTensor

namespace convparity {

using GraphInputs =
    std::map<std::string, HostTensor>;  // var name → float32 value, in the var's shape

struct GraphOracleOutput {
  RefTensor
      result;  // float64, in the graph's shape of the result (memory shape, as the graph stores it)
  // The same computation on absolute values (docs/TOLERANCE.md's A); filled when asked.
  RefTensor magnitude;
  // Σ√K along the worst path of reductions that led to the result: the random-mode bound is
  // c·u·Σ√K·A.
  double root_reduction_sum = 0;
};

// `graph` has its shapes inferred (InferShapes) and exactly one output. `wrt` empty: the value of
// that output. Otherwise: the gradient of ⟨grad_output, output⟩ with respect to the var named `wrt`
// (grad_output has the output's shape), by reverse accumulation. kInvalid: a var unbound or of the
// wrong shape/size, wrt not a var of the graph, grad_output of the wrong shape; kUnsupported: an op
// the oracle has no rule for (say which); kInternal for ATen errors (caught, never thrown).
// NOTE: every var the output depends on must be bound, in both modes (as for Interpret). Several
// var nodes with the name `wrt` are one variable: their gradients add up. A `wrt` var the output
// does not depend on has a zero gradient. grad_output is ignored when wrt is empty (pass an empty
// HostTensor).
Result<GraphOracleOutput> ComputeGraph(const Graph& graph, const GraphInputs& vars,
                                       const std::string& wrt, const HostTensor& grad_output,
                                       bool with_magnitude);

}  // namespace convparity
