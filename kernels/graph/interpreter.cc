#include "kernels/graph/interpreter.h"

#include <algorithm>
#include <limits>
#include <type_traits>

#include "kernels/conv_loops.h"
#include "kernels/direct_conv.h"

namespace convparity {
namespace {

std::string Where(const Graph& g, int i) {
  return "%" + std::to_string(i) + " = " + OpName(g.node(i).op) + ": ";
}

HostTensor Zeros(const Shape& shape) {
  return HostTensor{shape, std::vector<float>(static_cast<size_t>(NumElements(shape)), 0.0f)};
}

int64_t Offset(const int64_t* idx, const Shape& strides) {
  int64_t off = 0;
  for (size_t d = 0; d < strides.size(); ++d) off += idx[d] * strides[d];
  return off;
}

// out[i] = in[base + Σ i_d · in_strides[d]] for every index i of out's shape.
void Gather(const std::vector<float>& in, int64_t base, const Shape& in_strides, HostTensor& out) {
  ForEachIndex(out.shape, [&](const int64_t* idx, int64_t linear) {
    out.values[linear] = in[base + Offset(idx, in_strides)];
  });
}

HostTensor Permute(const HostTensor& in, const std::vector<int>& perm, const Shape& out_shape) {
  const Shape s = ContiguousStrides(in.shape);
  Shape strides;
  for (int p : perm) strides.push_back(s[p]);
  HostTensor out = Zeros(out_shape);
  Gather(in.values, 0, strides, out);
  return out;
}

HostTensor Tile(const HostTensor& in, const Shape& out_shape) {
  const Shape s = ContiguousStrides(in.shape);
  HostTensor out = Zeros(out_shape);
  ForEachIndex(out_shape, [&](const int64_t* idx, int64_t linear) {
    int64_t off = 0;
    for (size_t d = 0; d < s.size(); ++d) off += (idx[d] % in.shape[d]) * s[d];
    out.values[linear] = in.values[off];
  });
  return out;
}

HostTensor Sum(const HostTensor& in, const SumAttrs& a, const Shape& out_shape, SumOrder order) {
  const Shape s = ContiguousStrides(in.shape);
  // Kept axes in order (the result's index, without the unit axes of keep_dims), reduced ones.
  Shape kept_shape, kept_strides, red_shape, red_strides;
  for (size_t d = 0; d < in.shape.size(); ++d) {
    const bool reduced = std::count(a.axes.begin(), a.axes.end(), static_cast<int>(d)) > 0;
    (reduced ? red_shape : kept_shape).push_back(in.shape[d]);
    (reduced ? red_strides : kept_strides).push_back(s[d]);
  }
  // The reduced elements' offsets, in the order the sum takes them.
  std::vector<int64_t> reduced;
  ForEachIndex(red_shape,
               [&](const int64_t* r, int64_t) { reduced.push_back(Offset(r, red_strides)); });
  HostTensor out = Zeros(out_shape);
  WithSum(order, [&](auto& sum) {
    ForEachIndex(kept_shape, [&](const int64_t* idx, int64_t linear) {
      const float* base = in.values.data() + Offset(idx, kept_strides);
      sum.Start(0.0f, reduced.size());
      if constexpr (std::decay_t<decltype(sum)>::kReverse)
        for (size_t k = reduced.size(); k-- > 0;) sum.Add(base[reduced[k]]);
      else
        for (int64_t r : reduced) sum.Add(base[r]);
      out.values[linear] = sum.Finish();
    });
  });
  return out;
}

HostTensor StridedSlice(const HostTensor& in, const StridedSliceAttrs& a, const Shape& out_shape) {
  const Shape s = ContiguousStrides(in.shape);
  Shape strides;
  int64_t base = 0;
  for (size_t d = 0; d < s.size(); ++d) {
    base += a.begin[d] * s[d];
    strides.push_back(a.step[d] * s[d]);
  }
  HostTensor out = Zeros(out_shape);
  Gather(in.values, base, strides, out);
  return out;
}

// Writes `in` into `out` at offset `at` (per axis).
void Place(const HostTensor& in, const Shape& at, HostTensor& out) {
  const Shape s = ContiguousStrides(out.shape);
  int64_t base = 0;
  for (size_t d = 0; d < s.size(); ++d) base += at[d] * s[d];
  ForEachIndex(in.shape, [&](const int64_t* idx, int64_t linear) {
    out.values[base + Offset(idx, s)] = in.values[linear];
  });
}

HostTensor Add(const HostTensor& l, const HostTensor& r, const Shape& out_shape) {
  // Broadcast strides: an axis of size 1 (or missing) does not move.
  auto broadcast = [&](const Shape& shape) {
    const Shape s = ContiguousStrides(shape);
    Shape b(out_shape.size(), 0);
    const size_t lead = out_shape.size() - shape.size();
    for (size_t d = 0; d < shape.size(); ++d) b[lead + d] = shape[d] == 1 ? 0 : s[d];
    return b;
  };
  const Shape ls = broadcast(l.shape), rs = broadcast(r.shape);
  HostTensor out = Zeros(out_shape);
  ForEachIndex(out_shape, [&](const int64_t* idx, int64_t linear) {
    out.values[linear] = l.values[Offset(idx, ls)] + r.values[Offset(idx, rs)];
  });
  return out;
}

Result<HostTensor> ForwardConv(const Graph& g, int i, const std::vector<const HostTensor*>& ops,
                               SumOrder order) {
  Result<ConvProblem> p = ConvProblemOf(g, i);
  if (!p.ok()) return p.status();
  HostTensor out{g.node(i).shape,
                 std::vector<float>(static_cast<size_t>(NumElements(g.node(i).shape)),
                                    std::numeric_limits<float>::quiet_NaN())};
  ConvBuffers b;
  b.input = ops[0]->values.data();
  b.weight = ops[1]->values.data();
  b.bias = ops.size() > 2 ? ops[2]->values.data() : nullptr;
  b.result = out.values.data();
  DirectConv conv(order);
  Status st = conv.Run(*p, Direction::kForward, b);
  if (!st.ok()) return Status(st.code(), Where(g, i) + st.message());
  return out;
}

// conv_backward_weight straight from its operands' sizes (graph.h's NOTE): x's size need not be an
// ordinary conv's input for grad_y's size (a transposed conv's output_padding may exceed its
// stride).
Result<HostTensor> BackwardWeight(const Graph& g, int i, const std::vector<const HostTensor*>& ops,
                                  SumOrder order) {
  const Node& n = g.node(i);
  const ConvAttrs& a = std::get<ConvAttrs>(n.attrs);
  auto logical = [&](const Shape& s) {
    if (a.data_layout == DataLayout::kChannelsFirst) return s;
    Shape l{s[0], s.back()};
    l.insert(l.end(), s.begin() + 1, s.end() - 1);
    return l;
  };
  const Shape x = logical(ops[0]->shape), y = logical(ops[1]->shape);
  ConvProblem q;
  q.rank = a.rank;
  q.batch = x[0];
  q.in_channels = x[1];
  q.out_channels = y[1];
  q.groups = a.groups;
  q.kernel = a.kernel;
  q.data_layout = a.data_layout;
  q.weight_layout = a.weight_layout;
  ConvLoopSpec spec;
  spec.batch = x[0];
  spec.groups = a.groups;
  spec.cx_per_group = x[1] / a.groups;
  spec.cy_per_group = y[1] / a.groups;
  for (int d = 0; d < a.rank; ++d) {
    q.input[d] = x[2 + d];
    spec.x_size[d] = x[2 + d];
    spec.y_size[d] = y[2 + d];
    spec.kernel[d] = a.kernel[d];
    spec.stride[d] = a.stride[d];
    spec.pad[d] = a.pad_begin[d];
    spec.dilation[d] = a.dilation[d];
  }
  HostTensor out{n.shape, std::vector<float>(static_cast<size_t>(NumElements(n.shape)),
                                             std::numeric_limits<float>::quiet_NaN())};
  GatherW(spec, DataOperand(q, x, ops[0]->values.data()), DataOperand(q, y, ops[1]->values.data()),
          WeightOperand(q, out.values.data()), order);
  return out;
}

}  // namespace

Result<HostTensor> EvaluateNode(const Graph& graph, int node,
                                const std::vector<const HostTensor*>& operands, SumOrder order) {
  Result<Shape> shape = InferNodeShape(graph, node);
  if (!shape.ok()) return shape.status();
  const Node& n = graph.node(node);
  const std::string where = Where(graph, node);
  if (*shape != n.shape)
    return Status::Invalid(where + "its shape " + ShapeText(n.shape) + " is not the inferred " +
                           ShapeText(*shape) + " (run InferShapes)");
  if (operands.size() != n.inputs.size())
    return Status::Invalid(where + "expected " + std::to_string(n.inputs.size()) +
                           " operand values, found " + std::to_string(operands.size()));
  for (size_t k = 0; k < operands.size(); ++k) {
    const Shape& want = graph.node(n.inputs[k]).shape;
    if (!operands[k] || operands[k]->shape != want ||
        static_cast<int64_t>(operands[k]->values.size()) != NumElements(want))
      return Status::Invalid(where + "operand " + std::to_string(k) +
                             " expected a value of shape " + ShapeText(want) + ", found " +
                             (operands[k]
                                  ? ShapeText(operands[k]->shape) + " with " +
                                        std::to_string(operands[k]->values.size()) + " elements"
                                  : std::string("none")));
  }
  const std::vector<const HostTensor*>& in = operands;
  switch (n.op) {
    case OpKind::kVar:
      return Status::Invalid(where + "var '" + n.name + "' has no value unless bound");
    case OpKind::kConst:
      return n.value;
    case OpKind::kConv:
    case OpKind::kConvTranspose:
      return ForwardConv(graph, node, in, order);
    case OpKind::kConvBackwardWeight:
      return BackwardWeight(graph, node, in, order);
    case OpKind::kLayoutTransform:
    case OpKind::kTranspose:
      return Permute(*in[0], std::get<PermuteAttrs>(n.attrs).perm, n.shape);
    case OpKind::kReshape:
    case OpKind::kExpandDims:
    case OpKind::kSqueeze:
      return HostTensor{n.shape, in[0]->values};
    case OpKind::kTile:
      return Tile(*in[0], n.shape);
    case OpKind::kSum:
      return Sum(*in[0], std::get<SumAttrs>(n.attrs), n.shape, order);
    case OpKind::kStridedSlice:
      return StridedSlice(*in[0], std::get<StridedSliceAttrs>(n.attrs), n.shape);
    case OpKind::kPad: {
      HostTensor out = Zeros(n.shape);
      Place(*in[0], std::get<PadAttrs>(n.attrs).before, out);
      return out;
    }
    case OpKind::kConcatenate: {
      HostTensor out = Zeros(n.shape);
      const int axis = std::get<AxisAttrs>(n.attrs).axis;
      Shape at(n.shape.size(), 0);
      for (const HostTensor* t : in) {
        Place(*t, at, out);
        at[axis] += t->shape[axis];
      }
      return out;
    }
    case OpKind::kAdd:
      return Add(*in[0], *in[1], n.shape);
  }
  return Status::Internal(where + "unknown op");
}

Result<std::vector<HostTensor>> Interpret(const Graph& graph, const GraphBindings& vars,
                                          SumOrder order) {
  const size_t count = graph.nodes.size();
  for (int o : graph.outputs)
    if (o < 0 || static_cast<size_t>(o) >= count)
      return Status::Invalid("output %" + std::to_string(o) + " does not exist (the graph has " +
                             std::to_string(count) + " nodes)");
  // The nodes the outputs need, and the last node that reads each (to free values early).
  std::vector<bool> needed(count, false);
  std::vector<size_t> last_use(count, 0);
  for (int o : graph.outputs) {
    needed[o] = true;
    last_use[o] = count;  // outputs live to the end
  }
  for (size_t i = count; i-- > 0;) {
    if (!needed[i]) continue;
    for (int k : graph.nodes[i].inputs) {
      if (k < 0 || static_cast<size_t>(k) >= i)
        return Status::Invalid("%" + std::to_string(i) + " = " + OpName(graph.nodes[i].op) +
                               ": operand %" + std::to_string(k) + " is not an earlier node");
      needed[k] = true;
      last_use[k] = std::max(last_use[k], i);
    }
  }
  std::vector<HostTensor> values(count);
  for (size_t i = 0; i < count; ++i) {
    if (!needed[i]) continue;
    const Node& n = graph.nodes[i];
    const int id = static_cast<int>(i);
    if (n.op == OpKind::kVar) {
      Result<Shape> shape = InferNodeShape(graph, id);
      if (!shape.ok()) return shape.status();
      auto it = vars.find(n.name);
      if (it == vars.end()) return Status::Invalid("var %" + n.name + " is not bound");
      if (it->second.shape != n.shape ||
          static_cast<int64_t>(it->second.values.size()) != NumElements(n.shape))
        return Status::Invalid("var %" + n.name + " expects shape " + ShapeText(n.shape) +
                               ", bound to " + ShapeText(it->second.shape) + " with " +
                               std::to_string(it->second.values.size()) + " elements");
      values[i] = it->second;
    } else {
      std::vector<const HostTensor*> operands;
      for (int k : n.inputs) operands.push_back(&values[k]);
      Result<HostTensor> v = EvaluateNode(graph, id, operands, order);
      if (!v.ok()) return v.status();
      values[i] = std::move(v).value();
    }
    for (int k : n.inputs)
      if (last_use[k] == i) values[k] = HostTensor{};
  }
  std::vector<HostTensor> outputs;
  for (int o : graph.outputs) outputs.push_back(values[o]);
  return outputs;
}

}  // namespace convparity
