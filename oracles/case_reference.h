// The reference of a case, whatever its graph form: the form's graph (core/case_graphs.h) built
// from the problem and evaluated by the graph oracle (graph_oracle.h), whose convolution rule is
// ATen's float64 convolution; a single convolution is the form "conv". No ATen type here.
#pragma once

#include "core/case_graphs.h"
#include "core/conv_problem.h"
#include "core/status.h"
#include "core/tensor.h"
#include "oracles/torch_oracle.h"  // OracleOutput

namespace convparity {

// The result of direction d (y, dx or dw) in logical order, and with `with_magnitude` its A, for
// the vars `inputs` holds (CaseVars of the form, in logical order). kInvalid for an illegal problem
// or a var missing or misshapen; kInternal for ATen's errors.
Result<OracleOutput> ComputeReference(const ConvProblem& p, const GraphForm& form, Direction d,
                                      const CaseInputs& inputs, bool with_magnitude);

// K of the error bound c·u·√K·A for a graph's Σ√K (GraphOracleOutput::root_reduction_sum): its
// square, rounded up, but to the nearest whole number when it is within rounding of one, so that
// one convolution's √K gives back K (in double, √2² is 2.0000000000000004).
int64_t BoundReductionLength(double root_reduction_sum);

}  // namespace convparity
