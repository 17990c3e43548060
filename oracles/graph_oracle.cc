// The graph oracle's evaluation in ATen float64: each op's forward and reverse rule, with the
// growth of its error bound, and the sweeps over the nodes that graph_oracle_plan.h chose.
#include "oracles/graph_oracle.h"

#include <ATen/core/Tensor.h>
#include <ATen/ops/abs.h>
#include <ATen/ops/add.h>
#include <ATen/ops/cat.h>
#include <ATen/ops/empty.h>
#include <ATen/ops/zeros.h>
#include <c10/util/Exception.h>

#include <algorithm>
#include <cmath>
#include <exception>
#include <utility>
#include <vector>

#include "oracles/aten_conv.h"
#include "oracles/graph_oracle_plan.h"

// Error bounds through a graph (root_reduction_sum). Every op is linear in each operand, so the
// error that an op applied to a value with error e adds to its result is bounded by the same op
// applied to |e|: errors propagate along A (the computation on absolute values). With |e_v| ≤
// c·u·S_v·A_v for every value v: a reduction of K terms adds its own rounding, √K·A in random mode;
// a bilinear op (conv, its two backward directions) carries the errors of both operands, S_a + S_b;
// an op whose terms come from different operands (add, concatenate, bias) carries the larger of
// theirs; copies (permutes, reshapes, slices, pads, tiles) carry S unchanged. Adding up two
// gradient contributions is an add: max + 1. A conv's K counts its products, which round too (√1
// for K = 1); a plain sum of one term rounds nothing and adds 0.

