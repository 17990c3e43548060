#include "reports/summary_json.h"

#include <algorithm>

#include "core/features.h"
#include "reports/json_values.h"
#include "reports/utf8.h"

namespace convparity {
namespace {

using nlohmann::json;

constexpr size_t kMaxReasonBytes = 200;

// "grouped" in the coverage table means groups > 1, depthwise included.
bool HasClass(const std::vector<std::string>& tags, const std::string& k) {
  auto has = [&](const std::string& t) {
    return std::find(tags.begin(), tags.end(), t) != tags.end();
  };
  return k == "grouped" ? has("grouped") || has("depthwise") : has(k);
}

// Kind and rank, then the classes INTERFACES.md crosses: "t3d+grouped+dilation>1+kernel>5".
std::string CombinationKey(const ConvProblem& p, const std::vector<std::string>& tags) {
  std::string key = (p.transposed ? "t" : "") + std::to_string(p.rank) + "d";
  for (const char* k : {"grouped", "dilation>1", "output_padding>0", "channels_last", "kernel>5"})
    if (HasClass(tags, k)) key += std::string("+") + k;
  return key;
}

void AddReason(std::map<std::string, int64_t>* reasons, const std::string& reason, int64_t n) {
  std::string key = reason.empty() ? "(no reason given)" : reason.substr(0, kMaxReasonBytes);
  if (!reasons->count(key) && reasons->size() >= CampaignSummary::kMaxSkipReasons)
    key = CampaignSummary::kOtherReasons;
  (*reasons)[key] += n;
}

// Work out a rate without dividing by zero: a run that took no time has no rate.
double Rate(double count, double seconds) { return seconds > 0 ? count / seconds : 0.0; }

std::string ShardText(int index, int count) {
  return std::to_string(index) + "/" + std::to_string(count);
}

}  // namespace

const std::vector<std::string>& CoverageKeyClasses() {
  static const std::vector<std::string> classes{
      "transposed",         "grouped",       "stride>1", "dilation>1", "output_padding>0",
      "asymmetric_padding", "channels_last", "kernel>5"};
  return classes;
}

void CampaignSummary::Count(const ConvCase& c, const CaseOutcome& outcome, bool count_shared_time) {
  ++cases;
  ++verdicts[c.sut][DirectionName(c.direction)][VerdictName(outcome.verdict)];
  if (count_shared_time) {
    time.fill += outcome.timing.fill;
    time.oracle += outcome.timing.oracle;
  }
  time.sut += outcome.timing.sut;
  time.compare += outcome.timing.compare;
  if (outcome.verdict == Verdict::kMistrusted) ++mistrusted;
  if (outcome.verdict == Verdict::kSkipped) {
    ++skipped;
    AddReason(&skip_reasons, outcome.reason, 1);
  }
  if (outcome.verdict == Verdict::kSkipped || outcome.verdict == Verdict::kInvalid) return;
  ++covered;
  const std::vector<std::string> t = FeatureTags(c.problem);
  for (const std::string& tag : t) ++tags[tag];
  std::vector<std::string> present;
  for (const std::string& k : CoverageKeyClasses())
    if (HasClass(t, k)) present.push_back(k);
  for (size_t i = 0; i < present.size(); ++i)
    for (size_t j = i + 1; j < present.size(); ++j) ++pairs[present[i] + "&" + present[j]];
  ++combinations[CombinationKey(c.problem, t)];
}

void CampaignSummary::CountFinding(const std::string& signature, const ConvCase& minimized,
                                   Verdict verdict, const std::string& report_file,
                                   int64_t case_index, double seconds) {
  auto [it, inserted] = buckets.try_emplace(signature);
  Bucket& b = it->second;
  if (inserted) {
    b.report_file = report_file;
    b.sut = minimized.sut;
    b.direction = DirectionName(minimized.direction);
    b.verdict = VerdictName(verdict);
    b.first_case_index = case_index;
    b.first_seconds = seconds;
  }
  ++b.cases;
}

void CampaignSummary::Merge(const CampaignSummary& other) {
  // A default time point (the epoch) means "not set": it must not widen the range.
  const std::chrono::system_clock::time_point unset{};
  if (other.start_time != unset)
    start_time = start_time == unset ? other.start_time : std::min(start_time, other.start_time);
  if (other.end_time != unset) end_time = std::max(end_time, other.end_time);
  elapsed_seconds = std::max(elapsed_seconds, other.elapsed_seconds);
  workers += other.workers;
  cases += other.cases;
  for (const auto& [sut, by_direction] : other.verdicts)
    for (const auto& [direction, by_verdict] : by_direction)
      for (const auto& [verdict, n] : by_verdict) verdicts[sut][direction][verdict] += n;
  for (const auto& [signature, theirs] : other.buckets) {
    auto [it, inserted] = buckets.try_emplace(signature, theirs);
    if (inserted) continue;
    Bucket& ours = it->second;
    const int64_t total = ours.cases + theirs.cases;
    const bool earlier = theirs.first_seconds < ours.first_seconds ||
                         (theirs.first_seconds == ours.first_seconds &&
                          theirs.first_case_index < ours.first_case_index);
    if (earlier || ours.report_file.empty()) ours = theirs;
    ours.cases = total;
  }
  time.generate += other.time.generate;
  time.fill += other.time.fill;
  time.oracle += other.time.oracle;
  time.bound += other.time.bound;
  time.sut += other.time.sut;
  time.compare += other.time.compare;
  time.shrink += other.time.shrink;
  time.io += other.time.io;
  covered += other.covered;
  for (const auto& [k, n] : other.tags) tags[k] += n;
  for (const auto& [k, n] : other.pairs) pairs[k] += n;
  for (const auto& [k, n] : other.combinations) combinations[k] += n;
  mistrusted += other.mistrusted;
  skipped += other.skipped;
  for (const auto& [reason, n] : other.skip_reasons) AddReason(&skip_reasons, reason, n);
  const std::string own = ShardText(options.shard_index, options.shard_count);
  const std::string theirs = ShardText(other.options.shard_index, other.options.shard_count);
  if (theirs != own) merged_shards.insert(theirs);
  for (const std::string& shard : other.merged_shards)
    if (shard != own) merged_shards.insert(shard);
}

json SummaryJson(const CampaignSummary& s, const ToolInfo& tool) {
  const CampaignSummary::Options& o = s.options;
  std::set<std::string> shards = s.merged_shards;
  shards.insert(ShardText(o.shard_index, o.shard_count));

  std::map<std::string, int64_t> verdict_totals;
  for (const auto& [sut, by_direction] : s.verdicts)
    for (const auto& [direction, by_verdict] : by_direction)
      for (const auto& [verdict, n] : by_verdict) verdict_totals[verdict] += n;
  for (int v = 0; v <= static_cast<int>(Verdict::kHung); ++v)
    verdict_totals.try_emplace(VerdictName(static_cast<Verdict>(v)), 0);

  json buckets = json::array();
  for (const auto& [signature, b] : s.buckets)
    buckets.push_back(
        {{"signature", signature},
         {"report", b.report_file},
         {"sut", b.sut},
         {"direction", b.direction},
         {"verdict", b.verdict},
         {"cases", b.cases},
         {"first_seen",
          {{"case_index", b.first_case_index}, {"seconds", RealToJson(b.first_seconds)}}}});

  // Every tag and every pair appears, zeros included: a nightly run shows what it did not test.
  json tags = json::object();
  for (const std::string& tag : AllFeatureTagNames()) {
    auto it = s.tags.find(tag);
    tags[tag] = it == s.tags.end() ? 0 : it->second;
  }
  json pairs = json::object();
  const std::vector<std::string>& classes = CoverageKeyClasses();
  for (size_t i = 0; i < classes.size(); ++i) {
    for (size_t j = i + 1; j < classes.size(); ++j) {
      const std::string key = classes[i] + "&" + classes[j];
      auto it = s.pairs.find(key);
      pairs[key] = it == s.pairs.end() ? 0 : it->second;
    }
  }

  const double rate = Rate(static_cast<double>(s.cases), s.elapsed_seconds);
  const CampaignSummary::TimeSplit& t = s.time;
  json summary = {
      {"schema", kSummarySchema},
      {"tool",
       {{"name", kToolName},
        {"version", tool.version},
        {"libtorch_version", tool.torch_version},
        {"oracle_backend", tool.oracle_backend}}},
      {"options",
       {{"seed", o.seed},
        {"shard", {{"index", o.shard_index}, {"count", o.shard_count}}},
        {"jobs", o.jobs},
        {"time_budget_seconds", RealToJson(o.time_budget_seconds)},
        {"max_cases", o.max_cases},
        {"max_macs", o.max_macs},
        {"suts", o.suts},
        {"directions", o.directions},
        {"fills", o.fills},
        {"dims", o.dims}}},
      {"shards", std::vector<std::string>(shards.begin(), shards.end())},
      {"start_time", Iso8601(s.start_time)},
      {"end_time", Iso8601(s.end_time)},
      {"elapsed_seconds", RealToJson(s.elapsed_seconds)},
      {"cases", {{"total", s.cases}, {"by_verdict", verdict_totals}, {"by_sut", s.verdicts}}},
      {"buckets", buckets},
      {"throughput",
       {{"workers", s.workers},
        {"cases_per_second", RealToJson(rate)},
        {"cases_per_second_per_worker", RealToJson(rate / std::max(s.workers, 1))}}},
      {"time_seconds",
       {{"generate", RealToJson(t.generate)},
        {"fill", RealToJson(t.fill)},
        {"oracle", RealToJson(t.oracle)},
        {"bound", RealToJson(t.bound)},
        {"sut", RealToJson(t.sut)},
        {"compare", RealToJson(t.compare)},
        {"shrink", RealToJson(t.shrink)},
        {"io", RealToJson(t.io)}}},
      {"coverage",
       {{"cases", s.covered}, {"tags", tags}, {"pairs", pairs}, {"combinations", s.combinations}}},
      {"mistrusted", s.mistrusted},
      {"skipped", {{"total", s.skipped}, {"reasons", s.skip_reasons}}}};
  MakeValidUtf8(&summary);  // SUT names and skip reasons may come from a plugin: any bytes
  return summary;
}

}  // namespace convparity
