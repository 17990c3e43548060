// 1-D conv-family nodes as 2-D ones over a unit height: expand_dims in front of the one spatial
// axis of every operand, the 1-D parameters on the width, squeeze of the unit axis after.
#include "kernels/graph/pass_util.h"
#include "kernels/graph/passes.h"

namespace convparity {
namespace graph_pass {

Status LowerConv1dWith(Graph& graph, const LowerConv1dOptions& options) {
  return RewriteGraph(
      graph, [options](Builder& b, const Graph& old, int i, const std::vector<int>& in) {
        const Node& n = old.node(i);
        if (!IsConvFamily(n.op) || AttrsOfConv(n).rank != 1) return -1;
        const ConvAttrs& a = AttrsOfConv(n);
        // Axis 0 (H) is the new unit axis, axis 1 (W) the original one.
        auto on_width = [](int64_t unit, int64_t v) { return Dims{unit, v, 1}; };
        ConvAttrs c = a;
        c.rank = 2;
        c.kernel = on_width(1, a.kernel[0]);
        c.stride = on_width(1, a.stride[0]);
        c.pad_begin = on_width(0, a.pad_begin[0]);
        c.pad_end = on_width(0, a.pad_end[0]);
        c.dilation = on_width(1, a.dilation[0]);
        c.output_padding = on_width(0, a.output_padding[0]);
        if (options.stride_dilation_on_unit_axis && n.op == OpKind::kConv) {
          c.stride = Dims{a.stride[0], 1, 1};
          c.dilation = Dims{a.dilation[0], 1, 1};
        }
        if (options.drop_transpose_output_padding && n.op == OpKind::kConvTranspose)
          c.output_padding = Dims{0, 0, 0};
        // The unit axis goes in front of the spatial axis, wherever the layout keeps it: NCW →
        // NCHW, NWC → NHWC, OIW → OIHW, WIO → HWIO, OWI → OHWI (and the multiplier forms alike).
        const int data_pos = DataSpatialPos(1, a.data_layout, 0);
        const int x = b.ExpandDims(in[0], data_pos);
        const int second =
            n.op == OpKind::kConvBackwardWeight
                ? b.ExpandDims(in[1], data_pos)
                : b.ExpandDims(
                      in[1], WeightAxisPos(1, n.op == OpKind::kConvTranspose, a.weight_layout, 2));
        std::vector<int> operands{x, second};
        if (in.size() > 2) operands.push_back(in[2]);
        const int y = b.Op(n.op, operands, c);
        const int unit = n.op == OpKind::kConvBackwardWeight
                             ? WeightAxisPos(1, false, a.weight_layout, 2)
                             : data_pos;
        return b.Squeeze(y, {unit});
      });
}

}  // namespace graph_pass

Status LowerConv1d(Graph& graph) { return graph_pass::LowerConv1dWith(graph, {}); }

}  // namespace convparity
