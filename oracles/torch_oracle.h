// The reference: LibTorch (ATen) in float64. This header names no ATen type; only the .cc files of
// oracles/ include ATen headers (they cost seconds of compile per file).
#pragma once

#include <string>
#include <vector>

#include "core/conv_problem.h"
#include "core/status.h"
#include "core/tensor.h"

namespace convparity {

// A float64 tensor in logical (contiguous PyTorch) order.
struct RefTensor {
  Shape shape;
  std::vector<double> values;
};

// What the oracle computes for one case: the reference result and, for random mode, the error-bound
// input A = the same computation on absolute values (|x| ⊛ |w| + |b|, docs/TOLERANCE.md).
struct OracleOutput {
  RefTensor result;
  RefTensor magnitude;  // filled only when asked for
};

class TorchOracle {
 public:
  // Computes y (fwd), dx (bwd_data) or dw (bwd_weight) in float64 for ordinary and transposed
  // convolution, asymmetric padding applied as an explicit pad. `inputs` are in logical order
  // (layouts do not matter to the oracle: the SUT's result is converted back to logical order
  // before comparing).
  static Result<OracleOutput> Compute(const ConvProblem& p, Direction d, const CaseInputs& inputs,
                                      bool with_magnitude);

  // OK, or why the oracle's library (oracle_module.h) does not load in this process.
  static Status Available();
  static std::string TorchVersion();  // as the library reports itself, e.g. "1.13.0"
  static std::string Backend();       // which ATen paths float64 convolutions take, by kind
  // The ATen path this problem's float64 convolution takes (e.g. "SlowDilated2d"), for reports.
  static std::string Backend(const ConvProblem& p);
};

}  // namespace convparity
