#include "harness/engine/compare_runs.h"

#include <filesystem>
#include <nlohmann/json.hpp>
#include <vector>

#include "core/conv_case.h"
#include "harness/engine/check_case.h"
#include "harness/io/files.h"

namespace convparity {
namespace {

Result<nlohmann::json> ReadJsonFile(const std::string& path) {
  Result<std::string> text = ReadFile(path);
  if (!text.ok()) return text.status();
  nlohmann::json j = nlohmann::json::parse(*text, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded()) return Status::Invalid(path + ": not valid JSON");
  return j;
}

// The minimal case of a report (convparity.report/1 keeps it whole under "case").
Result<ConvCase> ReportedCase(const std::string& path) {
  Result<nlohmann::json> report = ReadJsonFile(path);
  if (!report.ok()) return report.status();
  if (!report->is_object() || !report->contains("case"))
    return Status::Invalid(path + ": no \"case\" (not a convparity report)");
  Result<ConvCase> c = CaseFromJson(report->at("case"));
  if (!c.ok()) return c.status().WithContext(path);
  return c;
}

}  // namespace

Result<ComparedRun> ReadComparedRun(const std::string& folder) {
  std::error_code ec;
  if (!std::filesystem::is_directory(folder, ec))
    return Status::Invalid(folder + ": no such folder");
  const std::string path = folder + "/summary.json";
  Result<nlohmann::json> j = ReadJsonFile(path);
  if (!j.ok()) return j.status();
  ComparedRun run{folder, {}, {}};
  Result<CampaignSummary> summary = SummaryFromJson(*j, &run.tool);
  if (!summary.ok()) return summary.status().WithContext(path);
  run.summary = *std::move(summary);
  return run;
}

Result<RunComparison> CompareRunFolders(const std::string& before, const std::string& after,
                                        const RunnerOptions& options) {
  Result<ComparedRun> last = ReadComparedRun(before);
  if (!last.ok()) return last.status();
  Result<ComparedRun> tonight = ReadComparedRun(after);
  if (!tonight.ok()) return tonight.status();
  RunComparison c = CompareSummaries(*last, *tonight);

  std::vector<ConvCase> cases;
  std::vector<BucketComparison*> replayed;
  for (BucketComparison& b : c.buckets) {
    if (b.after) continue;
    if (b.before->report_file.empty()) {
      b.replay_reason = "its run wrote no report, so there is no case to replay";
      continue;
    }
    const std::string path = before + "/reports/" + b.before->report_file;
    Result<ConvCase> gone = ReportedCase(path);
    if (!gone.ok()) {
      b.replay_reason = gone.status().message();
      continue;
    }
    CP_RETURN_IF_ERROR(options.context.suts.AllowsFromCaseFile(gone->sut).WithContext(path));
    CP_RETURN_IF_ERROR(CheckCaseLimits(*gone, options.context.limits).WithContext(path));
    cases.push_back(*gone);
    replayed.push_back(&b);
  }
  const std::vector<CaseOutcome> outcomes = RunCases(cases, options);
  for (size_t i = 0; i < replayed.size() && i < outcomes.size(); ++i)
    ApplyReplay(replayed[i], outcomes[i].verdict, outcomes[i].reason);
  return c;
}

}  // namespace convparity
