// `convparity shrink <case.json>`: triages a failing case as a campaign triages a discrepancy
// (harness/engine/triage.h: a crash confirmed alone, the shrink tree, then the structural pass to
// a 1-minimal case) and writes the finding as a campaign does: the minimal case into
// <out>/corpus/ and its report into <out>/reports/.
#include <cstdio>

#include "core/descriptor.h"
#include "harness/cli/commands.h"
#include "harness/engine/case_runner.h"
#include "harness/engine/check_case.h"
#include "harness/engine/triage.h"
#include "harness/io/case_files.h"
#include "harness/io/finding_files.h"
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
  // Before a worker starts: an illegal or oversized case (a chain with its residual convolution)
  // is bad input (exit 2), not a verdict.
  if (Status st = CheckCaseLimits(original, context.limits); !st.ok())
    return Fail(st.WithContext(case_path));
  if (Result<std::unique_ptr<Sut>> sut = MakeSut(original.sut, context.suts); !sut.ok())
    return Fail(sut.status().WithContext(case_path));
  const CaseOutcome first =
      MakeRunner({IsolationFor(f), f.timeout, 1, context})->Check(original, {original.sut})[0];
  if (first.verdict == Verdict::kInvalid)
    return Fail(Status::Invalid(case_path + ": " + first.reason));
  std::printf("%s %s %s: %s\n", CaseTitle(original).c_str(), original.sut.c_str(),
              FillName(original.fill), VerdictName(first.verdict));
  if (!IsDiscrepancy(first.verdict)) {
    std::printf("it does not fail: nothing to shrink\n");
    return kExitDiscrepancy;
  }
  TriageOptions triage = TriageOptionsFor(f, context);
  triage.shrink_seconds = f.seconds;  // shrinking is all this command does: --time is its budget
  const Finding found = TriageAlone(original, first, triage);
  if (!f.quiet)
    for (const std::string& step : found.shrink_steps) std::printf("  -> %s\n", step.c_str());
  Result<FindingFiles> files = WriteFinding(found, f.out, "", context);
  if (!files.ok()) return Fail(files.status());
  std::printf("shrunk in %zu steps (%lld SUT calls%s): %s %s: %s\nwritten to %s\nreport %s\n",
              found.shrink_steps.size(), static_cast<long long>(found.shrink_calls),
              found.shrink_bound_hit ? ", budget spent" : "", CaseTitle(found.minimized).c_str(),
              found.minimized.sut.c_str(), VerdictName(found.outcome.verdict),
              files->case_path.c_str(), files->report_path.c_str());
  return kExitParity;
}

}  // namespace convparity
