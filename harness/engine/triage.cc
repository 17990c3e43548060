#include "harness/engine/triage.h"

#include <algorithm>
#include <chrono>
#include <functional>
#include <memory>

#include "core/descriptor.h"
#include "harness/engine/shrink_search.h"
#include "harness/engine/shrink_structural.h"

namespace convparity {
namespace {

// The share of the shrink budget the shrink tree may take; the structural pass gets the rest, so
// that the reported case is 1-minimal even when the tree was slow.
constexpr double kTreeShare = 0.5;

std::unique_ptr<CaseRunner> FreshWorkerRunner(const TriageOptions& o) {
  WorkerPolicy policy;
  policy.fresh_per_case = true;
  policy.spare_worker = true;
  policy.timeout_floor_seconds = o.timeout_floor;
  policy.malloc_check = o.malloc_check;
  return MakeIsolatedRunner(o.worker_executable, o.case_timeout, o.check, policy);
}

}  // namespace

Finding TriageDiscrepancy(const rc::Shrinkable<ConvProblem>& drawn, const ConvCase& original,
                          const CaseOutcome& outcome, CaseRunner& runner, const TriageOptions& o) {
  Finding f{original, outcome, original, outcome, {}};
  const bool crash = outcome.verdict == Verdict::kCrashed && o.isolate;
  std::unique_ptr<CaseRunner> fresh = crash ? FreshWorkerRunner(o) : nullptr;
  CaseRunner& checker = crash ? *fresh : runner;
  if (crash) {
    // A worker that crashed had run other cases first: heap corruption from one of them may have
    // crashed this one. Only a crash alone in a fresh worker is this case's own.
    const CaseOutcome alone = checker.Check(original, {original.sut})[0];
    if (alone.verdict != Verdict::kCrashed) {
      f.crashes_after_others = true;
      f.outcome.reason +=
          " (only after other cases ran in the same worker, heap state from "
          "earlier cases; alone in a fresh worker: " +
          std::string(VerdictName(alone.verdict)) + ")";
      return f;
    }
  }
  // A crash's candidates run in the triage's own worker, which a crash replaces by a fresh one: a
  // candidate that crashes as a fresh worker's first case crashed alone; one that crashes after
  // others ran there is run again alone (a fresh worker per candidate costs a libtorch start each).
  int64_t since_fresh = crash ? 1 : 0;  // cases the current worker ran; `fresh` ran the first
  std::function<bool(const ConvCase&)> holds = [&](const ConvCase& candidate) {
    // The same verdict from the same implementation: shrinking must not wander off to another of
    // the SUT's code paths.
    CaseOutcome got = runner.Check(candidate, {original.sut})[0];
    if (crash) {
      if (got.verdict == Verdict::kCrashed && since_fresh > 0)
        got = checker.Check(candidate, {original.sut})[0];
      since_fresh = got.verdict == Verdict::kCrashed ? 0 : since_fresh + 1;
    }
    return got.verdict == outcome.verdict &&
           got.notes.implementation == outcome.notes.implementation;
  };
  const auto start = std::chrono::steady_clock::now();
  SearchOptions tree;
  tree.max_seconds = o.shrink_seconds * kTreeShare;
  tree.max_shrink_tries = o.max_shrink_calls / 2;
  SearchResult<ConvProblem> tree_result;
  std::function<bool(const ConvProblem&)> problem_holds = [&](const ConvProblem& p) {
    ConvCase candidate = original;
    candidate.problem = p;
    return holds(candidate);
  };
  // A crash's or a hang's every accepted step costs a worker restart (and a hang the timeout): the
  // coarse reductions of the structural pass take far fewer steps than the shrink tree's.
  const bool costly = outcome.verdict == Verdict::kCrashed || outcome.verdict == Verdict::kHung;
  tree_result.shrunk = original.problem;
  if (!costly) ShrinkInto(drawn, problem_holds, tree, tree_result);
  ConvCase after_tree = original;
  after_tree.problem = *tree_result.shrunk;
  StructuralShrinkBounds bounds;
  bounds.max_calls = std::max<int64_t>(o.max_shrink_calls - tree_result.shrink_tries, 1);
  bounds.max_seconds = std::max(o.shrink_seconds - SecondsSince(start), 1.0);
  const StructuralShrinkResult structural = ShrinkToOneMinimal(after_tree, holds, bounds);
  f.minimized = structural.shrunk;
  for (const ConvProblem& p : tree_result.steps)
    f.shrink_steps.push_back(CaseDescriptor(p, original.direction));
  for (const ConvCase& c : structural.steps)
    f.shrink_steps.push_back(
        CaseDescriptor(c.problem, c.direction) +
        (c.fill != original.fill ? std::string(" fill ") + FillName(c.fill) : std::string()));
  f.shrink_calls = tree_result.shrink_tries + structural.calls;
  f.shrink_bound_hit = structural.bound_hit;
  f.outcome = checker.Check(f.minimized, {original.sut})[0];
  ++f.shrink_calls;
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

}  // namespace convparity
