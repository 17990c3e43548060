// Runs a case against several SUTs and returns one outcome per SUT. The isolated runner does it in
// a worker process (`convparity worker`, the same binary: fork() after ATen's threads have started
// is unsafe), so that a SUT that crashes or hangs becomes a verdict, not the end of the campaign.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "core/conv_case.h"
#include "core/verdict.h"

namespace convparity {

class CaseRunner {
 public:
  virtual ~CaseRunner() = default;
  // The case's own `sut` field is ignored; one outcome per name in `suts`, in order.
  virtual std::vector<CaseOutcome> Check(const ConvCase& c,
                                         const std::vector<std::string>& suts) = 0;
};

// In this process: fast, no isolation (tests, and SUTs we trust).
std::unique_ptr<CaseRunner> MakeInProcessRunner();

// In a worker process started from `executable` (`<executable> worker`), restarted after a crash or
// a hang. `timeout_seconds` applies to each SUT's run (and to preparing the case).
std::unique_ptr<CaseRunner> MakeIsolatedRunner(const std::string& executable,
                                               double timeout_seconds);

struct RunnerOptions {
  bool isolate = true;          // worker processes (else in this process)
  double timeout_seconds = 30;  // per SUT run, isolated only
  int jobs = 1;                 // RunCases: runners working in parallel
};
std::unique_ptr<CaseRunner> MakeRunner(const RunnerOptions& options);

// Runs many cases on `options.jobs` runners, outcomes in the order of `cases`. Cases that differ
// only in their SUT (and expectation) are checked together, so they share one preparation and
// oracle call.
std::vector<CaseOutcome> RunCases(const std::vector<ConvCase>& cases, const RunnerOptions& options);

// The worker's side: reads requests from stdin, answers on stdout, until stdin closes.
int WorkerMain();

// This process's own executable, for MakeIsolatedRunner.
std::string SelfExecutable();

}  // namespace convparity
