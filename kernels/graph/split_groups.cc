// SplitGroups and CanonicalizeDepthwise: the two passes that rewrite how a conv's groups are held.
#include "kernels/graph/pass_util.h"
#include "kernels/graph/passes.h"

namespace convparity {

Status CanonicalizeDepthwise(Graph& graph) {
  using namespace graph_pass;  // NOLINT: the pass's own helpers
  return RewriteGraph(graph, [](Builder& b, const Graph& old, int i, const std::vector<int>& in) {
    const Node& n = old.node(i);
    if (n.op != OpKind::kConv || !AttrsOfConv(n).multiplier_weight) return -1;
    ConvAttrs c = AttrsOfConv(n);
    std::vector<int> operands = in;
    operands[1] = GroupsWeight(b, c, in[1]);  // same memory, the groups shape
    c.multiplier_weight = false;
    return b.Op(n.op, operands, c);
  });
}

// Group gi of a conv-family node reads channels [gi·C/g, (gi+1)·C/g) of each data operand and rows
// [gi·R/g, (gi+1)·R/g) of the weight's logical axis 0, which is the one the groups divide for both
// kinds (C_out of an ordinary weight, C_in of a transposed one, C_y of a weight gradient).
Status SplitGroups(Graph& graph) {
  using namespace graph_pass;  // NOLINT
  return RewriteGraph(graph, [](Builder& b, const Graph& old, int i, const std::vector<int>& in) {
    const Node& n = old.node(i);
    if (!IsConvFamily(n.op) || AttrsOfConv(n).groups == 1) return -1;
    const ConvAttrs& a = AttrsOfConv(n);
    const int r = a.rank;
    const int64_t g = a.groups;
    const int cpos = DataChannelPos(r, a.data_layout);
    ConvAttrs c = a;
    c.groups = 1;
    c.multiplier_weight = false;
    auto group_part = [&](int x, int axis, int64_t gi) {
      if (!b.ok()) return -1;
      const int64_t per = b.shape(x)[axis] / g;
      return b.Slice(x, axis, gi * per, (gi + 1) * per);
    };
    std::vector<int> parts;
    if (n.op == OpKind::kConvBackwardWeight) {
      for (int64_t gi = 0; gi < g; ++gi)
        parts.push_back(b.Op(n.op, {group_part(in[0], cpos, gi), group_part(in[1], cpos, gi)}, c));
      return b.Concat(parts, WeightAxisPos(r, false, a.weight_layout, 0));
    }
    const int w = GroupsWeight(b, a, in[1]);
    const int wpos = WeightAxisPos(r, n.op == OpKind::kConvTranspose, a.weight_layout, 0);
    for (int64_t gi = 0; gi < g; ++gi) {
      std::vector<int> operands{group_part(in[0], cpos, gi), group_part(w, wpos, gi)};
      if (in.size() > 2) operands.push_back(group_part(in[2], 0, gi));
      parts.push_back(b.Op(n.op, operands, c));
    }
    return b.Concat(parts, cpos);
  });
}

}  // namespace convparity
