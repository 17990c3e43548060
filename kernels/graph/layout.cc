// ConvertLayout and FoldConstants: the pair whose combined promise is that a chain of convs with
// constant weights keeps exactly two runtime layout_transforms (tvm-layout-fold broke it).
#include "kernels/graph/interpreter.h"
#include "kernels/graph/pass_util.h"
#include "kernels/graph/passes.h"

namespace convparity {
namespace graph_pass {

Status FoldConstantsExcept(Graph& graph, const std::function<bool(const Graph&, int)>& skip) {
  CP_RETURN_IF_ERROR(InferShapes(graph));
  const std::vector<bool> live = LiveNodes(graph);
  for (size_t i = 0; i < graph.nodes.size(); ++i) {
    const Node& n = graph.nodes[i];
    if (!live[i] || n.op == OpKind::kVar || n.op == OpKind::kConst) continue;
    std::vector<const HostTensor*> operands;
    for (int k : n.inputs)
      if (graph.node(k).op == OpKind::kConst) operands.push_back(&graph.node(k).value);
    if (operands.size() != n.inputs.size() || skip(graph, static_cast<int>(i))) continue;
    Result<HostTensor> v = EvaluateNode(graph, static_cast<int>(i), operands);
    if (!v.ok()) return v.status().WithContext("fold_constants");
    Node folded;
    folded.op = OpKind::kConst;
    folded.name = n.name.empty() ? "folded" + std::to_string(i) : n.name;
    folded.shape = v->shape;
    folded.value = std::move(v).value();
    graph.nodes[i] = std::move(folded);
  }
  RemoveDeadNodes(graph);
  return InferShapes(graph);
}

}  // namespace graph_pass

Status FoldConstants(Graph& graph) {
  return graph_pass::FoldConstantsExcept(graph, [](const Graph&, int) { return false; });
}

Status ConvertLayout(Graph& graph, WeightLayout weight_layout) {
  return ConvertLayoutTo(graph, {DataLayout::kChannelsLast, weight_layout, weight_layout});
}

Status ConvertLayoutTo(Graph& graph, const ConvLayouts& target) {
  using namespace graph_pass;  // NOLINT: the pass's own helpers
  CP_RETURN_IF_ERROR(RewriteGraph(graph, [target](Builder& b, const Graph& old, int i,
                                                  const std::vector<int>& in) {
    const Node& n = old.node(i);
    if (!IsConvFamily(n.op)) return -1;
    const ConvAttrs& a = AttrsOfConv(n);
    const int r = a.rank;
    const bool transposed = n.op == OpKind::kConvTranspose;
    const WeightLayout wl = transposed ? target.transposed_weight : target.weight;
    const DataLayout cl = target.data;
    const Perm from = DataOrder(r, a.data_layout), to = DataOrder(r, cl);
    const std::string from_name = DataLayoutText(a.data_layout, r), to_name = DataLayoutText(cl, r);
    auto data_in = [&](int x) {
      return b.LayoutTransform(x, PermBetween(from, to), from_name, to_name);
    };
    ConvAttrs c = a;
    c.data_layout = cl;
    c.weight_layout = wl;
    c.multiplier_weight = false;
    if (n.op == OpKind::kConvBackwardWeight) {
      // Its result is a weight in the relation's (ordinary) naming.
      const int dw = b.Op(n.op, {data_in(in[0]), data_in(in[1])}, c);
      return b.LayoutTransform(
          dw, PermBetween(WeightOrder(r, false, wl), WeightOrder(r, false, a.weight_layout)),
          WeightLayoutText(wl, r), WeightLayoutText(a.weight_layout, r));
    }
    const int w = b.LayoutTransform(
        GroupsWeight(b, a, in[1]),
        PermBetween(WeightOrder(r, transposed, a.weight_layout), WeightOrder(r, transposed, wl)),
        WeightLayoutText(a.weight_layout, r), WeightLayoutText(wl, r));
    std::vector<int> operands{data_in(in[0]), w};
    if (in.size() > 2) operands.push_back(in[2]);
    const int y = b.Op(n.op, operands, c);
    return b.LayoutTransform(y, PermBetween(to, from), to_name, from_name);
  }));
  return CancelInverseTransforms(graph);
}

}  // namespace convparity
