// First-order gradient by reverse accumulation over the graph. The conv family follows the ordinary
// relation (kernels/conv_loops.h): the data gradient of a conv is a conv_transpose over the same
// weight, of a conv_transpose a conv; both weight gradients are conv_backward_weight with the large
// side first.
#include <algorithm>

#include "kernels/graph/pass_util.h"
#include "kernels/graph/passes.h"

namespace convparity {
namespace graph_pass {
namespace {

// The weight `w` of a conv-family node of kind `transposed`, made readable by a node of the other
// kind: the same memory serves when its layout is OI… or IO… (the channel axes only change names);
// …IO and O…I have no name on the other side, so those are transposed to the natural layout first.
int SwappedWeight(Builder& b, const ConvAttrs& a, bool transposed, int w, WeightLayout* read_as) {
  w = GroupsWeight(b, a, w);
  if (a.weight_layout == WeightLayout::kOI) {
    *read_as = WeightLayout::kIO;
    return w;
  }
  if (a.weight_layout == WeightLayout::kIO) {
    *read_as = WeightLayout::kOI;
    return w;
  }
  // The natural layout of an ordinary weight (C_out, C_in/g, k…) is IO… for the transposed reader,
  // that of a transposed one (C_in, C_out/g, k…) OI… for the ordinary reader.
  *read_as = transposed ? WeightLayout::kOI : WeightLayout::kIO;
  return b.Transpose(w, Inverse(WeightOrder(a.rank, transposed, a.weight_layout)));
}

// dx of a conv_transpose: an ordinary conv of grad_y. Its pad_end is chosen so that the output has
// x's size; when output_padding ≥ stride (possible with dilation > stride) no pad_end ≥ 0 does, and
// the surplus rows at the end, which belong to no x position, are cropped.
int DgradOfConvTranspose(Builder& b, const Graph& f, int node, int grad_y) {
  const Node& n = f.node(node);
  const ConvAttrs& a = AttrsOfConv(n);
  const std::optional<ConvProblem> p = ProblemOf(b, f, node);
  if (!p) return -1;
  ConvAttrs c = a;
  c.output_padding = {0, 0, 0};
  const int w = SwappedWeight(b, a, true, n.inputs[1], &c.weight_layout);
  std::vector<bool> crop(a.rank, false);
  for (int d = 0; d < a.rank; ++d) {
    const int64_t lo = a.pad_end[d] - a.output_padding[d];
    crop[d] = lo + a.stride[d] - 1 < 0;
    c.pad_end[d] = std::max<int64_t>(lo, 0);
  }
  int dx = b.Op(OpKind::kConv, {grad_y, w}, c);
  for (int d = 0; d < a.rank; ++d)
    if (crop[d]) dx = b.Slice(dx, DataSpatialPos(a.rank, a.data_layout, d), 0, p->input[d]);
  return dx;
}

// dw: conv_backward_weight of the ordinary relation, large side first. For a transposed conv the
// relation's result (C_in, C_out/g, k…) is its weight in IO… read as the relation's OI….
int WgradOf(Builder& b, const Graph& f, int node, int grad_y) {
  const Node& n = f.node(node);
  const ConvAttrs& a = AttrsOfConv(n);
  const std::optional<ConvProblem> p = ProblemOf(b, f, node);
  if (!p) return -1;
  ConvAttrs c = a;
  c.multiplier_weight = false;
  c.kernel = p->kernel;
  const bool transposed = n.op == OpKind::kConvTranspose;
  if (!transposed) {
    c.output_padding = LeftoverRows(*p);  // the rows of x no output reads (graph.h's "extra")
    const int dw = b.Op(OpKind::kConvBackwardWeight, {n.inputs[0], grad_y}, c);
    return b.Reshape(dw, f.node(n.inputs[1]).shape);  // back to a multiplier representation
  }
  bool to_memory = false;
  if (a.weight_layout == WeightLayout::kIO) {
    c.weight_layout = WeightLayout::kOI;
  } else if (a.weight_layout == WeightLayout::kOI) {
    c.weight_layout = WeightLayout::kIO;
  } else {
    c.weight_layout = WeightLayout::kOI;
    to_memory = true;
  }
  const int dw = b.Op(OpKind::kConvBackwardWeight, {grad_y, n.inputs[0]}, c);
  return to_memory ? b.Transpose(dw, WeightOrder(a.rank, true, a.weight_layout)) : dw;
}

// The gradient of a broadcast operand of `add`: sum over the axes it was broadcast along.
int UnbroadcastTo(Builder& b, int grad, const Shape& operand) {
  const Shape& out = b.shape(grad);
  const size_t lead = out.size() - operand.size();
  std::vector<int> axes;
  for (size_t d = 0; d < out.size(); ++d)
    if (d < lead || (operand[d - lead] == 1 && out[d] != 1)) axes.push_back(static_cast<int>(d));
  return b.Reshape(b.Sum(grad, axes), operand);
}

}  // namespace

int CorrectDgradOfConv(Builder& b, const Graph& f, int node, int grad_y) {
  const Node& n = f.node(node);
  const ConvAttrs& a = AttrsOfConv(n);
  const std::optional<ConvProblem> p = ProblemOf(b, f, node);
  if (!p) return -1;
  ConvAttrs t = a;
  t.multiplier_weight = false;
  const int w = SwappedWeight(b, a, false, n.inputs[1], &t.weight_layout);
  // conv's output size is not a bijection: output_padding picks the x size among those that give y.
  t.output_padding = LeftoverRows(*p);
  return b.Op(OpKind::kConvTranspose, {grad_y, w}, t);
}

Result<Graph> GradientWith(const Graph& forward, const std::vector<std::string>& wrt,
                           GroupedDgradBuilder grouped_dgrad) {
  if (forward.outputs.size() != 1)
    return Status::Invalid("gradient: expected a graph with one output, found " +
                           std::to_string(forward.outputs.size()));
  Graph f = forward;
  CP_RETURN_IF_ERROR(InferShapes(f));
  for (const Node& n : f.nodes)
    if (n.op == OpKind::kVar && n.name == "grad_output")
      return Status::Invalid("gradient: the graph already has a var named grad_output");
  Graph g = f;  // forward nodes keep their indices; the backward pass appends
  Builder b(g);
  const int grad_y = g.AddVar("grad_output", f.node(f.outputs[0]).shape);
  std::vector<int> adj(f.nodes.size(), -1);
  adj[f.outputs[0]] = grad_y;
  auto accumulate = [&](int operand, int grad) {
    if (grad < 0) return;
    adj[operand] = adj[operand] < 0 ? grad : b.Add(adj[operand], grad);
  };
  for (size_t i = f.nodes.size(); i-- > 0 && b.ok();) {
    const int gy = adj[i];
    if (gy < 0) continue;
    const Node& n = f.nodes[i];
    const int node = static_cast<int>(i);
    const std::string where = "gradient: %" + std::to_string(i) + " = " + OpName(n.op) + ": ";
    switch (n.op) {
      case OpKind::kVar:
      case OpKind::kConst:
        break;
      case OpKind::kConv: {
        const ConvAttrs& a = AttrsOfConv(n);
        const bool hook = grouped_dgrad != nullptr && a.groups > 1;
        accumulate(n.inputs[0],
                   hook ? grouped_dgrad(b, f, node, gy) : CorrectDgradOfConv(b, f, node, gy));
        accumulate(n.inputs[1], WgradOf(b, f, node, gy));
        break;
      }
      case OpKind::kConvTranspose:
        accumulate(n.inputs[0], DgradOfConvTranspose(b, f, node, gy));
        accumulate(n.inputs[1], WgradOf(b, f, node, gy));
        break;
      case OpKind::kLayoutTransform:
      case OpKind::kTranspose: {
        const PermuteAttrs& a = std::get<PermuteAttrs>(n.attrs);
        accumulate(n.inputs[0],
                   n.op == OpKind::kTranspose
                       ? b.Transpose(gy, Inverse(a.perm))
                       : b.LayoutTransform(gy, Inverse(a.perm), a.dst_layout, a.src_layout));
        break;
      }
      case OpKind::kReshape:
      case OpKind::kExpandDims:
      case OpKind::kSqueeze:
        accumulate(n.inputs[0], b.Reshape(gy, f.node(n.inputs[0]).shape));
        break;
      case OpKind::kAdd:
        for (int k : n.inputs) accumulate(k, UnbroadcastTo(b, gy, f.node(k).shape));
        break;
      case OpKind::kPad: {
        const PadAttrs& a = std::get<PadAttrs>(n.attrs);
        int x = gy;
        for (size_t d = 0; d < a.before.size(); ++d)
          x = b.Slice(x, static_cast<int>(d), a.before[d],
                      a.before[d] + f.node(n.inputs[0]).shape[d]);
        accumulate(n.inputs[0], x);
        break;
      }
      case OpKind::kStridedSlice: {
        const StridedSliceAttrs& a = std::get<StridedSliceAttrs>(n.attrs);
        const Shape& in = f.node(n.inputs[0]).shape;
        int x = gy;
        for (size_t d = 0; d < in.size(); ++d) {
          if (a.step[d] != 1 && n.shape[d] > 1)
            return Status::Unsupported(where +
                                       "a strided_slice with step > 1 has no gradient here");
          x = b.Pad(x, static_cast<int>(d), a.begin[d], in[d] - a.begin[d] - n.shape[d]);
        }
        accumulate(n.inputs[0], x);
        break;
      }
      case OpKind::kConcatenate: {
        const int axis = std::get<AxisAttrs>(n.attrs).axis;
        int64_t at = 0;
        for (int k : n.inputs) {
          const int64_t len = f.node(k).shape[axis];
          accumulate(k, b.Slice(gy, axis, at, at + len));
          at += len;
        }
        break;
      }
      default:
        return Status::Unsupported(where + "no gradient rule for this op");
    }
    if (IsConvFamily(n.op) && n.op != OpKind::kConvBackwardWeight && n.inputs.size() > 2) {
      const ConvAttrs& a = AttrsOfConv(n);
      std::vector<int> axes;  // every axis of grad_y but its channels
      for (int d = 0; d < a.rank + 2; ++d)
        if (d != DataChannelPos(a.rank, a.data_layout)) axes.push_back(d);
      accumulate(n.inputs[2], b.Sum(gy, axes));
    }
  }
  CP_RETURN_IF_ERROR(b.status());
  std::vector<int> outputs;
  for (const std::string& name : wrt) {
    int var = -1;
    for (size_t i = 0; i < f.nodes.size(); ++i)
      if (f.nodes[i].op == OpKind::kVar && f.nodes[i].name == name) var = static_cast<int>(i);
    if (var < 0) return Status::Invalid("gradient: the graph has no var named '" + name + "'");
    if (adj[var] < 0) {  // the output does not depend on it
      const Shape& s = f.node(var).shape;
      adj[var] = b.Const("zeros_" + name,
                         HostTensor{s, std::vector<float>(static_cast<size_t>(NumElements(s)), 0)});
    }
    outputs.push_back(adj[var]);
  }
  g.outputs = outputs;
  RemoveDeadNodes(g);
  CP_RETURN_IF_ERROR(InferShapes(g));
  return g;
}

}  // namespace graph_pass

Result<Graph> Gradient(const Graph& forward, const std::vector<std::string>& wrt) {
  return graph_pass::GradientWith(forward, wrt, nullptr);
}

}  // namespace convparity
