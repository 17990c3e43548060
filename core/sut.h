// The interface every system under test implements: our kernels, transform pipelines, plugins,
// ATen's own float32 paths and the known-bug reproductions.
#pragma once

#include <string>

#include "core/conv_problem.h"
#include "core/status.h"
#include "core/verdict.h"

namespace convparity {

// One case's float32 buffers, in the problem's memory layouts: input, output and their gradients in
// DataMemoryOrder(p), the weight in WeightMemoryOrder(p), the bias contiguous.
struct ConvBuffers {
  const float* input = nullptr;        // x        (fwd, bwd_weight)
  const float* weight = nullptr;       // w        (fwd, bwd_data)
  const float* bias = nullptr;         // b        (fwd, when p.bias)
  const float* grad_output = nullptr;  // dy       (bwd_data, bwd_weight)
  float* result = nullptr;             // y, dx or dw; poisoned with NaN before the call
  // A chain case (core/graph.h ChainGraph) also binds %w2, in WeightMemoryOrder(ResidualConv(p));
  // the result is then the block's. Only SUTs that RunsGraphs() get chain cases.
  const float* chain_weight = nullptr;
};

class ConvSut {
 public:
  virtual ~ConvSut() = default;
  virtual std::string name() const = 0;
  // Ok; Unsupported(reason) when it declines the configuration (verdict: skipped); anything else is
  // an error of the system under test.
  virtual Status Run(const ConvProblem& p, Direction direction, const ConvBuffers& buffers) = 0;
  // True for SUTs that run graphs (transform pipelines): they take chain cases as well.
  virtual bool RunsGraphs() const { return false; }
  // After Run returned Ok: what the SUT says about that run (the implementation it used, whether
  // the result is inexact). Empty by default.
  virtual RunNotes LastRunNotes() const { return {}; }
};

}  // namespace convparity
