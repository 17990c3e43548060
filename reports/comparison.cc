#include "reports/comparison.h"

#include <algorithm>
#include <set>

#include "reports/json_values.h"
#include "reports/utf8.h"

namespace convparity {
namespace {

using nlohmann::json;

json BucketJson(const std::optional<CampaignSummary::Bucket>& b) {
  if (!b) return nullptr;
  return {{"report", b->report_file},
          {"cases", b->cases},
          {"hits", b->hits},
          {"first_seen",
           {{"case_index", b->first_case_index}, {"seconds", RealToJson(b->first_seconds)}}},
          {"last_seen",
           {{"case_index", b->last_case_index}, {"seconds", RealToJson(b->last_seconds)}}}};
}

json RunJson(const ComparedRun& run) {
  const CampaignSummary& s = run.summary;
  return {{"folder", run.folder},
          {"convparity_version", run.tool.version},
          {"libtorch_version", run.tool.torch_version},
          {"sut_versions", s.sut_versions},
          {"start_time", Iso8601(s.start_time)},
          {"elapsed_seconds", RealToJson(s.elapsed_seconds)},
          {"cases", s.cases},
          {"buckets", static_cast<int64_t>(s.buckets.size())}};
}

}  // namespace

const char* BucketChangeName(BucketChange change) {
  switch (change) {
    case BucketChange::kNew:
      return "new";
    case BucketChange::kStillFailing:
      return "still_failing";
    case BucketChange::kFixed:
      return "fixed";
    case BucketChange::kNotDrawn:
      return "not_drawn";
    case BucketChange::kNotReplayed:
      return "not_replayed";
  }
  return "not_replayed";
}

int64_t RunComparison::Count(BucketChange change) const {
  return std::count_if(buckets.begin(), buckets.end(),
                       [&](const BucketComparison& b) { return b.change == change; });
}

RunComparison CompareSummaries(const ComparedRun& before, const ComparedRun& after) {
  RunComparison c{before, after, {}};
  std::set<std::string> signatures;
  for (const auto& [signature, bucket] : before.summary.buckets) signatures.insert(signature);
  for (const auto& [signature, bucket] : after.summary.buckets) signatures.insert(signature);
  for (const std::string& signature : signatures) {
    BucketComparison b;
    b.signature = signature;
    if (auto it = before.summary.buckets.find(signature); it != before.summary.buckets.end())
      b.before = it->second;
    if (auto it = after.summary.buckets.find(signature); it != after.summary.buckets.end())
      b.after = it->second;
    const CampaignSummary::Bucket& known = b.after ? *b.after : *b.before;
    b.sut = known.sut;
    b.direction = known.direction;
    b.verdict = known.verdict;
    b.change = !b.before ? BucketChange::kNew
               : b.after ? BucketChange::kStillFailing
                         : BucketChange::kNotReplayed;
    c.buckets.push_back(std::move(b));
  }
  return c;
}

void ApplyReplay(BucketComparison* bucket, Verdict verdict, const std::string& reason) {
  bucket->replay_verdict = VerdictName(verdict);
  bucket->replay_reason = reason;
  if (verdict == Verdict::kPassed || verdict == Verdict::kMistrusted)
    bucket->change = BucketChange::kFixed;
  else if (IsDiscrepancy(verdict))
    bucket->change = BucketChange::kNotDrawn;
  else
    bucket->change = BucketChange::kNotReplayed;
}

json ComparisonJson(const RunComparison& c) {
  json counts = json::object();
  for (BucketChange change : kAllBucketChanges) counts[BucketChangeName(change)] = c.Count(change);
  json buckets = json::array();
  for (const BucketComparison& b : c.buckets) {
    json replay = nullptr;
    if (!b.replay_verdict.empty())
      replay = {{"verdict", b.replay_verdict}, {"reason", b.replay_reason}};
    buckets.push_back({{"signature", b.signature},
                       {"sut", b.sut},
                       {"direction", b.direction},
                       {"verdict", b.verdict},
                       {"change", BucketChangeName(b.change)},
                       {"before", BucketJson(b.before)},
                       {"after", BucketJson(b.after)},
                       {"replay", replay}});
  }
  json j = {{"schema", kComparisonSchema},
            {"before", RunJson(c.before)},
            {"after", RunJson(c.after)},
            {"counts", counts},
            {"buckets", buckets}};
  MakeValidUtf8(&j);  // SUT names and reasons may come from a plugin: any bytes
  return j;
}

}  // namespace convparity
