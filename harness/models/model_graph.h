// A case's graph as a model format writes it: the graph the case checks (core/case_graphs.h), with
// the nodes its spelling adds (core/spelling.h) and every convolution in the layouts the format's
// op reads. The model writers (onnx_model.h) export it node by node; the oracle evaluates it like
// any graph, which is how the tests show each spelling computing the plain case exactly.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "core/case_graphs.h"
#include "core/conv_problem.h"
#include "core/graph.h"
#include "core/spelling.h"
#include "core/status.h"
#include "core/sut.h"
#include "harness/models/model_formats.h"
#include "kernels/graph/passes.h"

namespace convparity {

// The graph of `form` on p in direction d as a format with these convolution layouts writes it
// (backward: the gradient of the spelled forward graph, core/case_graphs.h GraphProblem):
//  - the weight var in its multiplier shape (C_in, m, k…) for depthwise=multiplier, reshaped into
//    the grouped weight in front of the op;
//  - pads=pad_op: a Pad node in front of the problem's convolution, which pads nothing itself;
//  - bias=add and bias=fused: the problem's convolution without its bias, then an add of the bias
//    reshaped to broadcast over the data (a fused op is the writer's to make of the pair);
//  - every conv-family node in `layouts`, with transposes of its data and weight around it, the
//    problem's own layouts staying those of the graph's vars and result.
// Forward, the problem's convolution is the graph's first conv-family node. The attribute spellings
// (auto-pad modes, output_shape), the identity batch normalization and whether the weight's
// transpose is folded are the writer's: they add nothing the graph can compute differently.
// kUnsupported for a spelling that does not fit p (CheckSpelling).
Result<Graph> ModelGraph(const ConvProblem& p, const GraphForm& form, Direction d,
                         const Spelling& spelling, const ConvLayouts& layouts);

// The graph with every var but `input_var` a constant holding the case's values (from `buffers`),
// then every node whose operands are all constants folded into one, except where `keep` says the
// spelling writes it as a node (a weight's Transpose for weight=transposed).
Result<Graph> BindModelConstants(Graph graph, const std::string& input_var,
                                 const CaseBuffers& buffers,
                                 const std::function<bool(const Graph&, int)>& keep);

// BindModelConstants' graph with its weights as inputs (ModelWeights::kInputs): every constant
// it leaves (each holds case values: neither the forms nor ModelGraph add constants of their own)
// a var again, named as its var when it is one unchanged ("w"), else "v<index>" as the writers
// name values, and the constants' values in graph order. The graph and so the model written of it
// depend on the case's problem, form, direction and spelling, not on its values.
struct WeightInputsGraph {
  Graph graph;
  std::vector<ModelWeightInput> weights;
};
Result<WeightInputsGraph> BindModelWeightInputs(Graph graph, const std::string& input_var,
                                                const CaseBuffers& buffers,
                                                const std::function<bool(const Graph&, int)>& keep);

// The var a model of direction d reads as its input (x; grad_output backward-data): every other
// var the case reads is a constant of the model holding the case's values.
const char* ModelInputVar(Direction d);

// The index of the first conv-family node (the problem's convolution); -1 when there is none.
int FirstConvNode(const Graph& graph);

}  // namespace convparity
