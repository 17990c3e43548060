#include "reports/summary_json.h"

#include <algorithm>
#include <cstdint>

#include "core/features.h"
#include "reports/json_values.h"
#include "reports/utf8.h"

namespace convparity {
namespace {

using nlohmann::json;

// Work out a rate without dividing by zero: a run that took no time has no rate.
double Rate(double count, double seconds) { return seconds > 0 ? count / seconds : 0.0; }

}  // namespace

std::string ShardText(int index, int count) {
  return std::to_string(index) + "/" + std::to_string(count);
}

std::vector<std::string> VerdictNames() {
  std::vector<std::string> names;
  for (int v = 0; v <= static_cast<int>(kLastVerdict); ++v)
    names.push_back(VerdictName(static_cast<Verdict>(v)));
  return names;
}

std::vector<std::string> SymptomNames() {
  std::vector<std::string> names;
  for (int v = static_cast<int>(Symptom::kNone) + 1; v <= static_cast<int>(kLastSymptom); ++v)
    names.push_back(SymptomName(static_cast<Symptom>(v)));
  return names;
}

const std::vector<std::string>& CoverageKeyClasses() {
  static const std::vector<std::string> classes{
      "transposed",         "grouped",       "stride>1", "dilation>1", "output_padding>0",
      "asymmetric_padding", "channels_last", "kernel>5"};
  return classes;
}

std::vector<std::string> MissingShards(const CampaignSummary& s) {
  std::set<std::string> covered = s.merged_shards;
  covered.insert(ShardText(s.options.shard_index, s.options.shard_count));
  std::vector<std::string> missing;
  for (int i = 0; i < s.options.shard_count; ++i)
    if (!covered.count(ShardText(i, s.options.shard_count)))
      missing.push_back(ShardText(i, s.options.shard_count));
  return missing;
}

bool CampaignSummary::Bucket::SeenBefore(const Bucket& other) const {
  return first_seconds < other.first_seconds ||
         (first_seconds == other.first_seconds && first_case_index < other.first_case_index);
}

json SummaryJson(const CampaignSummary& s, const ToolInfo& tool) {
  const CampaignSummary::Options& o = s.options;
  std::set<std::string> shards = s.merged_shards;
  shards.insert(ShardText(o.shard_index, o.shard_count));

  std::map<std::string, int64_t> verdict_totals;
  for (const auto& [sut, by_direction] : s.verdicts)
    for (const auto& [direction, by_verdict] : by_direction)
      for (const auto& [verdict, n] : by_verdict) verdict_totals[verdict] += n;
  for (const std::string& v : VerdictNames()) verdict_totals.try_emplace(v, 0);

  json buckets = json::array();
  for (const auto& [signature, b] : s.buckets) {
    buckets.push_back(
        {{"signature", signature},
         {"report", b.report_file},
         {"sut", b.sut},
         {"direction", b.direction},
         {"verdict", b.verdict},
         {"cases", b.cases},
         {"hits", b.hits},
         {"shrink",
          {{"triaged", b.shrink.triaged},
           {"steps", b.shrink.steps},
           {"calls", b.shrink.calls},
           {"bound_hit", b.shrink.bound_hit},
           {"cut_short", b.shrink.cut_short},
           {"macs", b.shrink.macs},
           {"seconds", RealToJson(b.shrink.seconds)},
           {"cases_beside", b.shrink.cases_beside}}},
         {"first_seen",
          {{"case_index", b.first_case_index}, {"seconds", RealToJson(b.first_seconds)}}},
         {"last_seen",
          {{"case_index", b.last_case_index}, {"seconds", RealToJson(b.last_seconds)}}}});
    if (!b.symptom.empty()) buckets.back()["symptom"] = b.symptom;
  }
  int64_t hits = 0;
  for (const auto& [signature, b] : s.buckets) hits += b.hits;

  // Every tag and every pair appears, zeros included: a nightly run shows what it did not test.
  json tags = json::object();
  for (const std::string& tag : AllFeatureTagNames()) {
    auto it = s.tags.find(tag);
    tags[tag] = it == s.tags.end() ? 0 : it->second;
  }
  const std::vector<std::string>& classes = CoverageKeyClasses();
  auto every_pair = [&](const std::map<std::string, int64_t>& counts) {
    json pairs = json::object();
    for (size_t i = 0; i < classes.size(); ++i) {
      for (size_t j = i + 1; j < classes.size(); ++j) {
        const std::string key = classes[i] + "&" + classes[j];
        auto it = counts.find(key);
        pairs[key] = it == counts.end() ? 0 : it->second;
      }
    }
    return pairs;
  };
  const json pairs = every_pair(s.pairs);

  json timeline = json::array();
  for (const CampaignSummary::TimePoint& p : s.timeline)
    timeline.push_back(
        {{"seconds", RealToJson(p.seconds)}, {"cases", p.cases}, {"distinct", p.distinct}});

  json invalid_files = json::array();
  for (const CampaignSummary::InvalidFile& f : s.invalid_files)
    invalid_files.push_back({{"file", f.file}, {"reason", f.reason}});

  const double rate = Rate(static_cast<double>(s.cases), s.elapsed_seconds);
  const double computed_rate = Rate(static_cast<double>(s.computed), s.elapsed_seconds);
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
      {"cases",
       {{"total", s.cases},
        {"computed", s.computed},
        {"outside", s.outside},
        {"by_verdict", verdict_totals},
        {"by_sut", s.verdicts}}},
      {"buckets", buckets},
      {"findings",
       {{"distinct", static_cast<int64_t>(s.buckets.size())},
        {"hits", hits},
        {"untriaged", s.untriaged}}},
      {"shrinking",
       {{"triaged", s.shrinking.triaged},
        {"steps", s.shrinking.steps},
        {"calls", s.shrinking.calls},
        {"bound_hits", s.shrinking.bound_hits},
        {"cut_short", s.shrinking.cut_short},
        {"seconds", RealToJson(s.shrinking.seconds)}}},
      {"throughput",
       {{"workers", s.workers},
        {"cases_per_second", RealToJson(rate)},
        {"cases_per_second_per_worker", RealToJson(rate / std::max(s.workers, 1))},
        {"computed_per_second", RealToJson(computed_rate)},
        {"computed_per_second_per_worker", RealToJson(computed_rate / std::max(s.workers, 1))}}},
      {"time_seconds",
       {{"generate", RealToJson(t.generate)},
        {"fill", RealToJson(t.fill)},
        {"oracle", RealToJson(t.oracle)},
        {"bound", RealToJson(t.bound)},
        {"sut", RealToJson(t.sut)},
        {"compare", RealToJson(t.compare)},
        {"shrink", RealToJson(t.shrink)},
        {"io", RealToJson(t.io)},
        {"protocol", RealToJson(t.protocol)},
        {"idle", RealToJson(t.idle)}}},
      {"coverage",
       {{"cases", s.covered},
        {"tags", tags},
        {"pairs", pairs},
        {"pairs_skipped", every_pair(s.pairs_skipped)},
        {"pairs_failed", every_pair(s.pairs_failed)},
        {"combinations", s.combinations}}},
      {"slow",
       {{"cases", s.slow.cases},
        {"slowest_seconds", RealToJson(s.slow.slowest_seconds)},
        {"slowest", s.slow.slowest}}},
      {"mistrusted", s.mistrusted},
      {"skipped", {{"total", s.skipped}, {"reasons", s.skip_reasons}}},
      {"implementations", s.implementations},
      {"sut_versions", s.sut_versions},
      {"mixed_versions", s.mixed_versions},
      {"incomplete_shards",
       std::vector<std::string>(s.incomplete_shards.begin(), s.incomplete_shards.end())},
      {"missing_shards", MissingShards(s)},
      {"timeline", timeline},
      {"bound_use", s.bound_use},
      {"invalid_files", invalid_files}};
  // SUT names and skip reasons may come from a plugin, file names from anywhere: any bytes.
  MakeValidUtf8(&summary);
  return summary;
}

}  // namespace convparity
