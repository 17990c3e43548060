// `convparity fuzz`: a campaign. Each new bucket is written at once (minimized case into
// <out>/corpus/, report into <out>/reports/), and <out>/summary.json is rewritten at every
// checkpoint, all atomically: a campaign killed at any moment loses nothing it had reported.
// Every checkpoint's summary names the run's shard incomplete; the last one, written when the
// campaign ends by itself, does not, so a merge can tell a shard that was cancelled or died.
#include <cstdio>

#include "core/descriptor.h"
#include "harness/cli/commands.h"
#include "harness/engine/campaign.h"
#include "harness/engine/tool_info.h"
#include "harness/io/files.h"
#include "harness/io/finding_files.h"
#include "harness/suts/sut_config.h"
#include "harness/suts/sut_registry.h"
#include "harness/suts/sut_version.h"
#include "reports/json_values.h"
#include "reports/report_json.h"
#include "reports/summary_json.h"

namespace convparity {
namespace {

// A night's campaign checkpoints thousands of times: past kMaxTimePoints, every other point goes
// (the first and the newest stay), so the series keeps its shape in a summary of bounded size.
constexpr size_t kMaxTimePoints = 240;

void AddTimePoint(std::vector<CampaignSummary::TimePoint>* series,
                  const CampaignSummary::TimePoint& point) {
  series->push_back(point);
  if (series->size() <= kMaxTimePoints) return;
  std::vector<CampaignSummary::TimePoint> thinned;
  for (size_t i = 0; i < series->size(); i += 2) thinned.push_back((*series)[i]);
  if (thinned.back().seconds != point.seconds) thinned.push_back(point);
  *series = std::move(thinned);
}

}  // namespace

int RunFuzz(const Flags& f, const CheckContext& context) {
  CampaignOptions o;
  o.suts = f.suts;
  Result<std::vector<Direction>> dirs = DirectionsFor(f.directions);
  if (!dirs.ok()) return Fail(dirs.status());
  o.directions = *dirs;
  Result<std::vector<int>> dims = DimsFor(f.dims);
  if (!dims.ok()) return Fail(dims.status());
  o.dims = *dims;
  Result<std::vector<Fill>> fills = FillsFor(f.fill);
  if (!fills.ok()) return Fail(fills.status());
  o.fills = *fills;
  Result<std::pair<int, int>> shard = ShardFor(f.shard);
  if (!shard.ok()) return Fail(shard.status());
  std::tie(o.shard_index, o.shard_count) = *shard;
  o.seed = f.seed;
  o.seconds = f.seconds;
  o.max_cases = f.cases;
  o.max_macs = f.max_macs;
  o.stop_after_buckets = f.stop_after_buckets;
  o.jobs = JobsFor(f);
  static_cast<TriageOptions&>(o) = TriageOptionsFor(f, context);
  o.shrink_seconds = f.shrink_seconds;
  o.quiet = f.quiet;

  const ToolInfo tool = CurrentToolInfo();
  Result<std::map<std::string, std::string>> versions =
      SutVersions(o.suts.empty() ? OurSutNames() : o.suts, context.suts);
  if (!versions.ok()) return Fail(versions.status());
  std::vector<CampaignSummary::TimePoint> timeline;
  // What each checkpoint adds to the summary the campaign counted: versions, the series so far.
  auto stamped = [&](CampaignSummary summary, bool complete) {
    summary.sut_versions = *versions;
    summary.timeline = timeline;
    if (!complete) summary.incomplete_shards.insert(ShardText(o.shard_index, o.shard_count));
    return summary;
  };
  Status io_error;
  CampaignHooks hooks;
  hooks.on_new_bucket = [&](const Finding& found) {
    Result<FindingFiles> files = WriteFinding(found, f.out, f.corpus, context);
    if (!files.ok()) io_error = files.status();
    std::printf("%s %s %s: %s: %s\n  report %s\n",
                CaseDescriptor(found.minimized.problem, found.minimized.direction).c_str(),
                found.minimized.sut.c_str(), FillName(found.minimized.fill),
                VerdictName(found.outcome.verdict), found.outcome.reason.c_str(),
                files.ok() ? files->report_path.c_str() : files.status().message().c_str());
    std::fflush(stdout);
  };
  auto write_summary = [&](const CampaignSummary& summary) {
    if (Status st =
            WriteFileAtomically(f.out + "/summary.json", JsonFileText(SummaryJson(summary, tool)));
        !st.ok())
      io_error = st;
  };
  hooks.on_checkpoint = [&](const CampaignSummary& summary) {
    AddTimePoint(&timeline, {summary.elapsed_seconds, summary.cases,
                             static_cast<int64_t>(summary.buckets.size())});
    write_summary(stamped(summary, /*complete=*/false));
  };
  Result<CampaignSummary> result = RunCampaign(o, hooks);
  if (!result.ok()) return Fail(result.status());
  const CampaignSummary s = stamped(*result, /*complete=*/!CampaignStopRequested());
  write_summary(s);
  if (!io_error.ok()) return Fail(io_error);
  int64_t hits = 0;
  for (const auto& [signature, bucket] : s.buckets) hits += bucket.hits;
  std::printf(
      "%lld checks in %.1f s: %lld computed (%.0f/s), %lld skipped; %zu buckets (+%lld hits); "
      "summary in %s/summary.json\n",
      static_cast<long long>(s.cases), s.elapsed_seconds, static_cast<long long>(s.computed),
      s.elapsed_seconds > 0 ? s.computed / s.elapsed_seconds : 0.0,
      static_cast<long long>(s.skipped), s.buckets.size(), static_cast<long long>(hits),
      f.out.c_str());
  return s.buckets.empty() ? kExitParity : kExitDiscrepancy;
}

}  // namespace convparity
