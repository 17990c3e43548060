// Shape inference of the conv family (conv, conv_transpose, conv_backward_weight): the ConvProblem
// a node stands for, checked against its operands, and so its result shape. Apart from graph.cc
// because the conv relations (a weight gradient's size relation above all) are most of the checks.
#include <algorithm>
#include <string>

#include "core/graph.h"
#include "core/graph_shape_checks.h"

namespace convparity {
namespace graph_internal {
namespace {

std::string DimsText(const Dims& d, int rank) {
  Shape s(d.begin(), d.begin() + std::clamp(rank, 0, kMaxSpatialRank));
  return ShapeText(s);
}

// The logical (N, C, spatial…) shape of a data operand stored in `layout`.
Shape LogicalData(const Shape& s, DataLayout layout) {
  if (layout == DataLayout::kChannelsFirst || s.size() < 2) return s;
  Shape l{s[0], s.back()};
  l.insert(l.end(), s.begin() + 1, s.end() - 1);
  return l;
}

// The problem of a node's params and kind, its operands' sizes still to set. An ordinary problem
// has no output_padding (conv_backward_weight's says how large x is).
ConvProblem ProblemOfParams(const ConvAttrs& a, bool transposed) {
  ConvProblem p;
  static_cast<ConvParams&>(p) = a;
  p.transposed = transposed;
  if (!transposed) p.output_padding = Dims{0, 0, 0};
  return p;
}

// A conv-family node's attributes, with the rank and groups every relation below relies on.
Result<const ConvAttrs*> CheckedConvAttrs(const Node& n, const std::string& where) {
  const ConvAttrs* a = AttrsOf<ConvAttrs>(n);
  if (!a) return Status::Invalid(where + "expected conv attributes");
  if (a->rank < 1 || a->rank > kMaxSpatialRank)
    return Status::Invalid(where + "rank must be 1, 2 or 3, found " + std::to_string(a->rank));
  if (a->groups < 1)
    return Status::Invalid(where + "groups must be positive, found " + std::to_string(a->groups));
  return a;
}

// The ConvProblem of a conv or conv_transpose node, checked. Operands must be in range.
Result<ConvProblem> ForwardConvProblem(const Graph& g, int i) {
  const Node& n = g.node(i);
  const std::string where = NodeMessagePrefix(g, i);
  CP_RETURN_IF_ERROR(CheckOperandCount(g, i, 2, 3));
  Result<const ConvAttrs*> attrs = CheckedConvAttrs(n, where);
  if (!attrs.ok()) return attrs.status();
  const ConvAttrs* a = *attrs;
  const bool transposed = n.op == OpKind::kConvTranspose;
  const int r = a->rank;
  const std::string dl = DataLayoutText(a->data_layout, r);
  const std::string wl = WeightLayoutText(a->weight_layout, r);
  const Shape& ds = OperandShape(g, i, 0);
  const Shape& ws = OperandShape(g, i, 1);
  if (ds.size() != static_cast<size_t>(r + 2))
    return Status::Invalid(where + "data " + ShapeText(ds) + " has rank " +
                           std::to_string(ds.size()) + ", expected " + std::to_string(r + 2) +
                           " for data_layout " + dl);
  if (ws.size() != static_cast<size_t>(r + 2))
    return Status::Invalid(where + "weight " + ShapeText(ws) + " has rank " +
                           std::to_string(ws.size()) + ", expected " + std::to_string(r + 2) +
                           " for kernel_layout " + wl);
  ConvProblem p = ProblemOfParams(*a, transposed);
  const Shape data = LogicalData(ds, a->data_layout);
  const int64_t g_ = a->groups;
  const int64_t c_in = data[1];
  Shape memory_weight = ws;
  if (a->multiplier_weight) {
    // (C, m, k…) in OI…, (k…, C, m) in …IO: the groups representation (C·m, 1, k…) / (k…, 1, C·m).
    if (transposed ||
        (a->weight_layout != WeightLayout::kOI && a->weight_layout != WeightLayout::kSpatialIO))
      return Status::Invalid(where +
                             "multiplier_weight is for conv with an OI… or …IO weight, found " +
                             std::string(OpName(n.op)) + " with kernel_layout " + wl);
    if (g_ != c_in)
      return Status::Invalid(where +
                             "multiplier_weight needs a depthwise conv, groups = data channels, "
                             "found groups=" +
                             std::to_string(g_) + " and " + std::to_string(c_in) +
                             " data channels");
    const bool oi = a->weight_layout == WeightLayout::kOI;
    const int64_t c = oi ? ws[0] : ws[r];
    const int64_t m = oi ? ws[1] : ws[r + 1];
    if (c != c_in)
      return Status::Invalid(where + "weight " + ShapeText(ws) +
                             " in the multiplier representation has " + std::to_string(c) +
                             " channels, data has " + std::to_string(c_in));
    if (oi) {
      memory_weight[0] = c * m;
      memory_weight[1] = 1;
    } else {
      memory_weight[r] = 1;
      memory_weight[r + 1] = c * m;
    }
  }
  const Shape w = LogicalShape(memory_weight, WeightMemoryOrder(p));
  if (c_in % g_ != 0)
    return Status::Invalid(where + "data has " + std::to_string(c_in) +
                           " channels, not divisible by " + std::to_string(g_) + " groups");
  int64_t c_out;
  if (!transposed) {
    if (w[1] != c_in / g_)
      return Status::Invalid(where + "weight " + ShapeText(ws) + " (" + wl + ") has " +
                             std::to_string(w[1]) + " input channels per group, data has " +
                             std::to_string(c_in) + " channels / " + std::to_string(g_) +
                             " groups = " + std::to_string(c_in / g_));
    c_out = w[0];
  } else {
    if (w[0] != c_in)
      return Status::Invalid(where + "weight " + ShapeText(ws) + " (" + wl + ") has " +
                             std::to_string(w[0]) + " input channels, data has " +
                             std::to_string(c_in));
    c_out = w[1] * g_;
  }
  p.batch = data[0];
  p.in_channels = c_in;
  p.out_channels = c_out;
  for (int d = 0; d < r; ++d) {
    p.input[d] = data[2 + d];
    p.kernel[d] = w[2 + d];  // a conv's kernel is its weight's
  }
  if (!transposed)
    for (int d = 0; d < r; ++d)
      if (a->output_padding[d] != 0)
        return Status::Invalid(where + "output_padding " + DimsText(a->output_padding, r) +
                               " is only for conv_transpose");
  p.bias = n.inputs.size() == 3;
  if (p.bias) {
    const Shape& bs = OperandShape(g, i, 2);
    if (bs != Shape{c_out})
      return Status::Invalid(where + "bias " + ShapeText(bs) + " expected shape " +
                             ShapeText({c_out}) + " (output channels)");
  }
  Status st = CheckLimits(p, Limits{});
  if (!st.ok()) return Status(st.code(), where + st.message());
  return p;
}

// The ordinary problem of a conv_backward_weight node with pad_end as in the attributes (which
// need not give grad_y's size), checked: channels, batch and the size relation of graph.h's NOTE.
Result<ConvProblem> BackwardWeightRelation(const Graph& g, int i) {
  const Node& n = g.node(i);
  const std::string where = NodeMessagePrefix(g, i);
  CP_RETURN_IF_ERROR(CheckOperandCount(g, i, 2, 2));
  Result<const ConvAttrs*> attrs = CheckedConvAttrs(n, where);
  if (!attrs.ok()) return attrs.status();
  const ConvAttrs* a = *attrs;
  if (a->multiplier_weight) return Status::Invalid(where + "multiplier_weight is for conv only");
  const int r = a->rank;
  const std::string dl = DataLayoutText(a->data_layout, r);
  const Shape& xs = OperandShape(g, i, 0);
  const Shape& ys = OperandShape(g, i, 1);
  for (auto [what, s] : {std::pair<const char*, const Shape*>{"x", &xs}, {"grad_y", &ys}})
    if (s->size() != static_cast<size_t>(r + 2))
      return Status::Invalid(where + what + " " + ShapeText(*s) + " has rank " +
                             std::to_string(s->size()) + ", expected " + std::to_string(r + 2) +
                             " for data_layout " + dl);
  const Shape x = LogicalData(xs, a->data_layout), y = LogicalData(ys, a->data_layout);
  if (x[0] != y[0])
    return Status::Invalid(where + "x has batch " + std::to_string(x[0]) + ", grad_y has " +
                           std::to_string(y[0]));
  for (auto [what, c] : {std::pair{"x", x[1]}, {"grad_y", y[1]}})
    if (c % a->groups != 0)
      return Status::Invalid(where + what + " has " + std::to_string(c) +
                             " channels, not divisible by " + std::to_string(a->groups) +
                             " groups");
  ConvProblem p = ProblemOfParams(*a, false);
  p.batch = x[0];
  p.in_channels = x[1];
  p.out_channels = y[1];
  for (int d = 0; d < r; ++d) p.input[d] = x[2 + d];
  for (int d = 0; d < r; ++d) {
    if (p.kernel[d] < 1 || p.stride[d] < 1 || p.dilation[d] < 1 || p.pad_begin[d] < 0 ||
        p.pad_end[d] < 0 || y[2 + d] < 1 || p.kernel[d] > (int64_t{1} << 20) ||
        p.stride[d] > (int64_t{1} << 20) || p.dilation[d] > (int64_t{1} << 20) ||
        p.pad_begin[d] > (int64_t{1} << 20) || p.pad_end[d] > (int64_t{1} << 20))
      return Status::Invalid(where + "kernel " + DimsText(p.kernel, r) + ", stride " +
                             DimsText(p.stride, r) + ", dilation " + DimsText(p.dilation, r) +
                             " must be positive, padding " + DimsText(p.pad_begin, r) + " " +
                             DimsText(p.pad_end, r) + " non-negative");
    const int64_t reach = (y[2 + d] - 1) * p.stride[d] - p.pad_begin[d] - p.pad_end[d] +
                          p.dilation[d] * (p.kernel[d] - 1) + 1;
    const int64_t extra = x[2 + d] - reach;
    if (extra < 0 || extra >= std::max(p.stride[d], p.dilation[d])) {
      Dims expect = p.output();
      return Status::Invalid(where + "grad_y " + ShapeText(ys) + " does not fit x " +
                             ShapeText(xs) + " with kernel " + DimsText(p.kernel, r) + ", stride " +
                             DimsText(p.stride, r) + ", padding " + DimsText(p.pad_begin, r) + " " +
                             DimsText(p.pad_end, r) + ", dilation " + DimsText(p.dilation, r) +
                             ": expected grad_y spatial size " + DimsText(expect, r) +
                             " (or x larger by less than max(stride, dilation)), found " +
                             ShapeText(Shape(y.begin() + 2, y.end())));
    }
  }
  // The MAC count of the relation is that of any problem with these sides; check it with the
  // problem whose output is grad_y (pad_end only changes the output size).
  ConvProblem sized = p;
  for (int d = 0; d < r; ++d) sized.pad_end[d] = 0;
  Status st = CheckLimits(sized, Limits{});
  if (st.code() == StatusCode::kLimit) return Status(st.code(), where + st.message());
  return p;
}

}  // namespace

Result<Shape> ConvShape(const Graph& g, int i) {
  const Node& n = g.node(i);
  if (n.op == OpKind::kConvBackwardWeight) {
    Result<ConvProblem> p = BackwardWeightRelation(g, i);
    if (!p.ok()) return p.status();
    return MemoryShape(p->weight_shape(), WeightMemoryOrder(*p));
  }
  Result<ConvProblem> p = ForwardConvProblem(g, i);
  if (!p.ok()) return p.status();
  return MemoryShape(p->output_shape(), DataMemoryOrder(*p));
}

}  // namespace graph_internal

using graph_internal::BackwardWeightRelation;
using graph_internal::ForwardConvProblem;
using graph_internal::LogicalData;

Result<ConvProblem> ConvProblemOf(const Graph& graph, int node) {
  if (node < 0 || static_cast<size_t>(node) >= graph.nodes.size())
    return Status::Invalid("node %" + std::to_string(node) + " does not exist");
  const Node& n = graph.node(node);
  for (int k : n.inputs)
    if (k < 0 || k >= node)
      return Status::Invalid(NodeMessagePrefix(graph, node) + "operand %" + std::to_string(k) +
                             " is not an earlier node");
  switch (n.op) {
    case OpKind::kConv:
    case OpKind::kConvTranspose:
      return ForwardConvProblem(graph, node);
    case OpKind::kConvBackwardWeight: {
      Result<ConvProblem> r = BackwardWeightRelation(graph, node);
      if (!r.ok()) return r;
      ConvProblem p = *r;
      const Shape y = LogicalData(graph.node(n.inputs[1]).shape, p.data_layout);
      for (int d = 0; d < p.rank; ++d) {
        // pad_end such that the output has grad_y's size: floor((base + pad_end) / s) = y − 1.
        const int64_t base = p.input[d] + p.pad_begin[d] - p.dilation[d] * (p.kernel[d] - 1) - 1;
        const int64_t lo = (y[2 + d] - 1) * p.stride[d] - base, hi = lo + p.stride[d] - 1;
        if (p.pad_end[d] >= lo && p.pad_end[d] <= hi) continue;
        if (hi < 0)
          return Status::Unsupported(NodeMessagePrefix(graph, node) + "x " +
                                     ShapeText(graph.node(n.inputs[0]).shape) +
                                     " is larger than any ordinary conv with output grad_y " +
                                     ShapeText(graph.node(n.inputs[1]).shape) +
                                     " reads, on spatial axis " + std::to_string(d));
        p.pad_end[d] = std::max<int64_t>(lo, 0);
      }
      Status st = Validate(p);
      if (!st.ok()) return Status(st.code(), NodeMessagePrefix(graph, node) + st.message());
      return p;
    }
    default:
      return Status::Invalid(NodeMessagePrefix(graph, node) + "not a conv-family node");
  }
}

}  // namespace convparity
