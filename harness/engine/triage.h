// Turning one discrepancy a campaign saw into a finding worth reporting (issue 16): a crash is
// first confirmed alone in a fresh worker (one that crashes only after other cases ran is marked so
// and kept as it was seen); then the case is shrunk along the generator's shrink tree and by the
// structural pass to a 1-minimal case (shrink_structural.h), each candidate keeping the original's
// verdict and implementation. A crash of a candidate counts only once seen in a fresh worker; a
// hang's candidates run under the runner's adaptive timeout.
#pragma once

#include <rapidcheck.h>

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>

#include "core/conv_case.h"
#include "core/defaults.h"
#include "core/features.h"
#include "harness/engine/case_runner.h"

namespace convparity {

// How a discrepancy is checked again and shrunk. A campaign's options are built on these
// (CampaignOptions), so that the campaign hands them to its triage whole.
struct TriageOptions {
  Isolation isolation = Isolation::kWorker;  // case_runner.h
  std::string worker_executable;             // for isolation
  double case_timeout = defaults::kCaseTimeoutSeconds;
  CheckContext check;  // the limits every case is checked against
  // > 0: a SUT's timeout follows the oracle's time for the case, at least this (WorkerPolicy).
  double timeout_floor = defaults::kTimeoutFloorSeconds;
  bool malloc_check = false;                         // workers under MALLOC_CHECK_=3 (WorkerPolicy)
  double shrink_seconds = defaults::kShrinkSeconds;  // the shrink tree and the structural pass
  int64_t max_shrink_calls = defaults::kMaxShrinkCalls;  // per discrepancy
  // Nothing is checked past this moment (a campaign's time budget): a finding being shrunk is
  // reported with what it had (`Finding::shrink_cut_short`).
  std::optional<std::chrono::steady_clock::time_point> deadline;
};

// The signature of a discrepancy: what went wrong, then where (core/features.h BucketSignature),
// and the implementation the SUT said it used, so that one SUT's implementations (an adapter's jit
// and gemm paths) are reported apart.
std::string DiscrepancySignature(const ConvCase& c, const CaseOutcome& outcome);
// A triaged finding's bucket: its minimized case's signature, marked ".after_others" for a crash
// seen only after other cases ran in the same worker.
std::string FindingBucket(const Finding& f);

// The policy of a campaign's or a triage's workers (case_runner.h) from its options: a child per
// case under Isolation::kCase, the time limits' floor, the checking malloc, the deadline.
WorkerPolicy WorkerPolicyFor(const TriageOptions& options);

// The finding of `original` (its SUT set), drawn as `drawn` (the generator's shrink tree; a
// problem without one gets ShrinkableProblem's), which `runner` saw end with `outcome`. `runner` is
// the triage's own: nothing else is pending on it. The finding's bucket is left empty.
Finding TriageDiscrepancy(const rc::Shrinkable<ConvProblem>& drawn, const ConvCase& original,
                          const CaseOutcome& outcome, CaseRunner& runner,
                          const TriageOptions& options);

// A discrepancy triaged on its own, as a campaign triages one (`convparity shrink`): on a runner
// of its own made from `options` (the worker_executable empty: this process's), shrunk from
// ShrinkableProblem's tree, its bucket set.
Finding TriageAlone(const ConvCase& original, const CaseOutcome& outcome,
                    const TriageOptions& options);

}  // namespace convparity
