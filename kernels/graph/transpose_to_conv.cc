// conv_transpose as an ordinary conv: y[o] = Σ x[i]·w[k] over o = i·s − p + k·d is a stride-1 conv
// over x with s − 1 zeros between its elements, padded by d·(k − 1) − p_begin in front and
// d·(k − 1) − p_end + output_padding behind (cropped where that is negative), with the kernel
// flipped and each group's (C_in/g, C_out/g) channel block transposed into (C_out/g, C_in/g).
#include <algorithm>

#include "kernels/graph/pass_util.h"
#include "kernels/graph/passes.h"

namespace convparity {
namespace graph_pass {
namespace {

// Puts s − 1 zeros between the elements of axis `pos`: a unit axis after it, padded to s, merged
// into it, and the trailing zeros after the last element cut.
int Interleave(Builder& b, int x, int pos, int64_t s) {
  if (s == 1 || !b.ok()) return x;
  const Shape shape = b.shape(x);
  Shape with_unit = shape;
  with_unit.insert(with_unit.begin() + pos + 1, 1);
  int z = b.Pad(b.Reshape(x, with_unit), pos + 1, 0, s - 1);
  Shape merged = shape;
  merged[pos] *= s;
  z = b.Reshape(z, merged);
  return b.Slice(z, pos, 0, (shape[pos] - 1) * s + 1);
}

// Reverses axis `axis` with the ops the IR has: its elements sliced one by one and concatenated
// back to front. Exact, and it works on a runtime weight as well as on a constant one.
int Flip(Builder& b, int w, int axis) {
  if (!b.ok()) return -1;
  const int64_t k = b.shape(w)[axis];
  if (k == 1) return w;
  std::vector<int> parts;
  for (int64_t j = k; j-- > 0;) parts.push_back(b.Slice(w, axis, j, j + 1));
  return b.Concat(parts, axis);
}

int AsConv(Builder& b, const Graph& old, int i, const std::vector<int>& in) {
  const Node& n = old.node(i);
  const ConvAttrs& a = AttrsOfConv(n);
  const int r = a.rank;
  const std::optional<ConvProblem> p = ProblemOf(b, old, i);
  if (!p) return -1;
  ConvAttrs c = a;
  c.stride = {1, 1, 1};
  c.output_padding = {0, 0, 0};
  c.weight_layout = WeightLayout::kOI;
  int x = in[0];
  for (int d = 0; d < r && b.ok(); ++d) {
    const int pos = DataSpatialPos(r, a.data_layout, d);
    x = Interleave(b, x, pos, a.stride[d]);
    if (!b.ok()) return -1;
    const int64_t reach = a.dilation[d] * (p->kernel[d] - 1);
    const int64_t front = reach - a.pad_begin[d];
    const int64_t back = reach - a.pad_end[d] + a.output_padding[d];
    const int64_t len = b.shape(x)[pos];
    const int64_t begin = std::max<int64_t>(-front, 0), end = len - std::max<int64_t>(-back, 0);
    if (end > begin) {
      x = b.Slice(x, pos, begin, end);
      c.pad_begin[d] = std::max<int64_t>(front, 0);
      c.pad_end[d] = std::max<int64_t>(back, 0);
    } else {
      // The padding crops away every element: each output is its bias alone. One zero element,
      // padded to the same length, is that input.
      Shape zero_shape = b.shape(x);
      zero_shape[pos] = 1;
      x = b.Const("zeros" + std::to_string(i),
                  HostTensor{zero_shape, std::vector<float>(NumElements(zero_shape), 0.0f)});
      c.pad_begin[d] = 0;
      c.pad_end[d] = p->output()[d] + reach - 1;
    }
  }
  // The weight in its natural logical form (C_in, C_out/g, k…), flipped, blocks transposed.
  int w = b.Transpose(in[1], Inverse(WeightOrder(r, true, a.weight_layout)));
  for (int d = 0; d < r; ++d) w = Flip(b, w, 2 + d);
  w = SwapGroupBlocks(b, w, a.groups, Shape(p->kernel.begin(), p->kernel.begin() + r));
  std::vector<int> operands{x, w};
  if (in.size() > 2) operands.push_back(in[2]);
  return b.Op(OpKind::kConv, operands, c);
}

}  // namespace
}  // namespace graph_pass

Status TransposeToConv(Graph& graph) {
  return graph_pass::RewriteGraph(
      graph, [](graph_pass::Builder& b, const Graph& old, int i, const std::vector<int>& in) {
        if (old.node(i).op != OpKind::kConvTranspose) return -1;
        return graph_pass::AsConv(b, old, i, in);
      });
}

}  // namespace convparity