namespace convparity {
namespace {

using aten_conv::DirectionInputs;
using aten_conv::F64;
using aten_conv::FromAten;
using aten_conv::IntList;
using aten_conv::kF64;
using aten_conv::RunDirection;
using graph_oracle_internal::MakePlan;
using graph_oracle_internal::Plan;

at::Tensor ToAten(const HostTensor& t, bool absolute) {
  at::Tensor out = at::empty(t.shape, F64());
  double* dst = out.data_ptr<double>();
  for (size_t i = 0; i < t.values.size(); ++i)
    dst[i] = absolute ? std::fabs(double{t.values[i]}) : double{t.values[i]};
  return out;
}

IntList Axes(const std::vector<int>& axes) { return IntList(axes.begin(), axes.end()); }

IntList Inverse(const std::vector<int>& perm) {
  IntList inv(perm.size());
  for (size_t i = 0; i < perm.size(); ++i) inv[perm[i]] = static_cast<int64_t>(i);
  return inv;
}

// √n for a sum of n terms (no products); one term (or none) rounds nothing.
double RootOf(int64_t n) { return n > 1 ? std::sqrt(static_cast<double>(n)) : 0.0; }

// `t` with PyTorch's standard strides: itself when it has them (no op writes into a value in
// place), else a copy. NOTE: contiguous() may return a permuted view whose size-1 axes keep other
// strides, and ATen picks kernels (and so summation orders) by strides: an (N, 1, H, W) view with
// channels-last strides takes the channels-last path. Every convolution gets its operands with
// the standard strides, so that it is the same computation whatever the layouts around it.
at::Tensor Dense(const at::Tensor& t) {
  int64_t standard = 1;
  for (int64_t d = t.dim() - 1; d >= 0; --d) {
    if (t.stride(d) != standard) return t.clone(at::MemoryFormat::Contiguous);
    standard *= t.size(d);
  }
  return t;
}

// A conv operand stored contiguously in `memory_order` (the logical axes outermost first), as a
// dense tensor in logical order; and back. The memory is reinterpreted in the memory shape of
// `logical`, which is how a multiplier_weight weight reads as the groups representation.
at::Tensor ToLogical(const at::Tensor& memory, const Shape& logical,
                     const std::vector<int>& memory_order) {
  return Dense(memory.reshape(MemoryShape(logical, memory_order)).permute(Inverse(memory_order)));
}
at::Tensor ToMemory(const at::Tensor& logical, const std::vector<int>& memory_order) {
  return Dense(logical.permute(Axes(memory_order)));
}

at::Tensor Zeros(const Shape& shape) { return at::zeros(shape, F64()); }

// The view of `t` that starts at `begin` and has `size` entries per axis.
at::Tensor Region(const at::Tensor& t, const Shape& begin, const Shape& size) {
  at::Tensor r = t;
  for (size_t d = 0; d < size.size(); ++d) r = r.narrow(static_cast<int64_t>(d), begin[d], size[d]);
  return r;
}

// The view of `t` that a strided slice takes.
at::Tensor Sliced(const at::Tensor& t, const StridedSliceAttrs& a) {
  at::Tensor r = t;
  for (size_t d = 0; d < a.begin.size(); ++d)
    r = r.slice(static_cast<int64_t>(d), a.begin[d], a.end[d], a.step[d]);
  return r;
}

// A value of the evaluation: float64, dense in its node's shape (the memory shape), and the S of
// its error bound (the comment at the top).
struct Value {
  at::Tensor t;
  double s = 0;
};

// ---- forward rules ------------------------------------------------------------------------------

Result<Value> ForwardConv(const Graph& g, int i, const std::vector<Value>& v) {
  const Node& n = g.node(i);
  Result<ConvProblem> p = ConvProblemOf(g, i);
  if (!p.ok()) return p.status();
  const std::vector<int> data_order = DataMemoryOrder(*p), weight_order = WeightMemoryOrder(*p);
  const Value& a = v[n.inputs[0]];
  const Value& b = v[n.inputs[1]];
  DirectionInputs t;
  if (n.op == OpKind::kConvBackwardWeight) {
    t.x = ToLogical(a.t, p->input_shape(), data_order);
    t.dy = ToLogical(b.t, p->output_shape(), data_order);
    return Value{ToMemory(RunDirection(*p, Direction::kBackwardWeight, t, kF64), weight_order),
                 a.s + b.s + std::sqrt(ReductionLength(*p, Direction::kBackwardWeight))};
  }
  t.x = ToLogical(a.t, p->input_shape(), data_order);
  t.w = ToLogical(b.t, p->weight_shape(), weight_order);
  double s_bias = 0;
  if (p->bias) {
    t.b = v[n.inputs[2]].t;
    s_bias = v[n.inputs[2]].s;
  }
  const double k = ReductionLength(*p, Direction::kForward) + (p->bias ? 1 : 0);
  return Value{ToMemory(RunDirection(*p, Direction::kForward, t, kF64), data_order),
               std::max(a.s + b.s, s_bias) + std::sqrt(k)};
}

Result<Value> ForwardNode(const Graph& g, int i, const std::vector<Value>& v,
                          const GraphInputs& vars, bool absolute) {
  const Node& n = g.node(i);
  auto in = [&](size_t k) -> const Value& { return v[n.inputs[k]]; };
  switch (n.op) {
    case OpKind::kVar:
      return Value{ToAten(vars.at(n.name), absolute), 0};
    case OpKind::kConst:
      return Value{ToAten(n.value, absolute), 0};
    case OpKind::kConv:
    case OpKind::kConvTranspose:
    case OpKind::kConvBackwardWeight:
      return ForwardConv(g, i, v);
    case OpKind::kLayoutTransform:
    case OpKind::kTranspose:
      return Value{Dense(in(0).t.permute(Axes(std::get<PermuteAttrs>(n.attrs).perm))), in(0).s};
    case OpKind::kReshape:
    case OpKind::kExpandDims:
    case OpKind::kSqueeze:
      return Value{in(0).t.reshape(n.shape), in(0).s};
    case OpKind::kTile:
      return Value{in(0).t.repeat(std::get<TileAttrs>(n.attrs).reps), in(0).s};
    case OpKind::kSum: {
      const SumAttrs& a = std::get<SumAttrs>(n.attrs);
      // NOTE: ATen sums over every axis when given none; the IR's sum over no axes is a copy.
      if (a.axes.empty()) return in(0);
      int64_t terms = 1;
      for (int d : a.axes) terms *= in(0).t.size(d);
      return Value{Dense(in(0).t.sum(Axes(a.axes), a.keep_dims)), in(0).s + RootOf(terms)};
    }
    case OpKind::kStridedSlice:
      return Value{Dense(Sliced(in(0).t, std::get<StridedSliceAttrs>(n.attrs))), in(0).s};
    case OpKind::kPad: {
      at::Tensor r = Zeros(n.shape);
      Region(r, std::get<PadAttrs>(n.attrs).before, in(0).t.sizes().vec()).copy_(in(0).t);
      return Value{r, in(0).s};
    }
    case OpKind::kConcatenate: {
      std::vector<at::Tensor> parts;
      double s = 0;
      for (int k : n.inputs) {
        parts.push_back(v[k].t);
        s = std::max(s, v[k].s);
      }
      return Value{at::cat(at::TensorList(parts), std::get<AxisAttrs>(n.attrs).axis), s};
    }
    case OpKind::kAdd:
      return Value{Dense(at::add(in(0).t, in(1).t)), std::max(in(0).s, in(1).s) + 1};
  }
  return Status::Unsupported(NodeMessagePrefix(g, i) +
                             "the graph oracle has no forward rule for this op");
}

// ---- reverse rules ------------------------------------------------------------------------------

// The gradients of the operands of node i on the path, given the gradient `gy` of its result, as
// (operand index, gradient) pairs in the operands' shapes.
using Contributions = std::vector<std::pair<int, Value>>;

Result<Contributions> ReverseConv(const Graph& g, int i, const Value& gy,
                                  const std::vector<Value>& v, const std::vector<bool>& on_path) {
  const Node& n = g.node(i);
  Result<ConvProblem> p = ConvProblemOf(g, i);
  if (!p.ok()) return p.status();
  const std::vector<int> data_order = DataMemoryOrder(*p), weight_order = WeightMemoryOrder(*p);
  const int x = n.inputs[0], w = n.inputs[1];
  const at::Tensor dy = ToLogical(gy.t, p->output_shape(), data_order);
  Contributions out;
  if (on_path[x]) {
    DirectionInputs t;
    t.w = ToLogical(v[w].t, p->weight_shape(), weight_order);
    t.dy = dy;
    at::Tensor dx = ToMemory(RunDirection(*p, Direction::kBackwardData, t, kF64), data_order);
    out.push_back(
        {x, Value{dx.reshape(g.node(x).shape),
                  gy.s + v[w].s + std::sqrt(ReductionLength(*p, Direction::kBackwardData))}});
  }
  if (on_path[w]) {
    DirectionInputs t;
    t.x = ToLogical(v[x].t, p->input_shape(), data_order);
    t.dy = dy;
    at::Tensor dw = ToMemory(RunDirection(*p, Direction::kBackwardWeight, t, kF64), weight_order);
    // reshape: a multiplier_weight weight is the same memory in another shape.
    out.push_back(
        {w, Value{dw.reshape(g.node(w).shape),
                  gy.s + v[x].s + std::sqrt(ReductionLength(*p, Direction::kBackwardWeight))}});
  }
  if (n.inputs.size() > 2 && on_path[n.inputs[2]]) {
    IntList all_but_channels{0};
    for (int d = 0; d < p->rank; ++d) all_but_channels.push_back(2 + d);
    out.push_back({n.inputs[2], Value{Dense(dy.sum(all_but_channels)),
                                      gy.s + RootOf(dy.numel() / p->out_channels)}});
  }
  return out;
}

// The gradient of an add's operand of shape `s`: summed over the axes it was broadcast along.
Value UnbroadcastGradient(const Value& gy, const Shape& s) {
  const int64_t lead = gy.t.dim() - static_cast<int64_t>(s.size());
  IntList axes;
  int64_t terms = 1;
  for (int64_t d = 0; d < gy.t.dim(); ++d)
    if (d < lead || (s[d - lead] == 1 && gy.t.size(d) != 1)) {
      axes.push_back(d);
      terms *= gy.t.size(d);
    }
  at::Tensor r = axes.empty() ? gy.t : gy.t.sum(axes, /*keepdim=*/true);
  return Value{Dense(r.reshape(s)), gy.s + RootOf(terms)};
}

Result<Contributions> ReverseNode(const Graph& g, int i, const Value& gy,
                                  const std::vector<Value>& v, const std::vector<bool>& on_path) {
  const Node& n = g.node(i);
  const int x = n.inputs.empty() ? -1 : n.inputs[0];
  const Shape& in_shape = x < 0 ? n.shape : g.node(x).shape;
  switch (n.op) {
    case OpKind::kVar:
    case OpKind::kConst:
      return Contributions{};
    case OpKind::kConv:
    case OpKind::kConvTranspose:
      return ReverseConv(g, i, gy, v, on_path);
    case OpKind::kConvBackwardWeight:
      return Status::Unsupported(NodeMessagePrefix(g, i) +
                                 "the graph oracle has no reverse rule for conv_backward_weight, "
                                 "and the gradient asked for flows through it");
    case OpKind::kLayoutTransform:
    case OpKind::kTranspose:
      return Contributions{
          {x, Value{Dense(gy.t.permute(Inverse(std::get<PermuteAttrs>(n.attrs).perm))), gy.s}}};
    case OpKind::kReshape:
    case OpKind::kExpandDims:
    case OpKind::kSqueeze:
      return Contributions{{x, Value{gy.t.reshape(in_shape), gy.s}}};
    case OpKind::kTile: {
      // Result axis d of size reps·in is (repetition, index) with the repetition outermost.
      const Shape& reps = std::get<TileAttrs>(n.attrs).reps;
      Shape split;
      IntList rep_axes;
      int64_t terms = 1;
      for (size_t d = 0; d < reps.size(); ++d) {
        rep_axes.push_back(static_cast<int64_t>(split.size()));
        split.push_back(reps[d]);
        split.push_back(in_shape[d]);
        terms *= reps[d];
      }
      at::Tensor r = gy.t.reshape(split);
      if (!rep_axes.empty()) r = r.sum(rep_axes);
      return Contributions{{x, Value{Dense(r.reshape(in_shape)), gy.s + RootOf(terms)}}};
    }
    case OpKind::kSum: {
      Shape kept = in_shape;
      for (int d : std::get<SumAttrs>(n.attrs).axes) kept[d] = 1;
      return Contributions{{x, Value{Dense(gy.t.reshape(kept).expand(in_shape)), gy.s}}};
    }
    case OpKind::kStridedSlice: {
      at::Tensor r = Zeros(in_shape);
      Sliced(r, std::get<StridedSliceAttrs>(n.attrs)).copy_(gy.t);
      return Contributions{{x, Value{r, gy.s}}};
    }
    case OpKind::kPad:
      return Contributions{
          {x, Value{Dense(Region(gy.t, std::get<PadAttrs>(n.attrs).before, in_shape)), gy.s}}};
    case OpKind::kConcatenate: {
      const int axis = std::get<AxisAttrs>(n.attrs).axis;
      Contributions out;
      int64_t at = 0;
      for (int k : n.inputs) {
        const int64_t size = g.node(k).shape[axis];
        if (on_path[k]) out.push_back({k, Value{Dense(gy.t.narrow(axis, at, size)), gy.s}});
        at += size;
      }
      return out;
    }
    case OpKind::kAdd: {
      Contributions out;
      for (int k : n.inputs)
        if (on_path[k]) out.push_back({k, UnbroadcastGradient(gy, g.node(k).shape)});
      return out;
    }
  }
  return Status::Unsupported(NodeMessagePrefix(g, i) +
                             "the graph oracle has no reverse rule for this op");
}

// Adds a gradient contribution: an add (the comment at the top), or the first one as it is.
void Accumulate(Value& into, Value&& contribution) {
  into = into.t.defined()
             ? Value{at::add(into.t, contribution.t), std::max(into.s, contribution.s) + 1}
             : std::move(contribution);
}

Status CheckShape(const Graph& g, int i, const char* what, const at::Tensor& t,
                  const Shape& expected) {
  if (t.sizes().vec() == expected) return Status::Ok();
  return Status::Internal(NodeMessagePrefix(g, i) + "the oracle's " + what + " has shape " +
                          ShapeText(t.sizes().vec()) + ", but the graph says " +
                          ShapeText(expected));
}

// One run of the plan: the result (or the gradient) with every leaf and the seed taken as given
// or, `absolute`, as its absolute value. `stage` names the node being run, for ATen's errors.
Result<Value> Run(const Graph& g, const Plan& plan, const GraphInputs& vars,
                  const HostTensor& grad_output, bool absolute, std::string& stage) {
  const int count = static_cast<int>(g.nodes.size());
  std::vector<Value> v(count);
  for (int i = 0; i < count; ++i) {
    if (!plan.evaluate[i]) continue;
    stage = "the forward of " + NodeMessagePrefix(g, i);
    Result<Value> r = ForwardNode(g, i, v, vars, absolute);
    if (!r.ok()) return r.status();
    CP_RETURN_IF_ERROR(CheckShape(g, i, "result", r->t, g.node(i).shape));
    v[i] = std::move(r).value();
  }
  if (plan.wrt_nodes.empty()) return v[plan.output];

  std::vector<Value> grad(count);
  if (plan.on_path[plan.output]) grad[plan.output] = Value{ToAten(grad_output, absolute), 0};
  for (int i = plan.output; i >= 0; --i) {
    if (!plan.on_path[i] || !grad[i].t.defined() || g.node(i).op == OpKind::kVar) continue;
    stage = "the reverse of " + NodeMessagePrefix(g, i);
    Result<Contributions> r = ReverseNode(g, i, grad[i], v, plan.on_path);
    if (!r.ok()) return r.status();
    for (auto& [k, c] : r.value()) {
      CP_RETURN_IF_ERROR(CheckShape(g, i, "operand gradient", c.t, g.node(k).shape));
      Accumulate(grad[k], std::move(c));
    }
    grad[i] = Value{};  // every reader of i comes after it: its gradient is complete
  }
  Value total;
  for (int k : plan.wrt_nodes)
    if (grad[k].t.defined()) Accumulate(total, std::move(grad[k]));
  if (!total.t.defined())  // the output does not depend on wrt
    total.t = Zeros(g.node(plan.wrt_nodes[0]).shape);
  return total;
}

// Whether a value of this op is ≥ 0 wherever its operands are: a sum of their products with
// non-negative coefficients, or a copy. Every op today; the switch has no default so that a new op
// must say. NOTE: one that does not keep signs (a subtraction, a negation) must say false, or A
// would be taken as the result where it is not.
bool KeepsSigns(OpKind op) {
  switch (op) {
    case OpKind::kVar:
    case OpKind::kConst:
    case OpKind::kConv:
    case OpKind::kConvTranspose:
    case OpKind::kConvBackwardWeight:
    case OpKind::kLayoutTransform:
    case OpKind::kTranspose:
    case OpKind::kReshape:
    case OpKind::kTile:
    case OpKind::kSum:
    case OpKind::kStridedSlice:
    case OpKind::kPad:
    case OpKind::kExpandDims:
    case OpKind::kSqueeze:
    case OpKind::kConcatenate:
    case OpKind::kAdd:
      return true;
  }
  return false;
}

// Whether the run on absolute values is the run itself: every value it reads (the vars, constants
// and grad_output) is ≥ 0 and every op it visits keeps signs. The positive fill is so, and then
// half of the oracle's work is already done.
bool RunsOnAbsoluteValues(const Graph& g, const Plan& plan, const GraphInputs& vars,
                          const HostTensor& grad_output) {
  auto non_negative = [](const HostTensor& t) {
    return std::all_of(t.values.begin(), t.values.end(), [](float v) { return v >= 0; });
  };
  if (!plan.wrt_nodes.empty() && !non_negative(grad_output)) return false;
  for (size_t i = 0; i < g.nodes.size(); ++i) {
    if (!plan.evaluate[i] && !plan.on_path[i]) continue;
    const Node& n = g.nodes[i];
    if (!KeepsSigns(n.op)) return false;
    const auto var = n.op == OpKind::kVar ? vars.find(n.name) : vars.end();
    if (var != vars.end() && !non_negative(var->second)) return false;
    if (n.op == OpKind::kConst && !non_negative(n.value)) return false;
  }
  return true;
}

Result<GraphOracleOutput> ComputeOrThrow(const Graph& g, const Plan& plan, const GraphInputs& vars,
                                         const HostTensor& grad_output, bool with_magnitude,
                                         std::string& stage) {
  GraphOracleOutput out;
  Result<Value> value = Run(g, plan, vars, grad_output, /*absolute=*/false, stage);
  if (!value.ok()) return value.status();
  out.result = FromAten(value->t);
  out.root_reduction_sum = value->s;
  if (with_magnitude && RunsOnAbsoluteValues(g, plan, vars, grad_output)) {
    // ATen on one thread repeats a computation bit for bit, but for the sign of a zero.
    out.magnitude = out.result;
    for (double& v : out.magnitude.values) v = std::fabs(v);
  } else if (with_magnitude) {
    Result<Value> magnitude = Run(g, plan, vars, grad_output, /*absolute=*/true, stage);
    if (!magnitude.ok()) return magnitude.status();
    out.magnitude = FromAten(magnitude->t);
  }
  return out;
}

}  // namespace

Result<GraphOracleOutput> ComputeGraph(const Graph& graph, const GraphInputs& vars,
                                       const std::string& wrt, const HostTensor& grad_output,
                                       bool with_magnitude) {
  Result<Plan> plan = MakePlan(graph, vars, wrt, grad_output);
  if (!plan.ok()) return plan.status();
  std::string stage = "the graph";
  try {
    aten_conv::UseOneThread();
    return ComputeOrThrow(graph, *plan, vars, grad_output, with_magnitude, stage);
  } catch (const c10::Error& e) {
    return Status::Internal("ATen failed on " + stage + e.what_without_backtrace());
  } catch (const std::exception& e) {
    return Status::Internal("the graph oracle failed on " + stage + e.what());
  }
}

}  // namespace convparity
