// The reference's terms (a float64 tensor, the oracle's answer) and what LibTorch (ATen) says of
// itself; the reference is computed by case_reference.h. This header names no ATen type; only the
// .cc files of oracles/ include ATen headers (they cost seconds of compile per file).
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
  // K of the error bound c·u·√K·A: for one convolution, the direction's reduction length, +1 for
  // a bias; for a graph, (Σ√K)² over the reductions the result went through (graph_oracle.h).
  int64_t bound_reduction_length = 0;
};

class TorchOracle {
 public:
  // OK, or why the oracle's library (oracle_module.h) does not load in this process.
  static Status Available();
  static std::string TorchVersion();  // as the library reports itself, e.g. "1.13.0"
  static std::string Backend();       // which ATen paths float64 convolutions take, by kind
  // The ATen path this problem's float64 convolution takes (e.g. "SlowDilated2d"), for reports.
  static std::string Backend(const ConvProblem& p);
};

}  // namespace convparity
