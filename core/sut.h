// The interface every system under test implements: our kernels, transform pipelines, plugins,
// ATen's own float32 paths and the known-bug reproductions; and the one of SUTs that run graphs.
#pragma once

#include <map>
#include <optional>
#include <string>

#include "core/conv_case.h"
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
  // A graph form's own vars (core/case_graphs.h FormVar: a chain's %w2), by name, each in its
  // memory order; the result is then the graph's. Only SUTs that RunsGraphs() get such cases.
  std::map<std::string, const float*> form_vars;
};

class ConvSut {
 public:
  virtual ~ConvSut() = default;
  virtual std::string name() const = 0;
  // Ok; Unsupported(reason) when it declines the configuration (verdict: skipped); anything else is
  // an error of the system under test.
  virtual Status Run(const ConvProblem& p, Direction direction, const ConvBuffers& buffers) = 0;
  // True for SUTs that run graphs (GraphSut, below): they take chain cases as well.
  virtual bool RunsGraphs() const { return false; }
  // After Run returned Ok: what the SUT says about that run (the implementation it used, whether
  // the result is inexact). Empty by default.
  virtual RunNotes LastRunNotes() const { return {}; }
};

// How a graph SUT's run ended: as ConvSut::Run's status says (Ok: the result is written), or in a
// verdict the SUT reached on its own before any result, `status` then saying why.
struct GraphRun {
  GraphRun(Status s = Status::Ok()) : status(std::move(s)) {}  // NOLINT: a status is a run's end
  static GraphRun Ended(Verdict v, std::string why) {
    GraphRun run(Status::Internal(std::move(why)));
    run.verdict = v;
    return run;
  }

  Status status;
  std::optional<Verdict> verdict;  // kBrokenPromise or kShapeMismatch
};

// A system under test that runs graphs (transform pipelines): it takes chain cases (buffers with
// a chain_weight) as well as single convolutions, and its run may end in a verdict of its own:
// the graph it made broke a pass's structural promise, or computes a result of another shape.
class GraphSut : public ConvSut {
 public:
  bool RunsGraphs() const final { return true; }
  // The graph of `form` built from `p` (core/case_graphs.h), in `direction`.
  virtual GraphRun RunGraph(const ConvProblem& p, const GraphForm& form, Direction direction,
                            const ConvBuffers& buffers) = 0;
  // For callers that see a ConvSut: the convolution alone, and a verdict of its own is an error
  // that names it.
  Status Run(const ConvProblem& p, Direction direction, const ConvBuffers& buffers) final {
    GraphRun run = RunGraph(p, ConvForm(), direction, buffers);
    if (!run.verdict) return run.status;
    return Status::Internal(std::string(VerdictName(*run.verdict)) + ": " + run.status.message());
  }
};

}  // namespace convparity
