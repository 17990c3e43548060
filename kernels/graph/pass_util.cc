#include "kernels/graph/pass_util.h"

#include <algorithm>
#include <utility>

namespace convparity {
namespace graph_pass {

int Builder::Op(OpKind op, std::vector<int> inputs, OpAttrs attrs) {
  if (!status_.ok()) return -1;
  for (int k : inputs)
    if (k < 0) {
      Fail(Status::Internal(std::string("building ") + OpName(op) + ": a missing operand"));
      return -1;
    }
  const int i = graph_.AddOp(op, std::move(inputs), std::move(attrs));
  Result<Shape> s = InferNodeShape(graph_, i);
  if (!s.ok()) {
    Fail(s.status());
    return -1;
  }
  graph_.node(i).shape = *s;
  return i;
}

int Builder::Transpose(int x, const Perm& perm) {
  if (x >= 0 && IsIdentity(perm)) return x;
  return Op(OpKind::kTranspose, {x}, PermuteAttrs{perm, "", ""});
}

int Builder::LayoutTransform(int x, const Perm& perm, std::string src, std::string dst) {
  if (x >= 0 && IsIdentity(perm)) return x;
  return Op(OpKind::kLayoutTransform, {x}, PermuteAttrs{perm, std::move(src), std::move(dst)});
}

int Builder::Reshape(int x, const Shape& shape) {
  if (x >= 0 && this->shape(x) == shape) return x;
  return Op(OpKind::kReshape, {x}, ReshapeAttrs{shape});
}

int Builder::Slice(int x, int axis, int64_t begin, int64_t end, int64_t step) {
  if (x < 0 || !status_.ok()) return -1;
  const Shape& s = shape(x);
  if (begin == 0 && end == s[axis] && step == 1) return x;
  StridedSliceAttrs a{Shape(s.size(), 0), s, Shape(s.size(), 1)};
  a.begin[axis] = begin;
  a.end[axis] = end;
  a.step[axis] = step;
  return Op(OpKind::kStridedSlice, {x}, a);
}

int Builder::Pad(int x, int axis, int64_t before, int64_t after) {
  if (x < 0 || !status_.ok()) return -1;
  if (before == 0 && after == 0) return x;
  const size_t r = shape(x).size();
  PadAttrs a{Shape(r, 0), Shape(r, 0)};
  a.before[axis] = before;
  a.after[axis] = after;
  return Op(OpKind::kPad, {x}, a);
}

int Builder::Concat(const std::vector<int>& xs, int axis) {
  if (xs.size() == 1) return xs[0];
  return Op(OpKind::kConcatenate, xs, AxisAttrs{axis});
}

int Builder::Sum(int x, const std::vector<int>& axes, bool keep_dims) {
  if (axes.empty()) return x;
  return Op(OpKind::kSum, {x}, SumAttrs{axes, keep_dims});
}

int Builder::Tile(int x, const Shape& reps) {
  if (x >= 0 && std::all_of(reps.begin(), reps.end(), [](int64_t r) { return r == 1; })) return x;
  return Op(OpKind::kTile, {x}, TileAttrs{reps});
}

int Builder::ExpandDims(int x, int axis) { return Op(OpKind::kExpandDims, {x}, AxisAttrs{axis}); }

int Builder::Squeeze(int x, const std::vector<int>& axes) {
  return Op(OpKind::kSqueeze, {x}, SqueezeAttrs{axes});
}

int Builder::Add(int a, int b) { return Op(OpKind::kAdd, {a, b}); }

int Builder::Const(const std::string& name, HostTensor value) {
  if (!status_.ok()) return -1;
  return graph_.AddConst(name, std::move(value));
}

Status RewriteGraph(Graph& graph, const NodeRewrite& rewrite) {
  // The rewrites read attributes by their op's type: a malformed graph must stop here.
  CP_RETURN_IF_ERROR(InferShapes(graph));
  Graph out;
  Builder b(out);
  std::vector<int> index(graph.nodes.size(), -1);
  for (size_t i = 0; i < graph.nodes.size(); ++i) {
    const Node& n = graph.nodes[i];
    std::vector<int> inputs;
    for (int k : n.inputs) {
      if (k < 0 || static_cast<size_t>(k) >= i)
        return Status::Invalid("%" + std::to_string(i) + " = " + OpName(n.op) + ": operand %" +
                               std::to_string(k) + " is not an earlier node");
      inputs.push_back(index[k]);
    }
    int replaced = rewrite(b, graph, static_cast<int>(i), inputs);
    CP_RETURN_IF_ERROR(b.status());
    if (replaced < 0) {
      Node copy = n;
      copy.inputs = inputs;
      if (n.op == OpKind::kVar || n.op == OpKind::kConst) {
        replaced = out.Add(std::move(copy));
      } else {
        replaced = b.Op(copy.op, copy.inputs, copy.attrs);
        CP_RETURN_IF_ERROR(b.status());
        out.node(replaced).name = n.name;
      }
    }
    index[i] = replaced;
  }
  for (int o : graph.outputs) {
    if (o < 0 || static_cast<size_t>(o) >= index.size())
      return Status::Invalid("output %" + std::to_string(o) + " does not exist");
    out.outputs.push_back(index[o]);
  }
  RemoveDeadNodes(out);
  CP_RETURN_IF_ERROR(InferShapes(out));
  graph = std::move(out);
  return Status::Ok();
}

Perm Inverse(const Perm& perm) {
  Perm inv(perm.size(), 0);
  for (size_t i = 0; i < perm.size(); ++i) inv[perm[i]] = static_cast<int>(i);
  return inv;
}

bool IsIdentity(const Perm& perm) {
  for (size_t i = 0; i < perm.size(); ++i)
    if (perm[i] != static_cast<int>(i)) return false;
  return true;
}

Perm PermBetween(const Perm& from, const Perm& to) {
  const Perm position = Inverse(from);  // logical axis → memory position in `from`
  Perm perm;
  for (int logical : to) perm.push_back(position[logical]);
  return perm;
}

bool IsConvFamily(OpKind op) {
  return op == OpKind::kConv || op == OpKind::kConvTranspose || op == OpKind::kConvBackwardWeight;
}

ConvProblem LayoutOnly(int rank, bool transposed, DataLayout dl, WeightLayout wl) {
  ConvProblem p;
  p.rank = rank;
  p.transposed = transposed;
  p.data_layout = dl;
  p.weight_layout = wl;
  return p;
}

Perm DataOrder(int rank, DataLayout layout) {
  return DataMemoryOrder(LayoutOnly(rank, false, layout, WeightLayout::kOI));
}

Perm WeightOrder(int rank, bool transposed, WeightLayout layout) {
  return WeightMemoryOrder(LayoutOnly(rank, transposed, DataLayout::kChannelsFirst, layout));
}

int DataChannelPos(int rank, DataLayout layout) {
  return layout == DataLayout::kChannelsFirst ? 1 : rank + 1;
}

int DataSpatialPos(int /*rank*/, DataLayout layout, int d) {
  return layout == DataLayout::kChannelsFirst ? 2 + d : 1 + d;
}

int WeightAxisPos(int rank, bool transposed, WeightLayout layout, int logical_axis) {
  return Inverse(WeightOrder(rank, transposed, layout))[logical_axis];
}

const ConvAttrs& AttrsOfConv(const Node& node) { return std::get<ConvAttrs>(node.attrs); }

int GroupsWeight(Builder& b, const ConvAttrs& a, int w) {
  if (!a.multiplier_weight || w < 0) return w;
  Shape s = b.shape(w);
  const int r = a.rank;
  if (a.weight_layout == WeightLayout::kOI) {  // (C, m, k…) → (C·m, 1, k…)
    s[0] *= s[1];
    s[1] = 1;
  } else {  // …IO: (k…, C, m) → (k…, 1, C·m)
    s[r + 1] *= s[r];
    s[r] = 1;
  }
  return b.Reshape(w, s);
}

std::optional<ConvProblem> ProblemOf(Builder& b, const Graph& graph, int node) {
  Result<ConvProblem> p = ConvProblemOf(graph, node);
  if (p.ok()) return *p;
  b.Fail(p.status());
  return std::nullopt;
}

Dims LeftoverRows(const ConvProblem& p) {
  const Dims y = p.output();
  Dims rows{0, 0, 0};
  for (int d = 0; d < p.rank; ++d)
    rows[d] = p.input[d] - ConvTransposeOutputSize(y[d], p.kernel[d], p.stride[d], p.pad_begin[d],
                                                   p.pad_end[d], p.dilation[d], 0);
  return rows;
}

int SwapGroupBlocks(Builder& b, int w, int64_t groups, const Shape& kernel) {
  if (!b.ok()) return -1;
  const int64_t a = b.shape(w)[0] / groups, c = b.shape(w)[1];
  Perm perm{0, 2, 1};
  for (size_t d = 0; d < kernel.size(); ++d) perm.push_back(3 + static_cast<int>(d));
  const int blocks = b.Transpose(b.Reshape(w, Joined({groups, a, c}, kernel)), perm);
  return b.Reshape(blocks, Joined({groups * c, a}, kernel));
}

Shape Joined(Shape head, const Shape& tail) {
  head.insert(head.end(), tail.begin(), tail.end());
  return head;
}

std::vector<bool> LiveNodes(const Graph& graph) {
  std::vector<bool> live(graph.nodes.size(), false);
  for (int o : graph.outputs)
    if (o >= 0 && static_cast<size_t>(o) < live.size()) live[o] = true;
  for (size_t i = live.size(); i-- > 0;)
    if (live[i])
      for (int k : graph.nodes[i].inputs)
        if (k >= 0 && static_cast<size_t>(k) < i) live[k] = true;
  return live;
}

Status CancelInverseTransforms(Graph& graph) {
  return RewriteGraph(graph, [](Builder& b, const Graph& old, int i, const std::vector<int>& in) {
    const Node& n = old.node(i);
    if (n.op != OpKind::kLayoutTransform) return -1;
    const Perm& outer = std::get<PermuteAttrs>(n.attrs).perm;
    if (IsIdentity(outer)) return in[0];
    const Node& src = b.graph().node(in[0]);
    if (src.op != OpKind::kLayoutTransform) return -1;
    // Result axis i is src's axis outer[i], which is src's operand axis inner[outer[i]].
    const Perm& inner = std::get<PermuteAttrs>(src.attrs).perm;
    for (size_t a = 0; a < outer.size(); ++a)
      if (inner[outer[a]] != static_cast<int>(a)) return -1;
    return src.inputs[0];
  });
}

}  // namespace graph_pass
}  // namespace convparity
