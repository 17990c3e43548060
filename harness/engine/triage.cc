#include "harness/engine/triage.h"

#include <algorithm>
#include <chrono>
#include <functional>
#include <memory>

#include "core/descriptor.h"
#include "generators/problem_shrink.h"
#include "harness/engine/shrink_search.h"
#include "harness/engine/shrink_structural.h"

namespace convparity {
namespace {

// The share of the shrink budget the shrink tree may take; the structural pass gets the rest, so
// that the reported case is 1-minimal even when the tree was slow.
constexpr double kTreeShare = 0.5;

// A runner whose worker forks a child for every case and never runs a SUT itself: each case runs
// alone, in a copy of a worker that no earlier case touched.
std::unique_ptr<CaseRunner> ForkingRunner(const TriageOptions& o) {
  WorkerPolicy policy = WorkerPolicyFor(o);
  policy.fork_per_case = true;
  policy.spare_worker = true;  // a hang restarts the worker
  return MakeIsolatedRunner(o.worker_executable, o.case_timeout, o.check, policy);
}

// Seconds left before `deadline`, or `otherwise` without one.
double SecondsLeft(const std::optional<std::chrono::steady_clock::time_point>& deadline,
                   double otherwise) {
  if (!deadline) return otherwise;
  return std::min(
      otherwise,
      std::chrono::duration<double>(*deadline - std::chrono::steady_clock::now()).count());
}

}  // namespace

WorkerPolicy WorkerPolicyFor(const TriageOptions& o) {
  WorkerPolicy policy;
  policy.fork_per_case = o.isolation == Isolation::kCase;
  policy.timeout_floor_seconds = o.timeout_floor;
  policy.malloc_check = o.malloc_check;
  policy.deadline = o.deadline;
  return policy;
}

Finding TriageDiscrepancy(const rc::Shrinkable<ConvProblem>& drawn, const ConvCase& original,
                          const CaseOutcome& outcome, CaseRunner& runner, const TriageOptions& o) {
  Finding f{original, outcome, original, outcome, {}};
  // A crash's every check runs alone, in a child forked from a clean worker: a candidate's crash
  // is its own, not the heap state of cases before it.
  const bool crash = outcome.verdict == Verdict::kCrashed && o.isolation != Isolation::kNone;
  std::unique_ptr<CaseRunner> forking = crash ? ForkingRunner(o) : nullptr;
  CaseRunner& checker = crash ? *forking : runner;
  if (crash) {
    // A worker that crashed had run other cases first: heap corruption from one of them may have
    // crashed this one.
    const CaseOutcome alone = checker.Check(original, {original.sut})[0];
    if (alone.verdict != Verdict::kCrashed && !alone.abandoned) {
      f.crashes_after_others = true;
      f.outcome.reason +=
          " (only after other cases ran in the same worker, heap state from "
          "earlier cases; alone in a fresh worker: " +
          std::string(VerdictName(alone.verdict)) + ")";
      return f;
    }
  }
  // The outcome of the smallest case seen to hold, so that a shrink cut short by the deadline
  // reports what it had without checking it again.
  CaseOutcome last_held = outcome;
  std::function<bool(const ConvCase&)> holds = [&](const ConvCase& candidate) {
    const CaseOutcome got = checker.Check(candidate, {original.sut})[0];
    if (got.abandoned) f.shrink_cut_short = true;
    // The same verdict from the same implementation: shrinking must not wander off to another of
    // the SUT's code paths.
    const bool held =
        got.verdict == outcome.verdict && got.notes.implementation == outcome.notes.implementation;
    if (held) last_held = got;
    return held;
  };
  const auto start = std::chrono::steady_clock::now();
  const double budget = std::max(SecondsLeft(o.deadline, o.shrink_seconds), 0.0);
  SearchOptions tree;
  tree.max_seconds = budget * kTreeShare;
  tree.max_shrink_tries = o.max_shrink_calls / 2;
  SearchResult<ConvProblem> tree_result;
  std::function<bool(const ConvProblem&)> problem_holds = [&](const ConvProblem& p) {
    ConvCase candidate = original;
    candidate.problem = p;
    // The generator's tree knows nothing of the spelling: an auto-pad mode's pads follow.
    ConformToSpelling(candidate.spelling, candidate.problem);
    if (!Validate(candidate.problem).ok() ||
        !CheckSpelling(candidate.spelling, candidate.problem).ok())
      return false;
    return holds(candidate);
  };
  // A crash's or a hang's every accepted step costs a fork or a worker restart (and a hang its
  // limits): the coarse reductions of the structural pass take far fewer steps than the shrink
  // tree's.
  const bool costly = outcome.verdict == Verdict::kCrashed || outcome.verdict == Verdict::kHung;
  tree_result.shrunk = original.problem;
  if (!costly && budget > 0) ShrinkInto(drawn, problem_holds, tree, tree_result);
  ConvCase after_tree = original;
  after_tree.problem = *tree_result.shrunk;
  ConformToSpelling(after_tree.spelling, after_tree.problem);
  StructuralShrinkBounds bounds;
  bounds.max_calls = std::max<int64_t>(o.max_shrink_calls - tree_result.shrink_tries, 1);
  // At least a second of its own, unless the deadline leaves less.
  bounds.max_seconds = std::min(std::max(o.shrink_seconds - SecondsSince(start), 1.0),
                                SecondsLeft(o.deadline, o.shrink_seconds));
  const StructuralShrinkResult structural =
      bounds.max_seconds > 0 ? ShrinkToOneMinimal(after_tree, holds, bounds)
                             : StructuralShrinkResult{after_tree, {}, 0, true, 0};
  f.minimized = structural.shrunk;
  for (const ConvProblem& p : tree_result.steps)
    f.shrink_steps.push_back(CaseDescriptor(p, original.direction));
  for (const ConvCase& c : structural.steps)
    f.shrink_steps.push_back(
        CaseDescriptor(c.problem, c.direction) +
        (c.fill != original.fill ? std::string(" fill ") + FillName(c.fill) : std::string()));
  f.shrink_calls = tree_result.shrink_tries + structural.calls;
  f.shrink_bound_hit = structural.bound_hit;
  f.shrink_cut_short = f.shrink_cut_short || SecondsLeft(o.deadline, 1) <= 0;
  if (f.shrink_cut_short) {
    // No time to check the shrunk case again: its outcome is the one it held with.
    f.outcome = last_held;
    f.shrink_bound_hit = true;
    return f;
  }
  f.outcome = checker.Check(f.minimized, {original.sut})[0];
  ++f.shrink_calls;
  if (f.outcome.abandoned) {
    f.outcome = last_held;
    f.shrink_cut_short = f.shrink_bound_hit = true;
    return f;
  }
  if (!IsDiscrepancy(f.outcome.verdict) || f.outcome.verdict != outcome.verdict) {
    // A SUT that fails only sometimes (a race, a timing-dependent hang): the shrunk case did not
    // fail again, so the report shows the case that was seen failing.
    const std::string shrunk = CaseDescriptor(f.minimized.problem, original.direction);
    f.minimized = original;
    f.outcome = outcome;
    f.outcome.reason += " (not reproduced by its shrunk case " + shrunk + ": flaky)";
    f.shrink_steps.clear();
  }
  return f;
}

std::string DiscrepancySignature(const ConvCase& c, const CaseOutcome& outcome) {
  const std::string signature = BucketSignature(c, outcome.verdict, outcome.judgement.symptom);
  return outcome.notes.implementation.empty() ? signature
                                              : signature + "@" + outcome.notes.implementation;
}

std::string FindingBucket(const Finding& f) {
  return DiscrepancySignature(f.minimized, f.outcome) +
         (f.crashes_after_others ? ".after_others" : "");
}

Finding TriageAlone(const ConvCase& original, const CaseOutcome& outcome,
                    const TriageOptions& options) {
  TriageOptions o = options;
  std::unique_ptr<CaseRunner> runner;
  if (o.isolation == Isolation::kNone) {
    runner = MakeInProcessRunner(o.check);
  } else {
    if (o.worker_executable.empty()) o.worker_executable = SelfExecutable();
    WorkerPolicy policy = WorkerPolicyFor(o);
    policy.spare_worker = true;  // a hanging candidate restarts the worker
    runner = MakeIsolatedRunner(o.worker_executable, o.case_timeout, o.check, policy);
  }
  Finding f = TriageDiscrepancy(ShrinkableProblem(original.problem), original, outcome, *runner, o);
  f.bucket = FindingBucket(f);
  return f;
}

}  // namespace convparity
