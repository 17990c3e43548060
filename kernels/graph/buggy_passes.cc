// The buggy variants of the passes. They live here, beside the passes and not in
// kernels/known_bugs/, because they are graph rewrites built from the passes' own helpers and
// registered with them (`transform:<pass>@<bug-id>`), not ConvSuts over the direct kernel; keeping
// them in one file keeps every deliberate wrong turn out of the correct passes' files.
#include "kernels/graph/buggy_passes.h"

#include "kernels/graph/pass_util.h"
#include "kernels/graph/passes.h"

namespace convparity {
namespace graph_pass {
namespace {

// ---- gradient@tvm-9465 ---------------------------------------------------------------------
// TVM's gradient of a grouped conv2d built conv2d_transpose(dy, w, groups) and the grouped
// conv2d_transpose it added read the weight as OIHW, i.e. the logical (C_out, C_in/g, k…) tensor
// as if it were a contiguous (C_in, C_out/g, k…) one (kernels/known_bugs/group_mapping_bugs.cc
// reproduces the same misread in the direct kernel). As a correct IO… weight that misread is each
// group's (C_in/g, C_out/g) block of the reinterpreted tensor transposed. Groups == 1 took the
// ungrouped path, which was right; with C_in/g == 1 or C_out/g == 1 both readings coincide (the
// blocks transposed are vectors).
int Tvm9465GroupedDgrad(Builder& b, const Graph& f, int node, int grad_y) {
  const Node& n = f.node(node);
  const ConvAttrs& a = AttrsOfConv(n);
  const std::optional<ConvProblem> p = ProblemOf(b, f, node);
  if (!p) return -1;
  const int r = a.rank;
  const Shape kernel(p->kernel.begin(), p->kernel.begin() + r);
  // TVM transforms any kernel layout to OIHW first: the misread is of the logical tensor.
  int w =
      b.Transpose(GroupsWeight(b, a, n.inputs[1]), Inverse(WeightOrder(r, false, a.weight_layout)));
  // Read as (C_in, C_out/g, k…), then made a correct IO… weight of that reading.
  w = SwapGroupBlocks(b, b.Reshape(w, Joined({p->in_channels, p->out_channels / a.groups}, kernel)),
                      a.groups, kernel);
  ConvAttrs t = a;
  t.multiplier_weight = false;
  t.weight_layout = WeightLayout::kIO;
  t.output_padding = LeftoverRows(*p);
  return b.Op(OpKind::kConvTranspose, {grad_y, w}, t);
}

// ---- legalize@tvm-9954 ---------------------------------------------------------------------
// TVM's legalization of conv2d_backward_weight, op for op: tile dy over the channel axis
// in_channel/groups times (the whole C_y block each time), one grouped conv over the batch-1 image
// of N·C_x channels with stride and dilation swapped (that swap is right), reshape to
// (N, C_x/g, C_y, K'…), sum over the batch, transpose, slice to the kernel. Channel (n, c) of the
// image meets tiled rows c·(C_y/g) + j, i.e. dy channel (c·C_y/g + j) mod C_y: its own group's only
// when groups == 1 or C_x/g == 1 (depthwise, any multiplier), so only those are right.
int Tvm9954Wgrad(Builder& b, int x, int grad_y, const WgradParts& w) {
  const ConvAttrs& a = w.attrs;
  const int r = a.rank;
  const int64_t n = w.x[0], c_x = w.x[1], c_y = w.y[1], cx = c_x / a.groups;
  const Shape x_spatial(w.x.begin() + 2, w.x.end()), y_spatial(w.y.begin() + 2, w.y.end());
  Shape reps(2 + r, 1);
  reps[1] = cx;
  int weight = b.Reshape(b.Tile(grad_y, reps), Joined({n * cx * c_y, 1}, y_spatial));
  const int data = b.Reshape(x, Joined({1, n * c_x}, x_spatial));
  ConvAttrs c;
  c.rank = r;
  c.groups = n * c_x;
  c.stride = a.dilation;
  c.dilation = a.stride;
  c.pad_begin = a.pad_begin;
  c.pad_end = a.pad_end;
  int out = b.Op(OpKind::kConv, {data, weight}, c);
  if (!b.ok()) return -1;
  const Shape padded(b.shape(out).begin() + 2, b.shape(out).end());  // TVM's padded_weight_grad
  out = b.Sum(b.Reshape(out, Joined({n, cx, c_y}, padded)), {0});
  Perm perm{1, 0};
  for (int d = 0; d < r; ++d) perm.push_back(2 + d);
  out = b.Transpose(out, perm);
  for (int d = 0; d < r; ++d) out = b.Slice(out, 2 + d, 0, a.kernel[d]);
  return out;
}

}  // namespace

Status LegalizeAsTvm9954(Graph& graph) { return LegalizeWith(graph, Tvm9954Wgrad); }

// ---- lower_conv1d@tvm-6203 -----------------------------------------------------------------
// Conv1d lowered to conv2d with its stride and dilation put on the new unit axis instead of the
// width. Padding stays on the width: on the unit axis it would change the result's shape, a type
// error at compile time rather than the wrong values the report describes (stride or dilation > 1).
Status LowerConv1dAsTvm6203(Graph& graph) {
  LowerConv1dOptions o;
  o.stride_dilation_on_unit_axis = true;
  return LowerConv1dWith(graph, o);
}

// ---- lower_conv1d@tvm-7912 -----------------------------------------------------------------
// ConvTranspose1d mapped to conv2d_transpose without its output_padding: the result is shorter by
// output_padding at the end (the report's shape mismatch); its other positions are right.
Status LowerConv1dAsTvm7912(Graph& graph) {
  LowerConv1dOptions o;
  o.drop_transpose_output_padding = true;
  return LowerConv1dWith(graph, o);
}

// ---- canonicalize_depthwise@tvm-10294 ------------------------------------------------------
// The (C, m, k…) representation of a depthwise weight took its own code path, which read it as
// multiplier-major (m, C, k…): row a·C + c of the groups weight (C·m, 1, k…) got w[c, a], which
// belongs to row c·m + a. Right only for m == 1.
Status CanonicalizeDepthwiseAsTvm10294(Graph& graph) {
  return RewriteGraph(graph, [](Builder& b, const Graph& old, int i, const std::vector<int>& in) {
    const Node& n = old.node(i);
    if (n.op != OpKind::kConv || !AttrsOfConv(n).multiplier_weight) return -1;
    ConvAttrs c = AttrsOfConv(n);
    const int r = c.rank;
    const bool oi = c.weight_layout == WeightLayout::kOI;
    const int channel = oi ? 0 : r, multiplier = oi ? 1 : r + 1;
    Perm swap(r + 2);
    for (int d = 0; d < r + 2; ++d) swap[d] = d;
    std::swap(swap[channel], swap[multiplier]);
    Shape groups_shape = b.shape(in[1]);
    groups_shape[oi ? 0 : r + 1] = groups_shape[channel] * groups_shape[multiplier];
    groups_shape[oi ? 1 : r] = 1;
    std::vector<int> operands = in;
    operands[1] = b.Reshape(b.Transpose(in[1], swap), groups_shape);
    c.multiplier_weight = false;
    return b.Op(n.op, operands, c);
  });
}

// ---- fold_constants@tvm-layout-fold --------------------------------------------------------
// After ConvertLayout the weights' layout_transforms were not constant-folded: they stay in the
// runtime graph, one per conv. Values are right; the structural promise is broken.
Status FoldConstantsAsTvmLayoutFold(Graph& graph) {
  return FoldConstantsExcept(
      graph, [](const Graph& g, int i) { return g.node(i).op == OpKind::kLayoutTransform; });
}

}  // namespace graph_pass

Result<Graph> GradientAsTvm9465(const Graph& forward, const std::vector<std::string>& wrt) {
  return graph_pass::GradientWith(forward, wrt, graph_pass::Tvm9465GroupedDgrad);
}

}  // namespace convparity
