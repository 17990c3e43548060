// Building and editing graphs: adding nodes, names, dead-node removal, the forward graph of a
// problem and the layout names. Shape inference and ConvProblemOf, which check, are in graph.cc.
#include <algorithm>
#include <utility>

#include "core/case_graphs.h"
#include "core/graph.h"

namespace convparity {

int Graph::Add(Node node) {
  nodes.push_back(std::move(node));
  return static_cast<int>(nodes.size()) - 1;
}

int Graph::AddVar(const std::string& name, Shape shape) {
  Node n;
  n.op = OpKind::kVar;
  n.name = name;
  n.shape = std::move(shape);
  return Add(std::move(n));
}

int Graph::AddConst(const std::string& name, HostTensor value) {
  Node n;
  n.op = OpKind::kConst;
  n.name = name;
  n.shape = value.shape;
  n.value = std::move(value);
  return Add(std::move(n));
}

int Graph::AddOp(OpKind op, std::vector<int> inputs, OpAttrs attrs) {
  Node n;
  n.op = op;
  n.inputs = std::move(inputs);
  n.attrs = std::move(attrs);
  return Add(std::move(n));
}

int Graph::CountOps(OpKind op) const {
  std::vector<bool> live(nodes.size(), false);
  for (int o : outputs)
    if (o >= 0 && static_cast<size_t>(o) < nodes.size()) live[o] = true;
  int count = 0;
  for (size_t i = nodes.size(); i-- > 0;) {
    if (!live[i]) continue;
    if (nodes[i].op == op) ++count;
    for (int k : nodes[i].inputs)
      if (k >= 0 && static_cast<size_t>(k) < i) live[k] = true;
  }
  return count;
}

std::string NodeMessagePrefix(const Graph& g, int i) {
  return "%" + std::to_string(i) + " = " + OpName(g.node(i).op) + ": ";
}

const char* OpName(OpKind op) {
  switch (op) {
    case OpKind::kVar:
      return "var";
    case OpKind::kConst:
      return "const";
    case OpKind::kConv:
      return "conv";
    case OpKind::kConvTranspose:
      return "conv_transpose";
    case OpKind::kConvBackwardWeight:
      return "conv_backward_weight";
    case OpKind::kLayoutTransform:
      return "layout_transform";
    case OpKind::kTranspose:
      return "transpose";
    case OpKind::kReshape:
      return "reshape";
    case OpKind::kTile:
      return "tile";
    case OpKind::kSum:
      return "sum";
    case OpKind::kStridedSlice:
      return "strided_slice";
    case OpKind::kPad:
      return "pad";
    case OpKind::kExpandDims:
      return "expand_dims";
    case OpKind::kSqueeze:
      return "squeeze";
    case OpKind::kConcatenate:
      return "concatenate";
    case OpKind::kAdd:
      return "add";
  }
  return "?";
}

void RemoveDeadNodes(Graph& graph) {
  const size_t n = graph.nodes.size();
  std::vector<bool> live(n, false);
  for (int o : graph.outputs)
    if (o >= 0 && static_cast<size_t>(o) < n) live[o] = true;
  for (size_t i = n; i-- > 0;)
    if (live[i])
      for (int k : graph.nodes[i].inputs)
        if (k >= 0 && static_cast<size_t>(k) < n) live[k] = true;
  std::vector<int> index(n, -1);
  std::vector<Node> kept;
  for (size_t i = 0; i < n; ++i) {
    if (!live[i]) continue;
    index[i] = static_cast<int>(kept.size());
    kept.push_back(std::move(graph.nodes[i]));
  }
  for (Node& node : kept)
    for (int& k : node.inputs)
      if (k >= 0 && static_cast<size_t>(k) < n) k = index[k];
  for (int& o : graph.outputs)
    if (o >= 0 && static_cast<size_t>(o) < n) o = index[o];
  graph.nodes = std::move(kept);
}

bool HasMultiplierRepresentation(const ConvProblem& p) {
  return !p.transposed && p.depthwise() &&
         (p.weight_layout == WeightLayout::kOI || p.weight_layout == WeightLayout::kSpatialIO);
}

Graph ForwardGraph(const ConvProblem& p, bool multiplier_weight) {
  Graph g;
  const int x = g.AddVar(kInputVar, MemoryShape(p.input_shape(), DataMemoryOrder(p)));
  Shape w_shape = MemoryShape(p.weight_shape(), WeightMemoryOrder(p));
  const bool multiplier = multiplier_weight && HasMultiplierRepresentation(p);
  if (multiplier) {
    const int64_t c = p.in_channels, m = p.depth_multiplier();
    if (p.weight_layout == WeightLayout::kOI) {
      w_shape[0] = c;
      w_shape[1] = m;
    } else {
      w_shape[p.rank] = c;
      w_shape[p.rank + 1] = m;
    }
  }
  const int w = g.AddVar(kWeightVar, w_shape);
  std::vector<int> operands{x, w};
  if (p.bias) operands.push_back(g.AddVar(kBiasVar, p.bias_shape()));
  ConvAttrs a = ConvAttrsOf(p);
  a.multiplier_weight = multiplier;
  const int y = g.AddOp(p.transposed ? OpKind::kConvTranspose : OpKind::kConv, operands, a);
  g.outputs = {y};
  g.node(y).shape = MemoryShape(p.output_shape(), DataMemoryOrder(p));
  return g;
}

ConvAttrs ConvAttrsOf(const ConvProblem& p) {
  ConvAttrs a;
  static_cast<ConvParams&>(a) = p;
  if (!p.transposed) a.output_padding = Dims{0, 0, 0};
  return a;
}

Shape LogicalShape(const Shape& memory_shape, const std::vector<int>& memory_order) {
  Shape logical(memory_shape.size(), 0);
  for (size_t j = 0; j < memory_order.size() && j < memory_shape.size(); ++j)
    logical[memory_order[j]] = memory_shape[j];
  return logical;
}

Shape MemoryShape(const Shape& logical_shape, const std::vector<int>& memory_order) {
  Shape memory;
  for (int axis : memory_order) memory.push_back(logical_shape[axis]);
  return memory;
}

std::string DataLayoutText(DataLayout l, int rank) {
  std::string s = DataLayoutName(l, rank);
  for (char& c : s) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return s;
}

std::string WeightLayoutText(WeightLayout l, int rank) {
  std::string s = WeightLayoutName(l, rank);
  for (char& c : s) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return s;
}

}  // namespace convparity
