#include "oracles/graph_oracle_plan.h"

namespace convparity::graph_oracle_internal {
namespace {

Status CheckBinding(const std::string& what, const HostTensor& t, const Shape& expected) {
  if (t.shape != expected || static_cast<int64_t>(t.values.size()) != NumElements(expected))
    return Status::Invalid(what + " expects shape " + ShapeText(expected) + ", bound to " +
                           ShapeText(t.shape) + " with " + std::to_string(t.values.size()) +
                           " elements");
  return Status::Ok();
}

}  // namespace

Result<Plan> MakePlan(const Graph& g, const GraphInputs& vars, const std::string& wrt,
                      const HostTensor& grad_output) {
  const int count = static_cast<int>(g.nodes.size());
  if (g.outputs.size() != 1)
    return Status::Invalid("the graph oracle needs a graph with exactly one output, found " +
                           std::to_string(g.outputs.size()));
  Plan plan;
  plan.output = g.outputs[0];
  if (plan.output < 0 || plan.output >= count)
    return Status::Invalid("output %" + std::to_string(plan.output) +
                           " does not exist (the graph has " + std::to_string(count) + " nodes)");
  // The nodes the output depends on, each with its shape re-inferred and its vars bound.
  std::vector<bool> reaches(count, false);
  reaches[plan.output] = true;
  for (int i = count; i-- > 0;) {
    if (!reaches[i]) continue;
    const Node& n = g.node(i);
    Result<Shape> shape = InferNodeShape(g, i);  // also checks that operands are earlier nodes
    if (!shape.ok()) return shape.status();
    if (*shape != n.shape)
      return Status::Invalid(NodeMessagePrefix(g, i) + "its shape " + ShapeText(n.shape) +
                             " is not the inferred " + ShapeText(*shape) + " (run InferShapes)");
    for (int k : n.inputs) reaches[k] = true;
    if (n.op == OpKind::kVar) {
      auto it = vars.find(n.name);
      if (it == vars.end()) return Status::Invalid("var %" + n.name + " is not bound");
      CP_RETURN_IF_ERROR(CheckBinding("var %" + n.name, it->second, n.shape));
    }
  }
  plan.evaluate = reaches;
  plan.on_path.assign(count, false);
  if (wrt.empty()) return plan;

  std::string names;
  for (int i = 0; i < count; ++i) {
    if (g.node(i).op != OpKind::kVar) continue;
    if (g.node(i).name == wrt) plan.wrt_nodes.push_back(i);
    names += (names.empty() ? "" : ", ") + ("%" + g.node(i).name);
  }
  if (plan.wrt_nodes.empty())
    return Status::Invalid("wrt '" + wrt + "' is not a var of the graph (its vars: " +
                           (names.empty() ? "none" : names) + ")");
  CP_RETURN_IF_ERROR(CheckBinding("grad_output", grad_output, g.node(plan.output).shape));
  // on_path: depends on a wrt var and reaches the output. Forward values needed: the operands the
  // conv rules read (the other operand of each product), and what they depend on.
  std::vector<bool> depends(count, false);
  for (int i = 0; i < count; ++i) {
    depends[i] = g.node(i).op == OpKind::kVar && g.node(i).name == wrt;
    for (int k : g.node(i).inputs) depends[i] = depends[i] || (k >= 0 && k < i && depends[k]);
    plan.on_path[i] = depends[i] && reaches[i];
  }
  plan.evaluate.assign(count, false);
  for (int i = count; i-- > 0;) {
    const Node& n = g.node(i);
    const bool conv = n.op == OpKind::kConv || n.op == OpKind::kConvTranspose;
    if (plan.on_path[i] && conv) plan.evaluate[n.inputs[0]] = plan.evaluate[n.inputs[1]] = true;
    if (plan.evaluate[i])
      for (int k : n.inputs) plan.evaluate[k] = true;
  }
  return plan;
}

}  // namespace convparity::graph_oracle_internal
