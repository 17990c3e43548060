// What a nightly run needs of its summaries (summary/3) and of their comparison: a bucket several
// shards found is one finding with its hits added and its first and last sighting kept, the series
// over time and the bound's use add up, missing shards are named, and two runs' buckets are told
// apart as new, still failing, fixed and not drawn.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "core/descriptor.h"
#include "harness/engine/summary_counts.h"
#include "reports/comparison.h"
#include "reports/summary_json.h"

namespace convparity {
namespace {

using nlohmann::json;

const ToolInfo kTool{"0.1.0", "1.13.1", "cpu"};

ConvCase CaseOf(const std::string& descriptor, Fill fill = Fill::kExact) {
  Result<ParsedDescriptor> p = ParseDescriptor(descriptor);
  EXPECT_TRUE(p.ok()) << p.status().message();
  return ConvCase{p->problem, Direction::kForward, "direct", fill, 1};
}

CaseOutcome Judged(Verdict v, double bound_use) {
  CaseOutcome o;
  o.verdict = v;
  o.judgement.max_bound_use = bound_use;
  return o;
}

TEST(NightlySummary, AShardsHitsMoveTheLastSightingNotTheFirst) {
  CampaignSummary s;
  CountFinding(&s, "sig", ConvCase{}, Verdict::kFailed, Symptom::kWrong, "sig.json", 3, 0.5);
  CountHit(&s, "sig", 40, 7.5);
  CountHit(&s, "sig", 20, 2.0);  // counted late, seen earlier: not the last
  CountHit(&s, "sig");           // when is not known: the last stays
  const CampaignSummary::Bucket& b = s.buckets.at("sig");
  EXPECT_EQ(b.first_case_index, 3);
  EXPECT_EQ(b.first_seconds, 0.5);
  EXPECT_EQ(b.last_case_index, 40);
  EXPECT_EQ(b.last_seconds, 7.5);
  EXPECT_EQ(b.cases, 4);
  EXPECT_EQ(b.hits, 3);
  EXPECT_EQ(SummaryJson(s, kTool)["buckets"][0]["last_seen"],
            (json{{"case_index", 40}, {"seconds", 7.5}}));
}

TEST(NightlySummary, MergeIsOneFindingWithHitsAddedAndBothEndsKept) {
  CampaignSummary a, b;
  a.options.shard_count = b.options.shard_count = 2;
  b.options.shard_index = 1;
  CountFinding(&a, "sig", ConvCase{}, Verdict::kFailed, Symptom::kWrong, "a.json", 4, 3.0);
  CountHit(&a, "sig", 10, 9.0);
  CountFinding(&b, "sig", ConvCase{}, Verdict::kFailed, Symptom::kWrong, "b.json", 1, 1.0);
  CountHit(&b, "sig", 5, 4.0);
  CountHit(&b, "sig", 50, 12.0);  // b saw it last, though a found it first
  MergeSummary(&a, b);
  ASSERT_EQ(a.buckets.size(), 1u);
  const CampaignSummary::Bucket& m = a.buckets.at("sig");
  EXPECT_EQ(m.cases, 5);
  EXPECT_EQ(m.hits, 4);  // every sighting but the first
  EXPECT_EQ(m.report_file, "b.json");
  EXPECT_EQ(m.first_seconds, 1.0);
  EXPECT_EQ(m.first_case_index, 1);
  EXPECT_EQ(m.last_seconds, 12.0);
  EXPECT_EQ(m.last_case_index, 50);
  EXPECT_TRUE(MissingShards(a).empty());
}

TEST(NightlySummary, TheBoundsUseCountsRandomFillsOnlyAndAddsUp) {
  CampaignSummary s;
  const ConvCase random = CaseOf("1d_ic1_oc1_i3_k3", Fill::kUniform);
  CountCase(&s, random, Judged(Verdict::kPassed, 0.0));
  CountCase(&s, random, Judged(Verdict::kPassed, 0.55));
  CountCase(&s, random, Judged(Verdict::kPassed, 0.999));
  CountCase(&s, random, Judged(Verdict::kFailed, 3.0));
  CountCase(&s, random, Judged(Verdict::kSkipped, 0));
  CountCase(&s, CaseOf("1d_ic1_oc1_i3_k3"), Judged(Verdict::kPassed, 0));  // exact: bitwise
  const std::vector<int64_t> expected{1, 0, 0, 0, 0, 1, 0, 0, 0, 1, 1};
  EXPECT_EQ(s.bound_use.at("direct"), expected);
  CampaignSummary other = s;
  MergeSummary(&s, other);
  EXPECT_EQ(s.bound_use.at("direct")[kBoundUseBins], 2);
  EXPECT_EQ(SummaryJson(s, kTool)["bound_use"]["direct"][5], 2);
}

TEST(NightlySummary, MergedSeriesAddTheShardsAndCountEachBucketOnce) {
  CampaignSummary a, b;
  b.options.shard_index = 1;
  a.options.shard_count = b.options.shard_count = 3;
  a.timeline = {{5, 10, 0}, {10, 20, 1}};
  b.timeline = {{4, 7, 1}, {10, 14, 1}};
  CountFinding(&a, "sig", ConvCase{}, Verdict::kFailed, Symptom::kWrong, "a.json", 0, 6.0);
  CountFinding(&b, "sig", ConvCase{}, Verdict::kFailed, Symptom::kWrong, "b.json", 0, 3.0);
  MergeSummary(&a, b);
  ASSERT_EQ(a.timeline.size(), 3u);
  EXPECT_EQ(a.timeline[0].seconds, 4);
  EXPECT_EQ(a.timeline[0].cases, 7);  // a had no point yet
  EXPECT_EQ(a.timeline[1].cases, 17);
  EXPECT_EQ(a.timeline[2].cases, 34);
  EXPECT_EQ(a.timeline[2].distinct, 1);  // one bucket, found by both
  EXPECT_EQ(MissingShards(a), (std::vector<std::string>{"2/3"}));
}

TEST(NightlySummary, IncompleteShardsStayNamedThroughAMerge) {
  CampaignSummary a, b;
  a.options.shard_count = b.options.shard_count = 2;
  b.options.shard_index = 1;
  b.incomplete_shards = {"1/2"};
  MergeSummary(&a, b);
  const json j = SummaryJson(a, kTool);
  EXPECT_EQ(j["incomplete_shards"], (json{"1/2"}));
  EXPECT_EQ(j["missing_shards"], json::array());
  EXPECT_EQ(j["shards"], (json{"0/2", "1/2"}));
}

ComparedRun RunWith(const std::vector<std::string>& signatures) {
  ComparedRun run;
  for (const std::string& signature : signatures)
    CountFinding(&run.summary, signature, ConvCase{}, Verdict::kFailed, Symptom::kWrong,
                 signature + ".json", 0, 1);
  return run;
}

TEST(RunComparison, TellsNewStillFailingAndGoneApartAndAReplayDecidesTheGone) {
  RunComparison c = CompareSummaries(RunWith({"fixed", "kept", "undrawn", "unreplayable"}),
                                     RunWith({"kept", "new"}));
  ASSERT_EQ(c.buckets.size(), 5u);  // by signature
  EXPECT_EQ(c.buckets[0].signature, "fixed");
  EXPECT_EQ(c.buckets[1].change, BucketChange::kStillFailing);
  EXPECT_EQ(c.buckets[2].change, BucketChange::kNew);
  EXPECT_FALSE(c.buckets[2].before.has_value());
  for (size_t gone : {0, 3, 4}) EXPECT_EQ(c.buckets[gone].change, BucketChange::kNotReplayed);
  ApplyReplay(&c.buckets[0], Verdict::kPassed, "");
  ApplyReplay(&c.buckets[3], Verdict::kFailed, "3 of 9 elements differ");
  ApplyReplay(&c.buckets[4], Verdict::kSkipped, "the SUT declines 3-D");
  EXPECT_EQ(c.buckets[0].change, BucketChange::kFixed);
  EXPECT_EQ(c.buckets[3].change, BucketChange::kNotDrawn);
  EXPECT_EQ(c.buckets[4].change, BucketChange::kNotReplayed);
  const json j = ComparisonJson(c);
  EXPECT_EQ(j["schema"], "convparity.comparison/1");
  EXPECT_EQ(
      j["counts"],
      (json{
          {"new", 1}, {"still_failing", 1}, {"fixed", 1}, {"not_drawn", 1}, {"not_replayed", 1}}));
  EXPECT_EQ(j["buckets"][3]["replay"],
            (json{{"verdict", "failed"}, {"reason", "3 of 9 elements differ"}}));
  EXPECT_EQ(j["buckets"][2]["before"], nullptr);
  EXPECT_EQ(j["buckets"][0]["after"], nullptr);
  EXPECT_EQ(j["buckets"][1]["replay"], nullptr);
}

}  // namespace
}  // namespace convparity
