// Checks one case: fill → oracle → system under test → judge. The unit of work of properties,
// campaigns, repro and the CI gate.
#pragma once

#include <memory>
#include <optional>
#include <string>

#include "core/conv_case.h"
#include "core/conv_problem.h"
#include "core/sut.h"
#include "core/tensor.h"
#include "harness/judge.h"
#include "oracles/torch_oracle.h"

namespace convparity {

// Runs `sut` the way a check does: inputs in the problem's memory layouts, the result poisoned with
// NaN beforehand (judge.h), exceptions turned into errors. The result comes back in logical order.
struct SutRun {
  Status status;
  HostTensor result;
};
SutRun RunSut(ConvSut& sut, const ConvProblem& p, Direction d, const CaseInputs& inputs);

// The part of a case every SUT shares: its inputs and the oracle's answer, computed once.
struct PreparedCase {
  ConvCase c;
  std::optional<CaseOutcome> ended;  // invalid, over a limit or ill-conditioned: no SUT runs
  CaseInputs inputs;
  OracleOutput reference;
  CaseTiming timing;
};

// The limits a case is checked against when the caller names none: the defaults, or what the
// command line set. main() sets them once, before any case runs, in worker processes too
// (cli_options.h: ExportLimitsToWorkers).
inline Limits& ProcessLimits() {
  static Limits limits;
  return limits;
}

// Never throws; invalid or over-limit configurations end with Verdict::kInvalid and the message.
PreparedCase PrepareCase(const ConvCase& c, const Limits& limits = ProcessLimits());
CaseOutcome RunPrepared(const PreparedCase& prepared, ConvSut& sut);
inline CaseOutcome CheckCase(const ConvCase& c, ConvSut& sut,
                             const Limits& limits = ProcessLimits()) {
  return RunPrepared(PrepareCase(c, limits), sut);
}

}  // namespace convparity
