// A case's graph as a model format writes it: the graph the case checks (core/case_graphs.h), with
// the nodes its spelling adds (core/spelling.h) and every convolution in the layouts the format's
// op reads. The model writers (onnx_model.h) export it node by node; the oracle evaluates it like
// any graph, which is how the tests show each spelling computing the plain case exactly.
#pragma once

#include "core/case_graphs.h"
#include "core/conv_problem.h"
#include "core/graph.h"
#include "core/spelling.h"
#include "core/status.h"
#include "kernels/graph/passes.h"

namespace convparity {

// The forward graph of `form` on p as a format with these convolution layouts writes it:
//  - the weight var in its multiplier shape (C_in, m, k…) for depthwise=multiplier, reshaped into
//    the grouped weight in front of the op;
//  - pads=pad_op: a Pad node in front of the problem's convolution, which pads nothing itself;
//  - bias=add and bias=fused: the problem's convolution without its bias, then an add of the bias
//    reshaped to broadcast over the data (a fused op is the writer's to make of the pair);
//  - every conv-family node in `layouts`, with transposes of its data and weight around it, the
//    problem's own layouts staying those of the graph's vars and result.
// The problem's convolution is the graph's first conv-family node. The attribute spellings
// (auto-pad modes, output_shape), the identity batch normalization and whether the weight's
// transpose is folded are the writer's: they add nothing the graph can compute differently.
// kUnsupported for a spelling that does not fit p (CheckSpelling).
Result<Graph> ModelGraph(const ConvProblem& p, const GraphForm& form, const Spelling& spelling,
                         const ConvLayouts& layouts);

// The index of the first conv-family node (the problem's convolution); -1 when there is none.
int FirstConvNode(const Graph& graph);

}  // namespace convparity
