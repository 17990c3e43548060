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
#include "harness/io/report_values.h"
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
  o.isolation = IsolationFor(f);
  o.case_timeout = f.timeout;
  o.check = context;
  o.timeout_floor = f.timeout_floor;
  o.malloc_check = f.malloc_check;
  o.shrink_seconds = f.shrink_seconds;
  o.max_shrink_calls = f.max_shrink_calls;
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
  const std::string corpus = f.corpus.empty() ? f.out + "/corpus" : f.corpus;
  Status io_error;
  CampaignHooks hooks;
  hooks.on_new_bucket = [&](const Finding& found) {
    Finding finding = found;
    DescribeFinding(finding);  // e.g. a transform finding's report and case show its graphs
    Result<std::string> case_path = WriteCaseFile(corpus, finding.minimized);
    if (!case_path.ok()) io_error = case_path.status();
    const std::string report_path = f.out + "/reports/" + ReportFileName(finding);
    const std::string case_file = case_path.ok() ? *case_path : CaseFileName(finding.minimized);
    const std::optional<SnippetValues> values = SnippetValuesOf(finding.minimized, context);
    nlohmann::json report = ReportJson(finding, ToolInfoFor(finding.minimized.problem), case_file,
                                       values ? &*values : nullptr);
    // A SUT that is a mapped name or loads code needs the same flags to be made again.
    const std::string sut_flags = context.suts.ReproFlags(finding.minimized.sut);
    for (const char* key : {"command", "descriptor_command"})
      if (report["repro"][key].is_string())
        report["repro"][key] = report["repro"][key].get<std::string>() + sut_flags;
    if (Status st = WriteFileAtomically(report_path, JsonFileText(report)); !st.ok()) io_error = st;
    std::printf("%s %s %s: %s: %s\n  report %s\n",
                CaseDescriptor(finding.minimized.problem, finding.minimized.direction).c_str(),
                finding.minimized.sut.c_str(), FillName(finding.minimized.fill),
                VerdictName(finding.outcome.verdict), finding.outcome.reason.c_str(),
                report_path.c_str());
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
      "%lld checks in %.1f s (%.0f checks/s), %zu buckets (+%lld hits); summary in "
      "%s/summary.json\n",
      static_cast<long long>(s.cases), s.elapsed_seconds,
      s.elapsed_seconds > 0 ? s.cases / s.elapsed_seconds : 0.0, s.buckets.size(),
      static_cast<long long>(hits), f.out.c_str());
  return s.buckets.empty() ? kExitParity : kExitDiscrepancy;
}

}  // namespace convparity
