#include "oracles/case_reference.h"

#include <cfloat>
#include <cmath>
#include <string>
#include <utility>
#include <vector>

#include "core/graph.h"
#include "oracles/graph_oracle.h"

namespace convparity {
namespace {

Status CheckVar(const CaseVar& var, const HostTensor& t) {
  if (t.shape != var.shape)
    return Status::Invalid("%" + var.name + " must have shape " + ShapeText(var.shape) +
                           ", but got " + ShapeText(t.shape));
  if (static_cast<int64_t>(t.values.size()) != NumElements(var.shape))
    return Status::Invalid("%" + var.name + " of shape " + ShapeText(var.shape) + " needs " +
                           std::to_string(NumElements(var.shape)) + " values, but got " +
                           std::to_string(t.values.size()));
  return Status::Ok();
}

}  // namespace

int64_t BoundReductionLength(double root_reduction_sum) {
  const double square = root_reduction_sum * root_reduction_sum;
  if (!(square < 0x1p62)) return int64_t{1} << 62;  // beyond any limit (or not a number)
  // √K² is K within a few units in the last place (√K rounds once, the square once more).
  const double nearest = std::round(square);
  const bool whole = std::fabs(square - nearest) <= 8 * DBL_EPSILON * nearest;
  return static_cast<int64_t>(whole ? nearest : std::ceil(square));
}

Result<OracleOutput> ComputeReference(const ConvProblem& p, const GraphForm& form, Direction d,
                                      const CaseInputs& in, bool with_magnitude) {
  CP_RETURN_IF_ERROR(Validate(p));
  // The reference does not depend on layouts: the graph is built in PyTorch's own (channels-first
  // data, the natural weight layout), so that the problem's vars and its result are their logical
  // tensors and no operand of its convolution is permuted or copied on its way to ATen.
  ConvProblem q = p;
  q.data_layout = DataLayout::kChannelsFirst;
  q.weight_layout = p.natural_weight_layout();
  q = GraphProblem(q, d);
  const bool forward = d == Direction::kForward;
  Graph g = form.build(q, /*multiplier_weight=*/false);
  CP_RETURN_IF_ERROR(InferShapes(g).WithContext("the " + form.name + " graph"));
  // Every var in its memory order (a form's own var may keep another: the chain's %w2 has a
  // transposed problem's weight layout), the gradient a backward direction starts from apart; the
  // var it differentiates gets zeros: its value is not read.
  GraphInputs vars;
  HostTensor dy;
  for (const CaseVar& var : CaseVars(form, q, d)) {
    const HostTensor& value = in.Get(var.name);
    CP_RETURN_IF_ERROR(CheckVar(var, value));
    (var.name == kGradOutputVar ? dy : vars[var.name]) = HostTensor{
        MemoryShape(var.shape, var.memory_order), ToMemoryOrder(value, var.memory_order)};
  }
  const std::string wrt = DifferentiatedVar(d);
  if (!forward) {
    const Shape shape = d == Direction::kBackwardData ? p.input_shape() : p.weight_shape();
    const std::vector<int> order =
        d == Direction::kBackwardData ? DataMemoryOrder(q) : WeightMemoryOrder(q);
    vars[wrt] = HostTensor{MemoryShape(shape, order),
                           std::vector<float>(static_cast<size_t>(NumElements(shape)))};
  }
  Result<GraphOracleOutput> ref = ComputeGraph(g, vars, wrt, dy, with_magnitude);
  if (!ref.ok()) return ref.status();
  const Shape shape = ResultShape(p, d);
  if (ref->result.shape != shape)
    return Status::Internal("the " + form.name + " graph's reference has shape " +
                            ShapeText(ref->result.shape) + ", expected " + ShapeText(shape));
  GraphOracleOutput out = std::move(ref).value();
  return OracleOutput{std::move(out.result), std::move(out.magnitude),
                      BoundReductionLength(out.root_reduction_sum)};
}

}  // namespace convparity
