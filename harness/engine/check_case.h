// Checks one case: fill → oracle → system under test → judge. The unit of work of properties,
// campaigns, repro and the CI gate.
#pragma once

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/conv_case.h"
#include "core/conv_problem.h"
#include "core/sut.h"
#include "core/tensor.h"
#include "harness/engine/check_context.h"
#include "harness/engine/judge.h"
#include "oracles/torch_oracle.h"

namespace convparity {

// Runs `sut` the way a check does: inputs in the problem's memory layouts, the result poisoned with
// NaN beforehand (judge.h), exceptions turned into errors: every var the case reads in its memory
// order (core/sut.h CaseBuffers). The result comes back in logical order.
struct SutRun {
  Status status;
  // The SUT's own verdict (GraphRun): broken_promise, shape_mismatch; `status` says why.
  std::optional<Verdict> verdict;
  HostTensor result;
  RunNotes notes;      // the SUT's LastRunNotes() when it succeeded
  double seconds = 0;  // the SUT's own call, without the layout conversions around it
  // What the SUT declared it can run (Sut::capabilities) says of the case: whether it declared
  // anything, and why the case is outside its declaration when it is.
  bool declared = false;
  std::optional<std::string> outside;
};
// The case's vars as a Sut gets them (core/sut.h CaseBuffers): each in its memory order, `storage`
// holding them; the result is not allocated (buffers.result null).
struct CaseMemory {
  std::map<std::string, std::vector<float>> storage;
  CaseBuffers buffers;
};
CaseMemory InMemoryOrder(const ConvProblem& p, Direction d, const GraphForm& form,
                         const CaseInputs& inputs);

// `form` is the graph the SUT is asked to run (a ConvSut declines all but the convolution).
SutRun RunSut(Sut& sut, const ConvProblem& p, Direction d, const CaseInputs& inputs,
              const GraphForm& form = ConvForm(), const Spelling& spelling = {});

// The part of a case every SUT shares: its inputs and the oracle's answer, computed once.
struct PreparedCase {
  ConvCase c;
  std::optional<CaseOutcome> ended;  // invalid, over a limit or ill-conditioned: no SUT runs
  CaseInputs inputs;
  OracleOutput reference;  // with the K of its error bound
  CaseTiming timing;
};

// The problem's legality and limits (CheckLimits), and a graph form's other convolutions and
// their multiply-adds together. Nothing is allocated before this passes.
Status CheckCaseLimits(const ConvCase& c, const Limits& limits = Limits{});

// Never throws; invalid or over-limit configurations end with Verdict::kInvalid and the message.
// The context's limits apply (the default ones when the caller names none).
PreparedCase PrepareCase(const ConvCase& c, const CheckContext& context = {});
CaseOutcome RunPrepared(const PreparedCase& prepared, Sut& sut);
// The steps of RunPrepared apart, for a SUT run in another process (sut_host.h): the case with its
// inputs but no reference, and the verdict on a run of `sut_name`, `around_seconds` being the time
// around RunSut.
PreparedCase PrepareInputs(const ConvCase& c, const CheckContext& context = {});
CaseOutcome JudgeRun(const PreparedCase& prepared, const std::string& sut_name, const SutRun& run,
                     double around_seconds);
// Where the case's structure reaches its result (judge.h ReachFn): the oracle's answer on all-ones
// inputs of the same shapes, positive exactly where some term lands (no term is negative, so none
// cancels). Empty when the oracle fails.
std::vector<double> ReachOf(const PreparedCase& prepared);
inline CaseOutcome CheckCase(const ConvCase& c, Sut& sut, const CheckContext& context = {}) {
  return RunPrepared(PrepareCase(c, context), sut);
}

}  // namespace convparity
