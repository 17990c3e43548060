// conv_backward_weight into primitive ops, TVM's scheme generalized. The weight gradient
//   dw[o, i, k] = Σ_{n, yo} x[n, gi·cx + i, yo·s − p + k·d] · dy[n, o, yo]    (o in group gi)
// is, for each image n and input channel c, a correlation of x[n, c] with dy[n, ·] in which the
// kernel position k slides (stride d) and yo is the tap (dilation s): so a grouped conv over the
// N·C_x channels of one batch-1 image with dy as its weights, then a sum over the batch.
#include "kernels/graph/pass_util.h"
#include "kernels/graph/passes.h"

namespace convparity {
namespace graph_pass {
namespace {

// Every groups and multiplier: channel (n, gi, i) of the batch-1 image meets the cy output channels
// of its own group (not those of the whole tensor, which is what TVM's tile over all C_y did).
int GeneralWgrad(Builder& b, int x, int grad_y, const WgradParts& w) {
  const ConvAttrs& a = w.attrs;
  const int r = a.rank;
  const int64_t n = w.x[0], c_x = w.x[1], c_y = w.y[1], g = a.groups;
  const int64_t cx = c_x / g, cy = c_y / g;
  const Shape x_spatial(w.x.begin() + 2, w.x.end()), y_spatial(w.y.begin() + 2, w.y.end());
  Shape kernel(a.kernel.begin(), a.kernel.begin() + r);
  const int data = b.Reshape(x, Joined({1, n * c_x}, x_spatial));
  // dy (N, g·cy, Y…) → (N, g, 1, cy, Y…) → repeated for each of the group's cx input channels.
  int weight = b.Reshape(grad_y, Joined({n, g, 1, cy}, y_spatial));
  Shape reps(4 + r, 1);
  reps[2] = cx;
  weight = b.Tile(weight, reps);
  weight = b.Reshape(weight, Joined({n * c_x * cy, 1}, y_spatial));
  ConvAttrs c;
  c.rank = r;
  c.groups = n * c_x;
  c.stride = a.dilation;  // k slides by the dilation …
  c.dilation = a.stride;  // … and the taps yo are a stride apart
  c.pad_begin = a.pad_begin;
  c.pad_end = a.pad_end;  // the relation's pad_end leaves ≥ k positions (x's extra rows add more)
  int out = b.Op(OpKind::kConv, {data, weight}, c);  // (1, N·g·cx·cy, K'…), K' ≥ k
  for (int d = 0; d < r; ++d) out = b.Slice(out, 2 + d, 0, a.kernel[d]);
  out = b.Sum(b.Reshape(out, Joined({n, c_x, cy}, kernel)), {0});  // (g·cx, cy, k…)
  return SwapGroupBlocks(b, out, g, kernel);                       // (g·cy, cx, k…)
}

}  // namespace

Status LegalizeWith(Graph& graph, WgradScheme scheme) {
  return RewriteGraph(graph,
                      [scheme](Builder& b, const Graph& old, int i, const std::vector<int>& in) {
                        const Node& n = old.node(i);
                        if (n.op != OpKind::kConvBackwardWeight) return -1;
                        const ConvAttrs& a = AttrsOfConv(n);
                        const Perm data_order = DataOrder(a.rank, a.data_layout);
                        WgradParts parts{a, LogicalShape(old.node(n.inputs[0]).shape, data_order),
                                         LogicalShape(old.node(n.inputs[1]).shape, data_order)};
                        const int x = b.Transpose(in[0], Inverse(data_order));
                        const int grad_y = b.Transpose(in[1], Inverse(data_order));
                        const int dw = scheme(b, x, grad_y, parts);
                        return b.Transpose(dw, WeightOrder(a.rank, false, a.weight_layout));
                      });
}

}  // namespace graph_pass

Status Legalize(Graph& graph) { return graph_pass::LegalizeWith(graph, graph_pass::GeneralWgrad); }

}  // namespace convparity
