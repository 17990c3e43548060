// The interface every system under test implements (Sut: it runs a case's graph), and the one of
// those that run single convolutions behind it (ConvSut): our kernels, plugins, ATen's own float32
// paths and the kernel known bugs. Transform pipelines are Suts of their own.
#pragma once

#include <map>
#include <optional>
#include <string>

#include "core/capabilities.h"
#include "core/conv_case.h"
#include "core/conv_problem.h"
#include "core/status.h"
#include "core/verdict.h"

namespace convparity {

// One convolution's float32 buffers as a ConvSut gets them (and the plugin ABI and the process
// protocol carry them), in the problem's memory layouts: input, output and their gradients in
// DataMemoryOrder(p), the weight in WeightMemoryOrder(p), the bias contiguous.
struct ConvBuffers {
  const float* input = nullptr;        // x        (fwd, bwd_weight)
  const float* weight = nullptr;       // w        (fwd, bwd_data)
  const float* bias = nullptr;         // b        (fwd, when p.bias)
  const float* grad_output = nullptr;  // dy       (bwd_data, bwd_weight)
  float* result = nullptr;             // y, dx or dw; poisoned with NaN before the call
};

// A case's buffers as a Sut gets them: every var the case reads (core/case_graphs.h CaseVars) by
// name, each in its memory order, and the result of the case's graph, in the memory order of
// ResultShape's tensor, poisoned with NaN before the call.
struct CaseBuffers {
  std::map<std::string, const float*> vars;
  float* result = nullptr;
  // The buffer of var `name`; null when the case does not read it.
  const float* Get(const std::string& name) const {
    const auto it = vars.find(name);
    return it == vars.end() ? nullptr : it->second;
  }
};

// How a SUT's run ended: as its status says (Ok: the result is written; Unsupported(reason): it
// declines the case, verdict skipped; anything else: an error of the SUT), or in a verdict it
// reached on its own before any result (a transform pipeline's broken_promise or shape_mismatch),
// `status` then saying why.
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

// What the engine runs: a case's graph, the graph of `form` built from `p` (core/case_graphs.h),
// in `direction`, on `buffers`, as `spelling` writes it in a model file: only SUTs that read a
// model format (harness/models/) see a difference; the others run the same buffers whatever it
// says.
class Sut {
 public:
  virtual ~Sut() = default;
  virtual std::string name() const = 0;
  virtual GraphRun RunGraph(const ConvProblem& p, const GraphForm& form, Direction direction,
                            const Spelling& spelling, const CaseBuffers& buffers) = 0;
  // After a run that ended Ok: what the SUT says about it (the implementation it used, whether the
  // result is inexact). Empty by default.
  virtual RunNotes LastRunNotes() const { return {}; }
  // What it declares it can run (core/capabilities.h): a case inside that it declines, or one
  // outside that it computes, is a broken promise. Nothing by default: our own SUTs run any case.
  virtual const Capabilities& capabilities() const {
    static const Capabilities kNothingDeclared;
    return kNothingDeclared;
  }
};

// A system under test that runs single convolutions: our kernels, plugins, processes, ATen's own
// float32 paths, the kernel known bugs. It declines every graph form but the convolution alone;
// whether a name runs graphs is the SUT registry's to say before any SUT is made
// (harness/suts/sut_registry.h RunsGraphs).
class ConvSut : public Sut {
 public:
  // Ok; Unsupported(reason) when it declines the configuration (verdict: skipped); anything else is
  // an error of the system under test.
  virtual Status Run(const ConvProblem& p, Direction direction, const ConvBuffers& buffers) = 0;
  // Run, told the case's spelling too: a child of the process protocol passes it on (for a frontend
  // that writes its own model); the others compute the same buffers whatever it says.
  virtual Status RunSpelled(const ConvProblem& p, Direction direction, const Spelling&,
                            const ConvBuffers& buffers) {
    return Run(p, direction, buffers);
  }
  GraphRun RunGraph(const ConvProblem& p, const GraphForm& form, Direction direction,
                    const Spelling& spelling, const CaseBuffers& buffers) final {
    if (form != ConvForm())
      return Status::Unsupported(name() + " runs single convolutions; a " + form.name +
                                 " case needs a SUT that runs graphs (transform:…)");
    return RunSpelled(
        p, direction, spelling,
        ConvBuffers{buffers.Get(kInputVar), buffers.Get(kWeightVar), buffers.Get(kBiasVar),
                    buffers.Get(kGradOutputVar), buffers.result});
  }
};

}  // namespace convparity
