// Runs a case against several SUTs and returns one outcome per SUT. The isolated runner does it in
// a worker process (worker_process.h), so that a SUT that crashes or hangs becomes a verdict, not
// the end of the campaign.
#pragma once

#include <chrono>
#include <memory>
#include <optional>
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

// How an isolated runner treats its worker processes (triage, issues 16 and 24).
struct WorkerPolicy {
  // Every SUT runs in a child forked for the case from the worker's SUT host (sut_host.h;
  // `--isolate case`): nothing a case did to the heap reaches another. Without it, a SUT runs in
  // the worker until one of its runs ends a worker (a crash, an abort), and from then on in the
  // host's kept child: a crash costs the fork of a small process, not a LibTorch start, and a
  // case a round trip.
  bool fork_per_case = false;
  // > 0: a SUT's time limit follows the work (time_limits.h: the oracle's time and the SUT's own
  // speed), at least this floor and at most the runner's timeout; a hang on a small case is seen
  // in about the floor. A run that runs out of it is run again alone under a CPU-time limit before
  // it is hung; one that finishes then comes back `slow`.
  double timeout_floor_seconds = 0;
  // The worker runs under glibc's checking malloc (MALLOC_CHECK_=3 with libc_malloc_debug
  // preloaded): a write past a heap block aborts the case that freed it, not a later one.
  bool malloc_check = false;
  // A second worker is started ahead, so that a restart (after a hang) does not wait for libtorch
  // to load: for runners that restart often (a triage's).
  bool spare_worker = false;
  // Nothing is waited for past this moment (a campaign's time budget): the worker is stopped and
  // every SUT still pending comes back `abandoned`.
  std::optional<std::chrono::steady_clock::time_point> deadline;
};

// In a worker process started from `executable` (`<executable> worker`), restarted after a crash or
// a hang. `timeout_seconds` applies to each SUT's run (and to preparing the case).
std::unique_ptr<CaseRunner> MakeIsolatedRunner(const std::string& executable,
                                               double timeout_seconds,
                                               const CheckContext& context = {},
                                               const WorkerPolicy& policy = {});

// Where SUTs run (`--isolate`): in this process (none: fast, a crash ends it), in worker
// processes that keep going from case to case (worker), or each case in a child forked for it from
// the worker's SUT host (case: nothing a case did to the heap reaches another; WorkerPolicy).
enum class Isolation { kNone, kWorker, kCase };

struct RunnerOptions {
  Isolation isolation = Isolation::kWorker;
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
