// SummaryFromJson is the inverse of SummaryJson (`convparity merge` reads the summaries shards
// wrote): a generated summary survives JSON and its text unchanged, a damaged one is refused with
// one line naming the field, and no input makes it throw.
#include <gtest/gtest.h>
#include <rapidcheck.h>
#include <rapidcheck/gtest.h>

#include <chrono>
#include <cmath>
#include <cstdint>
#include <limits>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "core/features.h"
#include "harness/engine/summary_counts.h"
#include "reports/json_values.h"
#include "reports/summary_json.h"

namespace convparity {
namespace {

using nlohmann::json;

const ToolInfo kTool{"0.1.0", "2.3.0", "cpu (native, no oneDNN)"};

const std::vector<std::string> kVerdicts{
    "passed",  "failed",  "shape_mismatch", "unwritten", "mistrusted",
    "skipped", "invalid", "crashed",        "hung",      "broken_promise"};
const std::vector<std::string> kDirections{"fwd", "bwd_data", "bwd_weight"};

// Names as files hold them: plain, with '/' and ':' (plugin paths), quotes, and non-ASCII text.
rc::Gen<std::string> GenName() {
  return rc::gen::oneOf(
      rc::gen::element<std::string>("direct", "im2col", "known-bug:tvm-7912", "plugin:/x/libfoo.so",
                                    "Ünïcode ✓", "say \"hi\"\n", ""),
      rc::gen::container<std::string>(rc::gen::inRange<char>(' ', '~' + 1)));
}

// Large, but not so large that SummaryJson's totals overflow (the unit tests below take the
// maximum).
rc::Gen<int64_t> GenCount() {
  return rc::gen::weightedOneOf<int64_t>(
      {{6, rc::gen::inRange<int64_t>(0, 1000)},
       {1, rc::gen::element<int64_t>(int64_t{1} << 56, (int64_t{1} << 53) + 1)},
       {1, rc::gen::inRange<int64_t>(0, int64_t{1} << 56)}});
}

rc::Gen<double> GenReal() {  // what RealToJson writes: finite >= 0, "inf" or "nan"
  return rc::gen::weightedOneOf<double>(
      {{4, rc::gen::map(rc::gen::inRange(0, 100000), [](int v) { return v / 64.0; })},
       {2, rc::gen::map(rc::gen::arbitrary<double>(), [](double v) { return std::fabs(v); })},
       {1, rc::gen::element(0.0, 1e-300, 1.7976931348623157e308,
                            std::numeric_limits<double>::infinity(),
                            std::numeric_limits<double>::quiet_NaN())}});
}

rc::Gen<std::chrono::system_clock::time_point> GenTime() {
  // 1970 to 2199, to the nanosecond: the file keeps milliseconds, so the second trip is exact.
  return rc::gen::map(rc::gen::inRange<int64_t>(0, int64_t{7258118399} * 1000000000),
                      [](int64_t ns) {
                        return std::chrono::system_clock::time_point(
                            std::chrono::duration_cast<std::chrono::system_clock::duration>(
                                std::chrono::nanoseconds(ns)));
                      });
}

std::map<std::string, int64_t> GenCounts(const rc::Gen<std::string>& keys) {
  std::map<std::string, int64_t> out;
  for (const std::string& k : *rc::gen::container<std::vector<std::string>>(keys))
    out[k] = *GenCount();
  return out;
}

std::vector<std::string> AllPairs() {
  std::vector<std::string> pairs;
  const std::vector<std::string>& k = CoverageKeyClasses();
  for (size_t i = 0; i < k.size(); ++i)
    for (size_t j = i + 1; j < k.size(); ++j) pairs.push_back(k[i] + "&" + k[j]);
  return pairs;
}

CampaignSummary GenSummary() {
  CampaignSummary s;
  CampaignSummary::Options& o = s.options;
  o.seed = *rc::gen::arbitrary<uint64_t>();
  o.shard_count = *rc::gen::inRange(1, 1000);
  o.shard_index = *rc::gen::inRange(0, o.shard_count);
  o.jobs = *rc::gen::inRange(0, 300);
  o.time_budget_seconds = *GenReal();
  o.max_cases = *GenCount();
  o.max_macs = *GenCount();
  // Names outside keys may hold any bytes: SummaryJson makes them valid UTF-8 once, and stays.
  o.suts = *rc::gen::container<std::vector<std::string>>(
      rc::gen::oneOf(GenName(), rc::gen::arbitrary<std::string>()));
  o.directions = *rc::gen::container<std::vector<std::string>>(rc::gen::elementOf(kDirections));
  o.fills = *rc::gen::container<std::vector<std::string>>(
      rc::gen::element<std::string>("exact", "uniform", "positive", "wide"));
  o.dims = *rc::gen::container<std::vector<int>>(rc::gen::inRange(1, 4));
  s.start_time = *GenTime();
  s.end_time = *GenTime();
  s.elapsed_seconds = *GenReal();
  s.workers = *rc::gen::inRange(0, 1000);
  s.cases = *GenCount();
  s.computed = *GenCount();
  s.outside = *GenCount();
  for (int n = *rc::gen::inRange(0, 4); n > 0; --n)
    s.verdicts[*GenName()][*rc::gen::elementOf(kDirections)] =
        GenCounts(rc::gen::elementOf(kVerdicts));
  for (int n = *rc::gen::inRange(0, 5); n > 0; --n) {
    CampaignSummary::Bucket b;
    const std::string signature = *GenName() + "/" + std::to_string(n);
    b.report_file =
        *rc::gen::element<std::string>("", "a.json", "known-bug_tvm-7912.fwd-1f2e.json");
    b.sut = *rc::gen::oneOf(GenName(), rc::gen::arbitrary<std::string>());
    b.direction = *rc::gen::elementOf(kDirections);
    b.verdict = *rc::gen::elementOf(kVerdicts);
    b.cases = *GenCount();
    b.first_case_index = *GenCount();
    b.first_seconds = *GenReal();
    b.last_case_index = *GenCount();
    b.last_seconds = *GenReal();
    s.buckets[signature] = b;
  }
  CampaignSummary::TimeSplit& t = s.time;
  for (double* phase : {&t.generate, &t.fill, &t.oracle, &t.bound, &t.sut, &t.compare, &t.shrink,
                        &t.io, &t.protocol, &t.idle})
    *phase = *GenReal();
  s.covered = *GenCount();
  s.tags = GenCounts(rc::gen::elementOf(AllFeatureTagNames()));
  s.pairs = GenCounts(rc::gen::elementOf(AllPairs()));
  s.pairs_skipped = GenCounts(rc::gen::elementOf(AllPairs()));
  s.pairs_failed = GenCounts(rc::gen::elementOf(AllPairs()));
  s.combinations =
      GenCounts(rc::gen::element<std::string>("1d", "t3d+grouped+kernel>5", "2d+bias"));
  s.mistrusted = *GenCount();
  s.skipped = *GenCount();
  s.skip_reasons = GenCounts(GenName());
  for (int n = *rc::gen::inRange(0, 3); n > 0; --n)
    s.implementations[*GenName()] = GenCounts(GenName());
  for (int n = *rc::gen::inRange(0, 4); n > 0; --n) {
    const int count = *rc::gen::inRange(1, 100);
    s.merged_shards.insert(std::to_string(*rc::gen::inRange(0, count)) + "/" +
                           std::to_string(count));
  }
  // Version 3.
  for (int n = *rc::gen::inRange(0, 3); n > 0; --n) s.sut_versions[*GenName()] = *GenName();
  s.mixed_versions = *rc::gen::container<std::vector<std::string>>(GenName());
  for (int n = *rc::gen::inRange(0, 3); n > 0; --n) {
    const int count = *rc::gen::inRange(1, 100);
    s.incomplete_shards.insert(ShardText(*rc::gen::inRange(0, count), count));
  }
  for (int n = *rc::gen::inRange(0, 4); n > 0; --n)
    s.timeline.push_back({*GenReal(), *GenCount(), *GenCount()});
  for (int n = *rc::gen::inRange(0, 3); n > 0; --n)
    s.bound_use[*GenName()] =
        *rc::gen::container<std::vector<int64_t>>(kBoundUseBins + 1, GenCount());
  // File names and reasons may hold any bytes, like names: SummaryJson makes them valid UTF-8.
  for (int n = *rc::gen::inRange(0, 3); n > 0; --n)
    s.invalid_files.push_back(
        {*rc::gen::oneOf(GenName(), rc::gen::arbitrary<std::string>()), *GenName()});
  return s;
}

// rapidcheck cannot show a json (it tries a conversion that throws): say what differs instead.
void ExpectSame(const json& written, const json& again) {
  if (again != written)
    RC_FAIL("the second trip differs: " + json::diff(written, again).dump() +
            "\nfirst: " + written.dump(-1, ' ', false, json::error_handler_t::replace));
}

RC_GTEST_PROP(SummaryRoundTrip, FromJsonInvertsSummaryJson, ()) {
  const json written = SummaryJson(GenSummary(), kTool);
  ToolInfo tool;
  Result<CampaignSummary> back = SummaryFromJson(written, &tool);
  if (!back.ok()) RC_FAIL(back.status().message());
  ExpectSame(written, SummaryJson(*back, kTool));
  RC_ASSERT(tool.version == kTool.version && tool.torch_version == kTool.torch_version &&
            tool.oracle_backend == kTool.oracle_backend);
}

// What `convparity merge` does: the file's text, parsed, read back.
RC_GTEST_PROP(SummaryRoundTrip, FromTheFileTextToo, ()) {
  const json written = SummaryJson(GenSummary(), kTool);
  const json parsed = json::parse(JsonFileText(written));
  Result<CampaignSummary> back = SummaryFromJson(parsed);
  if (!back.ok()) RC_FAIL(back.status().message());
  ExpectSame(written, SummaryJson(*back, kTool));
}

// Every place in a document, as JSON pointers.
void Pointers(const json& j, const json::json_pointer& at, std::vector<json::json_pointer>* out) {
  out->push_back(at);
  if (j.is_object())
    for (const auto& [key, value] : j.items()) Pointers(value, at / key, out);
  if (j.is_array())
    for (size_t i = 0; i < j.size(); ++i) Pointers(j[i], at / i, out);
}

RC_GTEST_PROP(SummaryRoundTrip, DamageIsRefusedInOneLineAndNeverThrows, ()) {
  json j = SummaryJson(GenSummary(), kTool);
  std::vector<json::json_pointer> pointers;
  Pointers(j, json::json_pointer(), &pointers);
  const json::json_pointer at = pointers[*rc::gen::inRange<size_t>(0, pointers.size())];
  RC_LOG() << "at " << at.to_string() << "\n";
  const json odd =
      json::array({nullptr, -1, 1.5, "inf", "-inf", "x", json::array(), json::object(), true,
                   std::numeric_limits<uint64_t>::max(), "0/1", "1970-01-01T00:00:00Z"});
  const json replacement = odd[*rc::gen::inRange<size_t>(0, odd.size())];
  if (at.empty() || *rc::gen::arbitrary<bool>()) {
    j[at] = replacement;
  } else {
    json& parent = j[at.parent_pointer()];
    if (parent.is_object()) parent.erase(at.back());
    if (parent.is_array()) parent.erase(static_cast<size_t>(std::stoul(at.back())));
  }
  Result<CampaignSummary> r = Status::Internal("threw");
  try {
    r = SummaryFromJson(j);
  } catch (const std::exception& e) {
    RC_FAIL(std::string("threw: ") + e.what());
  }
  if (!r.ok()) {
    RC_ASSERT(r.status().code() == StatusCode::kInvalid);
    RC_ASSERT(r.status().message().find('\n') == std::string::npos);
    RC_ASSERT(r.status().message().size() < 400u);
  } else {  // a harmless change (a count that stayed a count, a reason removed…): still a summary
    RC_ASSERT(SummaryJson(*r, kTool)["schema"] == kSummarySchema);
  }
}

// ---- The errors a user sees --------------------------------------------------------------------

json Valid() {
  CampaignSummary s;
  s.options.shard_index = 1;
  s.options.shard_count = 2;
  s.merged_shards = {"0/2"};
  CountFinding(&s, "sig", ConvCase{}, Verdict::kFailed, Symptom::kWrong, "sig.json", 3, 0.5);
  return SummaryJson(s, kTool);
}

std::string ErrorOf(const json& j) {
  Result<CampaignSummary> r = SummaryFromJson(j);
  return r.ok() ? "(accepted)" : r.status().message();
}

TEST(SummaryFromJson, ReadsWhatItIsGiven) {
  Result<CampaignSummary> r = SummaryFromJson(Valid());
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(r->options.shard_index, 1);
  EXPECT_EQ(r->merged_shards, (std::set<std::string>{"0/2"}));  // its own shard is not "merged"
  EXPECT_EQ(r->buckets.at("sig").report_file, "sig.json");
  EXPECT_EQ(r->buckets.at("sig").first_case_index, 3);
  json j = Valid();
  j["options"]["max_macs"] = std::numeric_limits<int64_t>::max();
  j["options"]["seed"] = std::numeric_limits<uint64_t>::max();
  r = SummaryFromJson(json::parse(j.dump()));
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(r->options.max_macs, std::numeric_limits<int64_t>::max());
  EXPECT_EQ(r->options.seed, std::numeric_limits<uint64_t>::max());
  j = Valid();
  j["start_time"] = "2026-11-18T11:06:40.1Z";  // any fraction, to the millisecond
  r = SummaryFromJson(j);
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(Iso8601(r->start_time), "2026-11-18T11:06:40.100Z");
}

// Summaries written before the worker's time was split into protocol and idle still read (as
// zeros); a misspelt one is still an error.
TEST(SummaryFromJson, ReadsSummariesWithoutTheWorkersProtocolAndIdleTime) {
  json j = Valid();
  j["time_seconds"]["protocol"] = 1.5;
  j["time_seconds"]["idle"] = 0.25;
  Result<CampaignSummary> r = SummaryFromJson(j);
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(r->time.protocol, 1.5);
  EXPECT_EQ(r->time.idle, 0.25);
  j["time_seconds"].erase("protocol");
  j["time_seconds"].erase("idle");
  r = SummaryFromJson(j);
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(r->time.protocol, 0);
  EXPECT_EQ(r->time.idle, 0);
  j["time_seconds"]["protocoll"] = 1.0;
  EXPECT_EQ(ErrorOf(j), "field 'time_seconds.protocoll': unknown field");
  j["time_seconds"].erase("protocoll");
  j["time_seconds"]["idle"] = -1;
  EXPECT_NE(ErrorOf(j).find("time_seconds.idle"), std::string::npos) << ErrorOf(j);
}

// Summaries written before the computed checks were counted derive them from the verdicts of a
// judged result; before the cases outside the declarations were counted, there are none.
TEST(SummaryFromJson, ReadsSummariesWithoutTheComputedAndOutsideCounts) {
  json j = Valid();
  j["cases"]["by_sut"] = {{"x",
                           {{"fwd", {{"passed", 3}, {"skipped", 5}, {"failed", 2}}},
                            {"bwd_data", {{"mistrusted", 1}, {"crashed", 4}}}}}};
  j["cases"]["computed"] = 9;
  j["cases"]["outside"] = 2;
  Result<CampaignSummary> r = SummaryFromJson(j);
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(r->computed, 9);
  EXPECT_EQ(r->outside, 2);
  j["cases"].erase("computed");
  j["cases"].erase("outside");
  j["throughput"].erase("computed_per_second");
  j["throughput"].erase("computed_per_second_per_worker");
  r = SummaryFromJson(j);
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(r->computed, 6);  // passed, failed, mistrusted
  EXPECT_EQ(r->outside, 0);
  j["cases"]["computed"] = -1;
  EXPECT_NE(ErrorOf(j).find("cases.computed"), std::string::npos) << ErrorOf(j);
}

// `check`'s invalid case files: summaries written before it listed them read as none; a listed one
// reads back, and an entry without its reason is an error.
TEST(SummaryFromJson, ReadsTheInvalidFilesOfACheckAndSummariesWithout) {
  json j = Valid();
  EXPECT_EQ(j["invalid_files"], json::array());
  j["invalid_files"] = json::array({{{"file", "c/a.json"}, {"reason", "c/a.json: malformed"}}});
  Result<CampaignSummary> r = SummaryFromJson(j);
  ASSERT_TRUE(r.ok()) << r.status().message();
  ASSERT_EQ(r->invalid_files.size(), 1u);
  EXPECT_EQ(r->invalid_files[0].file, "c/a.json");
  EXPECT_EQ(r->invalid_files[0].reason, "c/a.json: malformed");
  j.erase("invalid_files");
  r = SummaryFromJson(j);
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_TRUE(r->invalid_files.empty());
  j["invalid_files"] = json::array({{{"file", "c/a.json"}}});
  EXPECT_EQ(ErrorOf(j), "field 'invalid_files[0].reason': missing");
}

// A version-1 summary (before triage) has no findings, shrinking, hits or shrink: it still reads,
// every sighting after a bucket's first counting as a hit, and writes back as version 3.
TEST(SummaryFromJson, ReadsVersion1SummariesWithoutTheTriagesFields) {
  CampaignSummary s;
  CountFinding(&s, "sig", ConvCase{}, Verdict::kFailed, Symptom::kWrong, "sig.json", 3, 0.5);
  CountHit(&s, "sig");
  CountShrink(&s, "sig", 4, 20, false, false, 6, 0.5, 10);
  json j = SummaryJson(s, kTool);
  EXPECT_EQ(j["buckets"][0]["shrink"]["calls"], 20);
  EXPECT_EQ(j["shrinking"]["calls"], 20);
  ASSERT_TRUE(SummaryFromJson(j).ok());
  EXPECT_EQ(SummaryJson(*SummaryFromJson(j), kTool), j);
  j["schema"] = "convparity.summary/1";
  j.erase("findings");
  j.erase("shrinking");
  j["buckets"][0].erase("hits");
  j["buckets"][0].erase("shrink");
  Result<CampaignSummary> r = SummaryFromJson(j);
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(r->buckets.at("sig").cases, 2);
  EXPECT_EQ(r->buckets.at("sig").hits, 1);
  EXPECT_FALSE(r->buckets.at("sig").shrink.triaged);
  EXPECT_EQ(SummaryJson(*r, kTool)["schema"], "convparity.summary/3");
  j["buckets"][0]["shrink"] = json{{"calls", 1}};
  EXPECT_NE(ErrorOf(j).find("buckets[0].shrink"), std::string::npos) << ErrorOf(j);
}

// A version-2 summary has none of version 3's fields: it reads, each bucket's last sighting its
// first, and a damaged version-3 field names itself.
TEST(SummaryFromJson, ReadsVersion2SummariesWithoutTheMergesFields) {
  json j = Valid();
  EXPECT_EQ(j["buckets"][0]["last_seen"], (json{{"case_index", 3}, {"seconds", 0.5}}));
  j["schema"] = "convparity.summary/2";
  for (const char* field : {"sut_versions", "mixed_versions", "incomplete_shards", "missing_shards",
                            "timeline", "bound_use"})
    j.erase(field);
  j["buckets"][0].erase("last_seen");
  Result<CampaignSummary> r = SummaryFromJson(j);
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(r->buckets.at("sig").last_case_index, 3);
  EXPECT_EQ(r->buckets.at("sig").last_seconds, 0.5);
  j = Valid();
  j["bound_use"]["direct"] = json{1, 2};
  EXPECT_EQ(ErrorOf(j), "field 'bound_use.direct': expected 11 counts");
  j = Valid();
  j["incomplete_shards"] = json{"2/2"};
  EXPECT_NE(ErrorOf(j).find("incomplete_shards[0]"), std::string::npos) << ErrorOf(j);
}

TEST(SummaryFromJson, SaysWhichSchemaItReads) {
  json j = Valid();
  j["schema"] = "convparity.summary/4";
  EXPECT_EQ(ErrorOf(j),
            "field 'schema': \"convparity.summary/4\" is a version this convparity cannot read (it "
            "reads convparity.summary/3, convparity.summary/2 and convparity.summary/1)");
  j["schema"] = "convparity.report/1";
  EXPECT_EQ(ErrorOf(j), "field 'schema': \"convparity.report/1\" is not a convparity summary");
  j.erase("schema");
  EXPECT_EQ(ErrorOf(j), "field 'schema': null is not a convparity summary");
  EXPECT_EQ(ErrorOf(json::array()), "a summary must be a JSON object, got an array");
}

TEST(SummaryFromJson, NamesTheField) {
  json j = Valid();
  j["options"].erase("seed");
  EXPECT_EQ(ErrorOf(j), "field 'options.seed': missing");
  j = Valid();
  j["options"]["sed"] = 5;  // a misspelling must not pass for a default
  EXPECT_EQ(ErrorOf(j), "field 'options.sed': unknown field");
  j = Valid();
  j["options"]["seed"] = -1;
  EXPECT_EQ(ErrorOf(j),
            "field 'options.seed': expected a whole number from 0 to "
            "18446744073709551615, got -1");
  j = Valid();
  j["options"]["shard"]["index"] = 2;
  EXPECT_EQ(ErrorOf(j), "field 'options.shard.index': expected a whole number from 0 to 1, got 2");
  j = Valid();
  j["elapsed_seconds"] = "-inf";
  EXPECT_EQ(ErrorOf(j),
            "field 'elapsed_seconds': expected a number >= 0, \"inf\" or \"nan\", got \"-inf\"");
  j = Valid();
  j["start_time"] = "2026-02-30T00:00:00.000Z";
  EXPECT_EQ(ErrorOf(j).rfind("field 'start_time': expected a UTC time", 0), 0u);
  j = Valid();
  j["shards"] = {"0/2"};
  EXPECT_EQ(ErrorOf(j), "field 'shards': does not list the run's own shard 1/2");
  j = Valid();
  j["shards"] = {"1/2", "01/2"};
  EXPECT_EQ(ErrorOf(j).rfind("field 'shards[1]': expected a shard I/N", 0), 0u);
  j = Valid();
  j["buckets"][0]["report"] = "../../etc/passwd";  // merge joins it to a folder
  EXPECT_EQ(ErrorOf(j).rfind("field 'buckets[0].report': expected a file name", 0), 0u);
  j = Valid();
  const json again = j["buckets"][0];
  j["buckets"].push_back(again);
  EXPECT_EQ(ErrorOf(j), "field 'buckets[1].signature': a second bucket \"sig\"");
  j = Valid();
  j["cases"]["by_sut"]["plugin:/x.so"]["sideways"] = json::object();
  EXPECT_EQ(ErrorOf(j), "field 'cases.by_sut[\"plugin:/x.so\"].sideways': not a direction");
  j = Valid();
  j["coverage"]["tags"]["rank4"] = 0;
  EXPECT_EQ(ErrorOf(j), "field 'coverage.tags.rank4': unknown field");
  j = Valid();
  j["tool"]["name"] = "other";
  EXPECT_EQ(ErrorOf(j), "field 'tool.name': expected one of convparity, got \"other\"");
}

TEST(SummaryFromJson, KeepsLongOrHostileTextOnOneShortLine) {
  json j = Valid();
  j["skipped"]["reasons"][std::string(5000, 'r') + "\n"] = -1;
  const std::string e = ErrorOf(j);
  EXPECT_EQ(e.find('\n'), std::string::npos);
  EXPECT_LT(e.size(), 200u);
  EXPECT_EQ(e.rfind("field 'skipped.reasons[\"rrr", 0), 0u) << e;
}

}  // namespace
}  // namespace convparity
