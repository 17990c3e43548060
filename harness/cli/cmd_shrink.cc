// `convparity shrink <case.json>`: minimizes a failing case along the structural shrink tree
// (generators/problem_shrink.h), keeping its verdict, and writes the minimal case.
#include <cstdio>

#include "core/descriptor.h"
#include "generators/problem_shrink.h"
#include "harness/cli/commands.h"
#include "harness/engine/case_runner.h"
#include "harness/engine/check_case.h"
#include "harness/engine/shrink_search.h"
#include "harness/io/case_files.h"
#include "harness/io/files.h"
#include "harness/suts/sut_config.h"
#include "harness/suts/sut_registry.h"

namespace convparity {

int RunShrink(const std::string& case_path, const Flags& f, const CheckContext& context) {
  Result<std::vector<LoadedCase>> loaded = LoadCaseFiles({case_path});
  if (!loaded.ok()) return Fail(loaded.status());
  if (loaded->size() != 1) return Fail(Status::Invalid(case_path + ": expected one case file"));
  const ConvCase original = loaded->front().c;
  // A case file is data: its SUT must be one the user allowed, before it is made.
  if (Status st = context.suts.AllowsFromCaseFile(original.sut).WithContext(case_path); !st.ok())
    return Fail(st);
  // Before a worker starts: an illegal or oversized case is bad input (exit 2), not a verdict.
  if (Status st = CheckLimits(original.problem, context.limits); !st.ok())
    return Fail(st.WithContext(case_path));
  if (Result<std::unique_ptr<ConvSut>> sut = MakeSut(original.sut, context.suts); !sut.ok())
    return Fail(sut.status().WithContext(case_path));
  std::unique_ptr<CaseRunner> runner = MakeRunner({IsolationFor(f), f.timeout, 1, context});
  const CaseOutcome first = runner->Check(original, {original.sut})[0];
  if (first.verdict == Verdict::kInvalid)
    return Fail(Status::Invalid(case_path + ": " + first.reason));
  std::printf("%s %s %s: %s\n", CaseTitle(original).c_str(), original.sut.c_str(),
              FillName(original.fill), VerdictName(first.verdict));
  if (!IsDiscrepancy(first.verdict)) {
    std::printf("it does not fail: nothing to shrink\n");
    return kExitDiscrepancy;
  }
  std::function<bool(const ConvProblem&)> fails = [&](const ConvProblem& p) {
    ConvCase candidate = original;
    candidate.problem = p;
    return runner->Check(candidate, {original.sut})[0].verdict == first.verdict;
  };
  SearchOptions options;
  options.max_seconds = f.seconds;
  SearchResult<ConvProblem> result;
  ShrinkInto(ShrinkableProblem(original.problem), fails, options, result);
  for (const ConvProblem& step : result.steps)
    if (!f.quiet) std::printf("  -> %s\n", CaseDescriptor(step, original.direction).c_str());
  ConvCase minimal = original;
  minimal.problem = *result.shrunk;
  Result<std::string> path = WriteCaseFile(f.out + "/corpus", minimal);
  if (!path.ok()) return Fail(path.status());
  std::printf("shrunk in %lld steps (%lld tries, %.2f s%s): %s\nwritten to %s\n",
              static_cast<long long>(result.shrink_steps),
              static_cast<long long>(result.shrink_tries), result.shrink_seconds,
              result.shrink_complete ? "" : ", budget spent", CaseTitle(minimal).c_str(),
              path->c_str());
  return kExitParity;
}

}  // namespace convparity
