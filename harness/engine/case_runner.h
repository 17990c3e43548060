// Runs a case against several SUTs and returns one outcome per SUT. The isolated runner does it in
// a worker process (worker_process.h), so that a SUT that crashes or hangs becomes a verdict, not
// the end of the campaign.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "core/conv_case.h"
#include "core/defaults.h"
#include "core/verdict.h"
#include "harness/engine/check_context.h"

namespace convparity {

class CaseRunner {
 public:
  virtual ~CaseRunner() = default;
  // Queues a case; the case's own `sut` field is ignored, each name in `suts` runs. Outcomes come
  // back from Next() in submission order. A runner may work on submitted cases while its caller
  // does something else (the isolated one has them in its worker's pipe), so submitting a few cases
  // ahead hides each round trip to the worker.
  virtual void Submit(const ConvCase& c, const std::vector<std::string>& suts) = 0;
  // The outcomes of the oldest submitted case, one per SUT in order; blocks until they are there.
  virtual std::vector<CaseOutcome> Next() = 0;
  virtual size_t pending() const = 0;  // submitted, not yet returned by Next()

  // One case, when nothing is pending.
  std::vector<CaseOutcome> Check(const ConvCase& c, const std::vector<std::string>& suts) {
    Submit(c, suts);
    return Next();
  }
};

// In this process: fast, no isolation (tests, and SUTs we trust).
std::unique_ptr<CaseRunner> MakeInProcessRunner(const CheckContext& context = {});

// How an isolated runner treats its worker processes (triage, issue 16).
struct WorkerPolicy {
  // A new worker for every case (`--isolate case`): nothing a case did to the heap reaches another.
  bool fresh_per_case = false;
  // > 0: a SUT's timeout follows the work, kTimeoutPerOracleSecond times the oracle's own time for
  // the case, at least this floor and at most the runner's timeout; a hang on a small case is seen
  // in about the floor, not after the fixed timeout. A SUT's first run in the process gets the
  // runner's timeout (its set-up).
  double timeout_floor_seconds = 0;
  // The worker runs under glibc's checking malloc (MALLOC_CHECK_=3 with libc_malloc_debug
  // preloaded): a write past a heap block aborts the case that freed it, not a later one.
  bool malloc_check = false;
  // A second worker is started ahead, so that a restart (after a crash, a hang, or each case of
  // fresh_per_case) does not wait for libtorch to load: for runners that restart often.
  bool spare_worker = false;
};
// A SUT's float32 run against the oracle's float64 one (ATen's slow path) on the same case: the
// adaptive timeout's factor. Generous: a tight factor would turn a slow library into hangs.
constexpr double kTimeoutPerOracleSecond = 50;

// In a worker process started from `executable` (`<executable> worker`), restarted after a crash or
// a hang. `timeout_seconds` applies to each SUT's run (and to preparing the case).
std::unique_ptr<CaseRunner> MakeIsolatedRunner(const std::string& executable,
                                               double timeout_seconds,
                                               const CheckContext& context = {},
                                               const WorkerPolicy& policy = {});

struct RunnerOptions {
  bool isolate = true;  // worker processes (else in this process)
  double timeout_seconds = defaults::kCaseTimeoutSeconds;  // per SUT run, isolated only
  int jobs = 1;                                            // RunCases: runners working in parallel
  CheckContext context;                                    // what every case is checked with
};
// How many cases a campaign or a replay keeps submitted ahead on one runner. Measured (bench/
// campaign_figures.sh): one case at a time leaves the worker idle for a round trip per case.
constexpr size_t kCasesInFlight = 8;
std::unique_ptr<CaseRunner> MakeRunner(const RunnerOptions& options);

// Runs many cases on `options.jobs` runners, outcomes in the order of `cases`. Cases that differ
// only in their SUT (and expectation) are checked together, so they share one preparation and
// oracle call.
std::vector<CaseOutcome> RunCases(const std::vector<ConvCase>& cases, const RunnerOptions& options);

// This process's own executable, for MakeIsolatedRunner.
std::string SelfExecutable();

}  // namespace convparity
