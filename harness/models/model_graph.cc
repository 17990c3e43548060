#include "harness/models/model_graph.h"

#include <set>
#include <utility>
#include <vector>

#include "core/tensor.h"
#include "kernels/graph/pass_util.h"

namespace convparity {

int FirstConvNode(const Graph& graph) {
  for (size_t i = 0; i < graph.nodes.size(); ++i)
    if (graph_pass::IsConvFamily(graph.nodes[i].op)) return static_cast<int>(i);
  return -1;
}

const char* ModelInputVar(Direction d) {
  return d == Direction::kBackwardData ? kGradOutputVar : kInputVar;
}

Result<Graph> BindModelConstants(Graph graph, const std::string& input_var,
                                 const CaseBuffers& buffers,
                                 const std::function<bool(const Graph&, int)>& keep) {
  for (Node& n : graph.nodes) {
    if (n.op != OpKind::kVar || n.name == input_var) continue;
    const float* values = buffers.Get(n.name);
    if (values == nullptr) return Status::Internal("no buffer for the model's var %" + n.name);
    n.op = OpKind::kConst;
    n.value.shape = n.shape;
    n.value.values.assign(values, values + NumElements(n.shape));
  }
  CP_RETURN_IF_ERROR(graph_pass::FoldConstantsExcept(graph, keep));
  return graph;
}

Result<WeightInputsGraph> BindModelWeightInputs(
    Graph graph, const std::string& input_var, const CaseBuffers& buffers,
    const std::function<bool(const Graph&, int)>& keep) {
  std::set<std::string> vars;
  for (const Node& n : graph.nodes)
    if (n.op == OpKind::kVar) vars.insert(n.name);
  Result<Graph> bound = BindModelConstants(std::move(graph), input_var, buffers, keep);
  if (!bound.ok()) return bound.status();
  WeightInputsGraph out{std::move(bound).value(), {}};
  for (size_t i = 0; i < out.graph.nodes.size(); ++i) {
    Node& n = out.graph.nodes[i];
    if (n.op != OpKind::kConst) continue;
    n.op = OpKind::kVar;
    if (vars.count(n.name) == 0) n.name = "v" + std::to_string(i);  // folded ("folded3")
    out.weights.push_back({n.name, n.shape, std::move(n.value.values)});
    n.value = HostTensor{};
  }
  CP_RETURN_IF_ERROR(InferShapes(out.graph));
  return out;
}

Result<Graph> ModelGraph(const ConvProblem& p, const GraphForm& form, Direction d,
                         const Spelling& spelling, const ConvLayouts& layouts) {
  using namespace graph_pass;  // NOLINT: the passes' builder and layout bookkeeping
  CP_RETURN_IF_ERROR(CheckSpelling(spelling, p));
  // A backward direction differentiates the convolution without its bias.
  const ConvProblem q = GraphProblem(p, d);
  Graph graph = form.build(q, spelling.depthwise == DepthwiseSpelling::kMultiplier);
  CP_RETURN_IF_ERROR(InferShapes(graph));
  const int conv = FirstConvNode(graph);
  CP_RETURN_IF_ERROR(
      RewriteGraph(graph, [&](Builder& b, const Graph& old, int i, const std::vector<int>& in) {
        if (i != conv) return -1;
        ConvAttrs a = AttrsOfConv(old.node(i));
        const int r = a.rank;
        int x = in[0];
        if (spelling.pads == PadsSpelling::kPadOp &&
            (a.pad_begin != Dims{0, 0, 0} || a.pad_end != Dims{0, 0, 0})) {
          // One Pad over every spatial axis, as an exporter writes it.
          PadAttrs pad{Shape(static_cast<size_t>(r) + 2, 0), Shape(static_cast<size_t>(r) + 2, 0)};
          for (int d = 0; d < r; ++d) {
            pad.before[static_cast<size_t>(DataSpatialPos(r, a.data_layout, d))] = a.pad_begin[d];
            pad.after[static_cast<size_t>(DataSpatialPos(r, a.data_layout, d))] = a.pad_end[d];
          }
          x = b.Op(OpKind::kPad, {x}, pad);
          a.pad_begin = a.pad_end = Dims{0, 0, 0};
        }
        const bool bias_apart = in.size() > 2 && spelling.bias != BiasSpelling::kOperand;
        std::vector<int> operands{x, in[1]};
        if (in.size() > 2 && !bias_apart) operands.push_back(in[2]);
        const int y = b.Op(old.node(i).op, operands, a);
        if (!bias_apart) return y;
        // The bias over the channel axis: (C, 1, …) channels-first, (C) channels-last.
        Shape broadcast{b.shape(in[2])[0]};
        if (a.data_layout == DataLayout::kChannelsFirst) broadcast.resize(r + 1, 1);
        return b.Add(y, b.Reshape(in[2], broadcast));
      }));
  if (d != Direction::kForward) {
    Result<Graph> gradient = Gradient(graph, {DifferentiatedVar(d)});
    if (!gradient.ok()) return gradient.status();
    graph = std::move(gradient).value();
    RemoveDeadNodes(graph);  // the forward convolution, which no gradient reads
  }
  CP_RETURN_IF_ERROR(ConvertLayoutTo(graph, layouts));
  return graph;
}

}  // namespace convparity
