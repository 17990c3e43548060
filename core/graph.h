// A small typed graph IR, Relay-like: the vocabulary of the transforms (kernels/graph/) that ML
// compilers apply to convolutions. It lives in core/ because generators build graphs, the oracle
// may evaluate them, reports print them and kernels run and rewrite them.
//
// A graph is a list of nodes in topological order; a node names its operands by index. Every tensor
// is float32 and dense, stored contiguously in its node's `shape`: a channels-last tensor has shape
// (N, spatial…, C), an HWIO weight (k…, I, O). Layouts are data, not annotations: the conv
// attributes say how to read the operands, a layout_transform permutes axes.
#pragma once

#include <cstdint>
#include <string>
#include <variant>
#include <vector>

#include "core/conv_problem.h"
#include "core/status.h"
#include "core/tensor.h"

namespace convparity {

enum class OpKind {
  kVar,                 // a runtime input, bound by name
  kConst,               // a constant tensor (weights after freezing; fold_constants' results)
  kConv,                // (data, weight[, bias]) → data
  kConvTranspose,       // (data, weight[, bias]) → data
  kConvBackwardWeight,  // (x, grad_y) → the weight gradient of an ordinary conv relation
  kLayoutTransform,     // a permutation of axes between two named layouts
  kTranspose,           // a permutation of axes
  kReshape,
  kTile,
  kSum,  // over axes
  kStridedSlice,
  kPad,         // zero padding per axis
  kExpandDims,  // insert one axis of size 1
  kSqueeze,     // remove axes of size 1
  kConcatenate,
  kAdd,  // elementwise, numpy broadcasting
};

// conv, conv_transpose and conv_backward_weight. Sizes per spatial dimension, PyTorch conventions
// (dilation 1 = none). The operands are read in `data_layout` / `weight_layout`; the result of a
// conv is in `data_layout`, the result of conv_backward_weight in `weight_layout`. NOTE:
// conv_backward_weight is the weight gradient of the *ordinary* relation x[yo·s − p + k·d] ~ y[yo]
// (kernels/conv_loops.h): its operands are the large side x and the small side grad_y, its result
// (C_y, C_x/g, k…) read in `weight_layout`. For a transposed conv the large side is its
// grad_output, the small side its input, and the result is PyTorch's transposed weight (C_in,
// C_out/g, k…) as it is. NOTE: so conv_backward_weight's `weight_layout` names the axes of the
// ordinary relation, O = C_y and I = C_x/g: a transposed conv's IO… weight is OI… here, and its …IO
// / O…I weights ((k…, C_in, C_out/g) / (C_out/g, k…, C_in)) have no name here: compute OI… and
// transpose. Its `pad_end` and `output_padding` say how large x is: x = (y − 1)·s − pad_begin −
// pad_end + d·(k − 1) + 1 + extra with 0 ≤ extra < max(s, d) (an ordinary conv's leftover rows, a
// transposed one's output_padding).
// The params are a ConvProblem's (core/conv_problem.h): `kernel` is required by
// conv_backward_weight (a conv's comes from its weight, checked against it elsewhere) and
// `output_padding` is conv_transpose's only.
struct ConvAttrs : ConvParams {
  // The second representation of a depthwise weight (groups = C_in, multiplier m): (C_in, m, k…) in
  // OI, (k…, C_in, m) in …IO, instead of (C_in·m, 1, k…) / (k…, 1, C_in·m). Same memory, other
  // shape; canonicalize_depthwise removes it (tvm-10294).
  bool multiplier_weight = false;
};

// transpose and layout_transform: result axis i is operand axis perm[i]. A layout_transform also
// keeps the layout names it converts between (e.g. "NCHW" → "NHWC"), for the printer.
struct PermuteAttrs {
  std::vector<int> perm;
  std::string src_layout, dst_layout;  // layout_transform only
};
struct ReshapeAttrs {
  Shape shape;
};  // no -1: shapes are explicit
struct TileAttrs {
  Shape reps;
};  // one repetition count per axis
struct SumAttrs {
  std::vector<int> axes;
  bool keep_dims = false;
};
struct StridedSliceAttrs {
  Shape begin, end, step;
};  // per axis, step ≥ 1, end exclusive
struct PadAttrs {
  Shape before, after;
};  // per axis, ≥ 0
struct AxisAttrs {
  int axis = 0;
};  // expand_dims, concatenate
struct SqueezeAttrs {
  std::vector<int> axes;
};

using OpAttrs = std::variant<std::monostate, ConvAttrs, PermuteAttrs, ReshapeAttrs, TileAttrs,
                             SumAttrs, StridedSliceAttrs, PadAttrs, AxisAttrs, SqueezeAttrs>;

struct Node {
  OpKind op = OpKind::kVar;
  std::vector<int> inputs;  // indices of earlier nodes
  OpAttrs attrs;
  std::string name;  // vars and consts: how they print and how vars are bound
  HostTensor value;  // consts only, contiguous in `shape`
  Shape shape;       // the result's shape; vars and consts set it, InferShapes the rest
};

struct Graph {
  std::vector<Node> nodes;
  std::vector<int> outputs;

