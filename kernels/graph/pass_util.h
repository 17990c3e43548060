// What the passes (kernels/graph/*.cc) share: a builder that infers each new node's shape as it
// goes, a node-by-node graph rewriter, and the axis bookkeeping of layouts. Internal to
// kernels/graph.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "core/conv_problem.h"
#include "core/graph.h"
#include "core/status.h"

namespace convparity {
namespace graph_pass {

using Perm = std::vector<int>;

// Appends nodes to a graph and sets each one's shape with InferNodeShape. The first error sticks:
// later calls return -1 and add nothing, so a pass builds a whole subgraph and checks status()
// once.
class Builder {
 public:
  explicit Builder(Graph& graph) : graph_(graph) {}

  int Op(OpKind op, std::vector<int> inputs, OpAttrs attrs = {});
  int Transpose(int x, const Perm& perm);  // identity: x itself
  int LayoutTransform(int x, const Perm& perm, std::string src, std::string dst);
  int Reshape(int x, const Shape& shape);  // same shape: x itself
  // One axis: begin ≤ end, step ≥ 1. A slice of the whole axis with step 1 is x itself.
  int Slice(int x, int axis, int64_t begin, int64_t end, int64_t step = 1);
  int Pad(int x, int axis, int64_t before, int64_t after);
  int Concat(const std::vector<int>& xs, int axis);  // one operand: itself
  int Sum(int x, const std::vector<int>& axes, bool keep_dims = false);
  int Tile(int x, const Shape& reps);
  int ExpandDims(int x, int axis);
  int Squeeze(int x, const std::vector<int>& axes);
  int Add(int a, int b);
  int Const(const std::string& name, HostTensor value);

  const Shape& shape(int x) const { return graph_.node(x).shape; }
  bool ok() const { return status_.ok(); }
  const Status& status() const { return status_; }
  void Fail(Status s) {
    if (status_.ok()) status_ = std::move(s);
  }
  Graph& graph() { return graph_; }

 private:
  Graph& graph_;
  Status status_;
};

// Rebuilds `graph` in order. For each old node, `rewrite` gets the builder over the new graph, the
// old node and its operands' new indices; it returns the new node that replaces it, or -1 to copy
// the node unchanged. Then outputs are renumbered, dead nodes removed and shapes inferred again.
using NodeRewrite =
    std::function<int(Builder& b, const Graph& old, int node, const std::vector<int>& inputs)>;
Status RewriteGraph(Graph& graph, const NodeRewrite& rewrite);

// ---- permutations and layouts ------------------------------------------------------------------

Perm Inverse(const Perm& perm);
bool IsIdentity(const Perm& perm);
// The transpose that takes a tensor whose axes are `from` (logical axis per memory position) to one
// whose axes are `to`: result axis i is operand axis perm[i].
Perm PermBetween(const Perm& from, const Perm& to);

bool IsConvFamily(OpKind op);
// The problem with only the fields the memory orders read (rank, kind, layouts) set.
ConvProblem LayoutOnly(int rank, bool transposed, DataLayout dl, WeightLayout wl);
Perm DataOrder(int rank, DataLayout layout);
// A weight's memory order; `transposed` is the kind of node that reads it (conv_backward_weight's
// result is named as an ordinary weight).
Perm WeightOrder(int rank, bool transposed, WeightLayout layout);
// Memory position of the data's channel axis and of spatial axis d.
int DataChannelPos(int rank, DataLayout layout);
int DataSpatialPos(int rank, DataLayout layout, int d);
// Memory position of a weight's logical axis.
int WeightAxisPos(int rank, bool transposed, WeightLayout layout, int logical_axis);

const ConvAttrs& AttrsOfConv(const Node& node);

// A depthwise weight in the multiplier representation, reshaped into the groups one (same memory).
// `node` is the conv reading it; returns the new weight's index (or `w` when there is nothing to
// do).
int GroupsWeight(Builder& b, const ConvAttrs& a, int w);

// ConvProblemOf for a pass under construction: on error the builder fails and the result is empty.
std::optional<ConvProblem> ProblemOf(Builder& b, const Graph& graph, int node);
// The rows of x an ordinary conv's output never reaches, per spatial dimension (its size is not a
// bijection): the output_padding of the conv_transpose that is its data gradient.
Dims LeftoverRows(const ConvProblem& ordinary);
// (g·A, B, k…) → (g·B, A, k…): each group's block of the two channel axes transposed.
int SwapGroupBlocks(Builder& b, int w, int64_t groups, const Shape& kernel);
Shape Joined(Shape head, const Shape& tail);

// Nodes the outputs depend on.
std::vector<bool> LiveNodes(const Graph& graph);

// Replaces layout_transforms of layout_transforms that compose to the identity, and identity
// layout_transforms, by their source; removes what dies.
Status CancelInverseTransforms(Graph& graph);

// ---- the passes' configurable bodies (the buggy variants call them with a bug switched on) ------

struct LowerConv1dOptions {
  bool stride_dilation_on_unit_axis = false;   // tvm-6203
  bool drop_transpose_output_padding = false;  // tvm-7912
};
Status LowerConv1dWith(Graph& graph, const LowerConv1dOptions& options);

// Evaluates nodes whose operands are all consts, except those `skip` says to leave in place.
Status FoldConstantsExcept(Graph& graph, const std::function<bool(const Graph&, int)>& skip);

// conv_backward_weight in logical form: x (N, C_x, X…) and grad_y (N, C_y, Y…) channels-first, the
// result (C_y, C_x/g, k…). Legalize turns each node into transposes to and from this form around
// what the scheme builds.
struct WgradParts {
  ConvAttrs attrs;
  Shape x, y;  // logical shapes
};
using WgradScheme = int (*)(Builder& b, int x, int grad_y, const WgradParts& parts);
Status LegalizeWith(Graph& graph, WgradScheme scheme);

// The gradient's dgrad of an ordinary conv with groups > 1: the default builds the correct one;
// gradient@tvm-9465 replaces it. Returns the new node (dx) or -1 after b.Fail.
using GroupedDgradBuilder = int (*)(Builder& b, const Graph& forward, int conv, int grad_y);
Result<Graph> GradientWith(const Graph& forward, const std::vector<std::string>& wrt,
                           GroupedDgradBuilder grouped_dgrad);
int CorrectDgradOfConv(Builder& b, const Graph& forward, int conv, int grad_y);

}  // namespace graph_pass
}  // namespace convparity
