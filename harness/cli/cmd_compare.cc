// `convparity compare <before> <after> [--out FILE] [--json]`: last night's run folder against
// tonight's (harness/engine/compare_runs.h). Prints a line per bucket that changed and the counts;
// --out writes the comparison (convparity.comparison/1), --json prints it instead of the lines.
// Exit 1 when tonight found a bucket last night did not (a nightly job's gate), 0 when not, 2 on
// bad input.
#include <cstdio>

#include "harness/cli/commands.h"
#include "harness/engine/compare_runs.h"
#include "harness/io/files.h"
#include "reports/json_values.h"

namespace convparity {
namespace {

void PrintComparison(const RunComparison& c) {
  for (const BucketComparison& b : c.buckets) {
    if (b.change == BucketChange::kStillFailing) continue;  // the counts say how many
    std::printf("%-13s %s", BucketChangeName(b.change), b.signature.c_str());
    if (!b.replay_verdict.empty() || !b.replay_reason.empty())
      std::printf(" (replayed: %s%s%s)", b.replay_verdict.c_str(),
                  b.replay_reason.empty() || b.replay_verdict.empty() ? "" : ": ",
                  b.replay_reason.c_str());
    std::printf("\n");
  }
  std::printf("%lld new, %lld still failing, %lld fixed, %lld not drawn, %lld not replayed\n",
              static_cast<long long>(c.Count(BucketChange::kNew)),
              static_cast<long long>(c.Count(BucketChange::kStillFailing)),
              static_cast<long long>(c.Count(BucketChange::kFixed)),
              static_cast<long long>(c.Count(BucketChange::kNotDrawn)),
              static_cast<long long>(c.Count(BucketChange::kNotReplayed)));
}

}  // namespace

int RunCompare(const std::string& before, const std::string& after, const Flags& f,
               const CheckContext& context) {
  const std::string& out = f.comparison_out;
  const RunnerOptions options = RunnerFor(f, context);
  Result<RunComparison> c = CompareRunFolders(before, after, options);
  if (!c.ok()) return Fail(c.status());
  const nlohmann::json j = ComparisonJson(*c);
  if (!out.empty())
    if (Status st = WriteFileAtomically(out, JsonFileText(j)); !st.ok()) return Fail(st);
  if (f.json)
    std::printf("%s", JsonFileText(j).c_str());
  else
    PrintComparison(*c);
  return c->Count(BucketChange::kNew) > 0 ? kExitDiscrepancy : kExitParity;
}

}  // namespace convparity