  // Appends a node and returns its index. Does not check anything: InferShapes does.
  int Add(Node node);
  int AddVar(const std::string& name, Shape shape);
  int AddConst(const std::string& name, HostTensor value);
  int AddOp(OpKind op, std::vector<int> inputs, OpAttrs attrs = {});

  const Node& node(int i) const { return nodes[static_cast<size_t>(i)]; }
  Node& node(int i) { return nodes[static_cast<size_t>(i)]; }
  int CountOps(OpKind op) const;  // among nodes that outputs depend on
};

const char* OpName(OpKind op);  // conv, conv_transpose, conv_backward_weight, layout_transform, …
// "%3 = conv: ", how a message about node i of `g` starts.
std::string NodeMessagePrefix(const Graph& g, int i);

// Fills every node's shape from its operands, in order, and checks operands and attributes. Errors
// are kInvalid and name the node, the operand, what was expected and what was found, e.g.
// "%3 = conv: weight has 4 input channels per group, data has 8 channels / 2 groups = 4 … ".
// A tensor over kMaxGraphTensorElements or a conv over Limits' MACs is kLimit.
Status InferShapes(Graph& graph);
// One node's result shape from its operands' `shape`s (which must be set), with InferShapes'
// checks.
Result<Shape> InferNodeShape(const Graph& graph, int node);
constexpr int64_t kMaxGraphTensorElements = int64_t{1} << 26;
constexpr int kMaxGraphTensorRank = 8;

// The convolution a conv-family node performs, as a ConvProblem (layouts included), from its
// attributes and its operands' shapes. The bridge to everything that runs one convolution.
// conv / conv_transpose: the problem whose forward the node is (bias = a third operand; a
// multiplier_weight gives the groups representation's problem, whose weight has the same memory).
// conv_backward_weight: the ordinary problem whose bwd_weight it is (x its input, grad_y its
// output, the kernel from the attributes, pad_end the attribute's when it gives grad_y's size, else
// the smallest that does); kUnsupported when none does (a transposed conv's output_padding ≥
// stride).
Result<ConvProblem> ConvProblemOf(const Graph& graph, int node);

// Removes nodes the outputs do not depend on and renumbers the rest (order kept).
void RemoveDeadNodes(Graph& graph);

// The forward graph of a problem: %x, %w (and %b) vars, one conv or conv_transpose node read in the
// problem's layouts, its result the output. Vars hold tensors in the problem's memory layouts
// (DataMemoryOrder / WeightMemoryOrder), so a graph's buffers are a ConvSut's buffers.
// With multiplier_weight, a depthwise ordinary problem with an OI… or …IO weight gets its weight
// var in the multiplier representation (same memory); ignored for any other problem.
Graph ForwardGraph(const ConvProblem& p, bool multiplier_weight = false);
// True when ForwardGraph(p, true) uses the multiplier representation.
bool HasMultiplierRepresentation(const ConvProblem& p);
// The attributes of the conv or conv_transpose node that performs p's forward convolution.
ConvAttrs ConvAttrsOf(const ConvProblem& p);

// The logical (PyTorch) shape of a tensor stored in `memory_shape` with its logical axes in
// `memory_order` (core/tensor.h), and back.
Shape LogicalShape(const Shape& memory_shape, const std::vector<int>& memory_order);
Shape MemoryShape(const Shape& logical_shape, const std::vector<int>& memory_order);

// The layout names the printer and layout_transform use: NCHW, NHWC, NCW, OIHW, IOHW, HWIO, OHWI …
std::string DataLayoutText(DataLayout l, int rank);
std::string WeightLayoutText(WeightLayout l, int rank);

}  // namespace convparity
