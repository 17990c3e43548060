// Shape inference of a graph (graph.h): the entry points, and the ops that move or combine data
// (permutes, reshape, tile, sum, slices, pad, axes of size 1, concatenate, add). The conv family's
// shapes are in graph_conv_shapes.cc.
#include "core/graph.h"

#include <algorithm>
#include <cctype>
#include <utility>

#include "core/graph_shape_checks.h"

namespace convparity {
namespace graph_internal {

Status CheckOperandCount(const Graph& g, int i, size_t min, size_t max) {
  const size_t k = g.node(i).inputs.size();
  if (k >= min && k <= max) return Status::Ok();
  std::string expected =
      min == max ? std::to_string(min) : std::to_string(min) + " to " + std::to_string(max);
  return Status::Invalid(NodeMessagePrefix(g, i) + "expected " + expected + " operands, found " +
                         std::to_string(k));
}

}  // namespace graph_internal

namespace {

using graph_internal::AttrsOf;
using graph_internal::CheckOperandCount;
using graph_internal::ConvShape;
using graph_internal::OperandShape;

std::string AxesText(const std::vector<int>& axes) {
  return ShapeText(Shape(axes.begin(), axes.end()));
}

// Multiplies with saturation so that absurd shapes compare against the limit safely.
int64_t SaturatingElements(const Shape& s) {
  constexpr int64_t kCap = int64_t{1} << 62;
  int64_t n = 1;
  for (int64_t v : s) {
    if (v <= 0) return 0;
    n = n > kCap / v ? kCap : n * v;
  }
  return n;
}

Status CheckTensorShape(const Shape& s, const std::string& what) {
  if (s.size() > static_cast<size_t>(kMaxGraphTensorRank))
    return Status::Invalid(what + " has rank " + std::to_string(s.size()) + ", at most " +
                           std::to_string(kMaxGraphTensorRank) + " is supported");
  for (int64_t v : s)
    if (v < 0) return Status::Invalid(what + " has a negative size: " + ShapeText(s));
  if (SaturatingElements(s) > kMaxGraphTensorElements)
    return Status::Limit(what + " " + ShapeText(s) + " has more than " +
                         std::to_string(kMaxGraphTensorElements) + " elements");
  return Status::Ok();
}

// Checks that `axes` are distinct and in [0, rank).
Status CheckAxes(const std::vector<int>& axes, size_t rank, const std::string& what) {
  std::vector<bool> seen(rank, false);
  for (int a : axes) {
    if (a < 0 || static_cast<size_t>(a) >= rank)
      return Status::Invalid(what + " " + AxesText(axes) + " has axis " + std::to_string(a) +
                             ", expected axes in [0, " + std::to_string(rank) + ")");
    if (seen[a])
      return Status::Invalid(what + " " + AxesText(axes) + " repeats axis " + std::to_string(a));
    seen[a] = true;
  }
  return Status::Ok();
}

Result<Shape> PermuteShape(const Graph& g, int i) {
  CP_RETURN_IF_ERROR(CheckOperandCount(g, i, 1, 1));
  const PermuteAttrs* a = AttrsOf<PermuteAttrs>(g.node(i));
  if (!a) return Status::Invalid(NodeMessagePrefix(g, i) + "expected permutation attributes");
  const Shape& in = OperandShape(g, i, 0);
  if (a->perm.size() != in.size())
    return Status::Invalid(NodeMessagePrefix(g, i) + "perm " + AxesText(a->perm) + " has " +
                           std::to_string(a->perm.size()) + " axes, operand " + ShapeText(in) +
                           " has rank " + std::to_string(in.size()));
  CP_RETURN_IF_ERROR(CheckAxes(a->perm, in.size(), NodeMessagePrefix(g, i) + "perm"));
  Shape out;
  for (int p : a->perm) out.push_back(in[p]);
  return out;
}

Result<Shape> OtherShape(const Graph& g, int i) {
  const Node& n = g.node(i);
  const std::string where = NodeMessagePrefix(g, i);
  switch (n.op) {
    case OpKind::kReshape: {
      CP_RETURN_IF_ERROR(CheckOperandCount(g, i, 1, 1));
      const ReshapeAttrs* a = AttrsOf<ReshapeAttrs>(n);
      if (!a) return Status::Invalid(where + "expected reshape attributes");
      CP_RETURN_IF_ERROR(CheckTensorShape(a->shape, where + "new shape"));
      const Shape& in = OperandShape(g, i, 0);
      if (SaturatingElements(a->shape) != SaturatingElements(in))
        return Status::Invalid(where + "cannot reshape " + ShapeText(in) + " into " +
                               ShapeText(a->shape) + ": element counts differ");
      return a->shape;
    }
    case OpKind::kTile: {
      CP_RETURN_IF_ERROR(CheckOperandCount(g, i, 1, 1));
      const TileAttrs* a = AttrsOf<TileAttrs>(n);
      if (!a) return Status::Invalid(where + "expected tile attributes");
      const Shape& in = OperandShape(g, i, 0);
      if (a->reps.size() != in.size())
        return Status::Invalid(where + "reps " + ShapeText(a->reps) + " has " +
                               std::to_string(a->reps.size()) + " entries, operand " +
                               ShapeText(in) + " has rank " + std::to_string(in.size()));
      Shape out;
      for (size_t d = 0; d < in.size(); ++d) {
        if (a->reps[d] < 1 || a->reps[d] > kMaxGraphTensorElements)
          return Status::Invalid(where + "reps " + ShapeText(a->reps) + " must be positive");
        out.push_back(in[d] * a->reps[d]);
      }
      return out;
    }
    case OpKind::kSum: {
      CP_RETURN_IF_ERROR(CheckOperandCount(g, i, 1, 1));
      const SumAttrs* a = AttrsOf<SumAttrs>(n);
      if (!a) return Status::Invalid(where + "expected sum attributes");
      const Shape& in = OperandShape(g, i, 0);
      CP_RETURN_IF_ERROR(CheckAxes(a->axes, in.size(), where + "axes"));
      Shape out;
      for (size_t d = 0; d < in.size(); ++d) {
        const bool reduced = std::count(a->axes.begin(), a->axes.end(), static_cast<int>(d)) > 0;
        if (!reduced)
          out.push_back(in[d]);
        else if (a->keep_dims)
          out.push_back(1);
      }
      return out;
    }
    case OpKind::kStridedSlice: {
      CP_RETURN_IF_ERROR(CheckOperandCount(g, i, 1, 1));
      const StridedSliceAttrs* a = AttrsOf<StridedSliceAttrs>(n);
      if (!a) return Status::Invalid(where + "expected strided_slice attributes");
      const Shape& in = OperandShape(g, i, 0);
      if (a->begin.size() != in.size() || a->end.size() != in.size() || a->step.size() != in.size())
        return Status::Invalid(where + "begin " + ShapeText(a->begin) + ", end " +
                               ShapeText(a->end) + ", strides " + ShapeText(a->step) +
                               " need one entry per axis of " + ShapeText(in));
      Shape out;
      for (size_t d = 0; d < in.size(); ++d) {
        if (a->step[d] < 1 || a->begin[d] < 0 || a->begin[d] > a->end[d] || a->end[d] > in[d])
          return Status::Invalid(where + "axis " + std::to_string(d) + " of " + ShapeText(in) +
                                 ": expected 0 ≤ begin ≤ end ≤ " + std::to_string(in[d]) +
                                 " and stride ≥ 1, found begin " + std::to_string(a->begin[d]) +
                                 ", end " + std::to_string(a->end[d]) + ", stride " +
                                 std::to_string(a->step[d]));
        out.push_back((a->end[d] - a->begin[d] + a->step[d] - 1) / a->step[d]);
      }
      return out;
    }
    case OpKind::kPad: {
      CP_RETURN_IF_ERROR(CheckOperandCount(g, i, 1, 1));
      const PadAttrs* a = AttrsOf<PadAttrs>(n);
      if (!a) return Status::Invalid(where + "expected pad attributes");
      const Shape& in = OperandShape(g, i, 0);
      if (a->before.size() != in.size() || a->after.size() != in.size())
        return Status::Invalid(where + "pad_width before " + ShapeText(a->before) + ", after " +
                               ShapeText(a->after) + " need one entry per axis of " +
                               ShapeText(in));
      Shape out;
      for (size_t d = 0; d < in.size(); ++d) {
        if (a->before[d] < 0 || a->after[d] < 0 || a->before[d] > kMaxGraphTensorElements ||
            a->after[d] > kMaxGraphTensorElements)
          return Status::Invalid(where + "padding of axis " + std::to_string(d) +
                                 " must be non-negative, found " + std::to_string(a->before[d]) +
                                 " and " + std::to_string(a->after[d]));
        out.push_back(in[d] + a->before[d] + a->after[d]);
      }
      return out;
    }
    case OpKind::kExpandDims: {
      CP_RETURN_IF_ERROR(CheckOperandCount(g, i, 1, 1));
      const AxisAttrs* a = AttrsOf<AxisAttrs>(n);
      if (!a) return Status::Invalid(where + "expected an axis attribute");
      Shape out = OperandShape(g, i, 0);
      if (a->axis < 0 || static_cast<size_t>(a->axis) > out.size())
        return Status::Invalid(where + "axis " + std::to_string(a->axis) + " expected in [0, " +
                               std::to_string(out.size()) + "] for operand " + ShapeText(out));
      out.insert(out.begin() + a->axis, 1);
      return out;
    }
    case OpKind::kSqueeze: {
      CP_RETURN_IF_ERROR(CheckOperandCount(g, i, 1, 1));
      const SqueezeAttrs* a = AttrsOf<SqueezeAttrs>(n);
      if (!a) return Status::Invalid(where + "expected squeeze attributes");
      const Shape& in = OperandShape(g, i, 0);
      CP_RETURN_IF_ERROR(CheckAxes(a->axes, in.size(), where + "axes"));
      Shape out;
      for (size_t d = 0; d < in.size(); ++d) {
        const bool listed = std::count(a->axes.begin(), a->axes.end(), static_cast<int>(d)) > 0;
        if (listed && in[d] != 1)
          return Status::Invalid(where + "axis " + std::to_string(d) + " of " + ShapeText(in) +
                                 " has size " + std::to_string(in[d]) + ", expected 1");
        // No axes listed: every axis of size 1 goes.
        if (!(listed || (a->axes.empty() && in[d] == 1))) out.push_back(in[d]);
      }
      return out;
    }
    case OpKind::kConcatenate: {
      CP_RETURN_IF_ERROR(CheckOperandCount(g, i, 1, 1u << 20));
      const AxisAttrs* a = AttrsOf<AxisAttrs>(n);
      if (!a) return Status::Invalid(where + "expected an axis attribute");
      Shape out = OperandShape(g, i, 0);
      if (a->axis < 0 || static_cast<size_t>(a->axis) >= out.size())
        return Status::Invalid(where + "axis " + std::to_string(a->axis) + " expected in [0, " +
                               std::to_string(out.size()) + ") for operand " + ShapeText(out));
      for (size_t k = 1; k < n.inputs.size(); ++k) {
        const Shape& s = OperandShape(g, i, k);
        bool fits = s.size() == out.size();
        for (size_t d = 0; fits && d < s.size(); ++d)
          fits = static_cast<int>(d) == a->axis || s[d] == out[d];
        if (!fits)
          return Status::Invalid(where + "operand " + std::to_string(k) + " " + ShapeText(s) +
                                 " does not match operand 0 " + ShapeText(OperandShape(g, i, 0)) +
                                 " outside axis " + std::to_string(a->axis));
        out[a->axis] += s[a->axis];
      }
      return out;
    }
    case OpKind::kAdd: {
      CP_RETURN_IF_ERROR(CheckOperandCount(g, i, 2, 2));
      const Shape& l = OperandShape(g, i, 0);
      const Shape& r = OperandShape(g, i, 1);
      const size_t rank = std::max(l.size(), r.size());
      Shape out(rank);
      for (size_t d = 0; d < rank; ++d) {
        const int64_t a = d + l.size() >= rank ? l[d + l.size() - rank] : 1;
        const int64_t b = d + r.size() >= rank ? r[d + r.size() - rank] : 1;
        if (a != b && a != 1 && b != 1)
          return Status::Invalid(where + "operands " + ShapeText(l) + " and " + ShapeText(r) +
                                 " do not broadcast");
        out[d] = a == 1 ? b : a;
      }
      return out;
    }
    default:
      return Status::Internal(where + "not an ordinary op");
  }
}

Result<Shape> InferUnchecked(const Graph& g, int i) {
  const Node& n = g.node(i);
  switch (n.op) {
    case OpKind::kVar:
      if (!n.inputs.empty())
        return Status::Invalid(NodeMessagePrefix(g, i) + "a var has no operands");
      return n.shape;
    case OpKind::kConst:
      if (!n.inputs.empty())
        return Status::Invalid(NodeMessagePrefix(g, i) + "a const has no operands");
      if (n.value.shape != n.shape ||
          static_cast<int64_t>(n.value.values.size()) != SaturatingElements(n.shape))
        return Status::Invalid(NodeMessagePrefix(g, i) + "const '" + n.name + "' of shape " +
                               ShapeText(n.shape) + " holds a value of shape " +
                               ShapeText(n.value.shape) + " with " +
                               std::to_string(n.value.values.size()) + " elements");
      return n.shape;
    case OpKind::kConv:
    case OpKind::kConvTranspose:
    case OpKind::kConvBackwardWeight:
      return ConvShape(g, i);
    case OpKind::kLayoutTransform:
    case OpKind::kTranspose:
      return PermuteShape(g, i);
    default:
      return OtherShape(g, i);
  }
}

}  // namespace

Result<Shape> InferNodeShape(const Graph& graph, int node) {
  if (node < 0 || static_cast<size_t>(node) >= graph.nodes.size())
    return Status::Invalid("node %" + std::to_string(node) + " does not exist (the graph has " +
                           std::to_string(graph.nodes.size()) + " nodes)");
  const Node& n = graph.node(node);
  for (size_t k = 0; k < n.inputs.size(); ++k)
    if (n.inputs[k] < 0 || n.inputs[k] >= node)
      return Status::Invalid(NodeMessagePrefix(graph, node) + "operand " + std::to_string(k) +
                             " is %" + std::to_string(n.inputs[k]) +
                             ", expected an earlier node (%0 … %" + std::to_string(node - 1) + ")");
  Result<Shape> s = InferUnchecked(graph, node);
  if (!s.ok()) return s;
  CP_RETURN_IF_ERROR(CheckTensorShape(*s, NodeMessagePrefix(graph, node) + "result"));
  return s;
}

Status InferShapes(Graph& graph) {
  for (size_t i = 0; i < graph.nodes.size(); ++i) {
    Result<Shape> s = InferNodeShape(graph, static_cast<int>(i));
    if (!s.ok()) return s.status();
    graph.nodes[i].shape = *s;
  }
  for (int o : graph.outputs)
    if (o < 0 || static_cast<size_t>(o) >= graph.nodes.size())
      return Status::Invalid("output %" + std::to_string(o) + " does not exist (the graph has " +
                             std::to_string(graph.nodes.size()) + " nodes)");
  return Status::Ok();
}

}  // namespace convparity
