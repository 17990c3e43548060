#include "core/graph.h"

#include <algorithm>
#include <cctype>
#include <utility>

namespace convparity {
namespace {

std::string Prefix(const Graph& g, int i) {
  return "%" + std::to_string(i) + " = " + OpName(g.node(i).op) + ": ";
}

std::string DimsText(const Dims& d, int rank) {
  Shape s(d.begin(), d.begin() + std::clamp(rank, 0, kMaxSpatialRank));
  return ShapeText(s);
}

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

// The logical (N, C, spatial…) shape of a data operand stored in `layout`.
Shape LogicalData(const Shape& s, DataLayout layout) {
  if (layout == DataLayout::kChannelsFirst || s.size() < 2) return s;
  Shape l{s[0], s.back()};
  l.insert(l.end(), s.begin() + 1, s.end() - 1);
  return l;
}

// A problem with only rank, kind and layouts set: enough for the memory orders.
ConvProblem LayoutProblem(const ConvAttrs& a, bool transposed) {
  ConvProblem p;
  p.rank = a.rank;
  p.transposed = transposed;
  p.data_layout = a.data_layout;
  p.weight_layout = a.weight_layout;
  return p;
}

template <typename T>
const T* AttrsOf(const Node& n) {
  return std::get_if<T>(&n.attrs);
}

Status CheckOperandCount(const Graph& g, int i, size_t min, size_t max) {
  const size_t k = g.node(i).inputs.size();
  if (k >= min && k <= max) return Status::Ok();
  std::string expected = min == max ? std::to_string(min)
                                    : std::to_string(min) + " to " + std::to_string(max);
  return Status::Invalid(Prefix(g, i) + "expected " + expected + " operands, found " +
                         std::to_string(k));
}

const Shape& OperandShape(const Graph& g, int i, size_t k) {
  return g.node(g.node(i).inputs[k]).shape;
}

// The ConvProblem of a conv or conv_transpose node, checked. Operands must be in range.
Result<ConvProblem> ForwardConvProblem(const Graph& g, int i) {
  const Node& n = g.node(i);
  const std::string where = Prefix(g, i);
  CP_RETURN_IF_ERROR(CheckOperandCount(g, i, 2, 3));
  const ConvAttrs* a = AttrsOf<ConvAttrs>(n);
  if (!a) return Status::Invalid(where + "expected conv attributes");
  if (a->rank < 1 || a->rank > kMaxSpatialRank)
    return Status::Invalid(where + "rank must be 1, 2 or 3, found " + std::to_string(a->rank));
  if (a->groups < 1)
    return Status::Invalid(where + "groups must be positive, found " + std::to_string(a->groups));
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
  ConvProblem p = LayoutProblem(*a, transposed);
  const Shape data = LogicalData(ds, a->data_layout);
  const int64_t g_ = a->groups;
  const int64_t c_in = data[1];
  Shape memory_weight = ws;
  if (a->multiplier_weight) {
    // (C, m, k…) in OI…, (k…, C, m) in …IO: the groups representation (C·m, 1, k…) / (k…, 1, C·m).
    if (transposed ||
        (a->weight_layout != WeightLayout::kOI && a->weight_layout != WeightLayout::kSpatialIO))
      return Status::Invalid(where + "multiplier_weight is for conv with an OI… or …IO weight, found " +
                             std::string(OpName(n.op)) + " with kernel_layout " + wl);
    if (g_ != c_in)
      return Status::Invalid(where + "multiplier_weight needs a depthwise conv, groups = data channels, "
                             "found groups=" + std::to_string(g_) + " and " +
                             std::to_string(c_in) + " data channels");
    const bool oi = a->weight_layout == WeightLayout::kOI;
    const int64_t c = oi ? ws[0] : ws[r];
    const int64_t m = oi ? ws[1] : ws[r + 1];
    if (c != c_in)
      return Status::Invalid(where + "weight " + ShapeText(ws) + " in the multiplier representation has " +
                             std::to_string(c) + " channels, data has " + std::to_string(c_in));
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
  p.groups = g_;
  for (int d = 0; d < r; ++d) {
    p.input[d] = data[2 + d];
    p.kernel[d] = w[2 + d];
  }
  p.stride = a->stride;
  p.pad_begin = a->pad_begin;
  p.pad_end = a->pad_end;
  p.dilation = a->dilation;
  p.output_padding = transposed ? a->output_padding : Dims{0, 0, 0};
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
  const std::string where = Prefix(g, i);
  CP_RETURN_IF_ERROR(CheckOperandCount(g, i, 2, 2));
  const ConvAttrs* a = AttrsOf<ConvAttrs>(n);
  if (!a) return Status::Invalid(where + "expected conv attributes");
  if (a->rank < 1 || a->rank > kMaxSpatialRank)
    return Status::Invalid(where + "rank must be 1, 2 or 3, found " + std::to_string(a->rank));
  if (a->groups < 1)
    return Status::Invalid(where + "groups must be positive, found " + std::to_string(a->groups));
  if (a->multiplier_weight)
    return Status::Invalid(where + "multiplier_weight is for conv only");
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
                             " channels, not divisible by " + std::to_string(a->groups) + " groups");
  ConvProblem p = LayoutProblem(*a, false);
  p.batch = x[0];
  p.in_channels = x[1];
  p.out_channels = y[1];
  p.groups = a->groups;
  for (int d = 0; d < r; ++d) p.input[d] = x[2 + d];
  p.kernel = a->kernel;
  p.stride = a->stride;
  p.pad_begin = a->pad_begin;
  p.pad_end = a->pad_end;
  p.dilation = a->dilation;
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
      return Status::Invalid(
          where + "grad_y " + ShapeText(ys) + " does not fit x " + ShapeText(xs) + " with kernel " +
          DimsText(p.kernel, r) + ", stride " + DimsText(p.stride, r) + ", padding " +
          DimsText(p.pad_begin, r) + " " + DimsText(p.pad_end, r) + ", dilation " +
          DimsText(p.dilation, r) + ": expected grad_y spatial size " + DimsText(expect, r) +
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

Result<Shape> PermuteShape(const Graph& g, int i) {
  CP_RETURN_IF_ERROR(CheckOperandCount(g, i, 1, 1));
  const PermuteAttrs* a = AttrsOf<PermuteAttrs>(g.node(i));
  if (!a) return Status::Invalid(Prefix(g, i) + "expected permutation attributes");
  const Shape& in = OperandShape(g, i, 0);
  if (a->perm.size() != in.size())
    return Status::Invalid(Prefix(g, i) + "perm " + AxesText(a->perm) + " has " +
                           std::to_string(a->perm.size()) + " axes, operand " + ShapeText(in) +
                           " has rank " + std::to_string(in.size()));
  CP_RETURN_IF_ERROR(CheckAxes(a->perm, in.size(), Prefix(g, i) + "perm"));
  Shape out;
  for (int p : a->perm) out.push_back(in[p]);
  return out;
}

Result<Shape> OtherShape(const Graph& g, int i) {
  const Node& n = g.node(i);
  const std::string where = Prefix(g, i);
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
      if (a->begin.size() != in.size() || a->end.size() != in.size() ||
          a->step.size() != in.size())
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
      if (!n.inputs.empty()) return Status::Invalid(Prefix(g, i) + "a var has no operands");
      return n.shape;
    case OpKind::kConst:
      if (!n.inputs.empty()) return Status::Invalid(Prefix(g, i) + "a const has no operands");
      if (n.value.shape != n.shape ||
          static_cast<int64_t>(n.value.values.size()) != SaturatingElements(n.shape))
        return Status::Invalid(Prefix(g, i) + "const '" + n.name + "' of shape " +
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
      return Status::Invalid(Prefix(graph, node) + "operand " + std::to_string(k) + " is %" +
                             std::to_string(n.inputs[k]) +
                             ", expected an earlier node (%0 … %" + std::to_string(node - 1) +
                             ")");
  Result<Shape> s = InferUnchecked(graph, node);
  if (!s.ok()) return s;
  CP_RETURN_IF_ERROR(CheckTensorShape(*s, Prefix(graph, node) + "result"));
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

Result<ConvProblem> ConvProblemOf(const Graph& graph, int node) {
  if (node < 0 || static_cast<size_t>(node) >= graph.nodes.size())
    return Status::Invalid("node %" + std::to_string(node) + " does not exist");
  const Node& n = graph.node(node);
  for (int k : n.inputs)
    if (k < 0 || k >= node)
      return Status::Invalid(Prefix(graph, node) + "operand %" + std::to_string(k) +
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
          return Status::Unsupported(
              Prefix(graph, node) + "x " + ShapeText(graph.node(n.inputs[0]).shape) +
              " is larger than any ordinary conv with output grad_y " +
              ShapeText(graph.node(n.inputs[1]).shape) + " reads, on spatial axis " +
              std::to_string(d));
        p.pad_end[d] = std::max<int64_t>(lo, 0);
      }
      Status st = Validate(p);
      if (!st.ok()) return Status(st.code(), Prefix(graph, node) + st.message());
      return p;
    }
    default:
      return Status::Invalid(Prefix(graph, node) + "not a conv-family node");
  }
}

}  // namespace convparity
