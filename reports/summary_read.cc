// SummaryFromJson: the strict reader of convparity.summary/1 to /3 (summary_json.h).
#include <algorithm>
#include <cctype>
#include <charconv>
#include <climits>
#include <cstdint>
#include <limits>
#include <optional>

#include "core/features.h"
#include "core/strict_json.h"
#include "reports/json_values.h"
#include "reports/summary_json.h"
#include "reports/utf8.h"

namespace convparity {
namespace {

using nlohmann::json;

// A JSON value and where it is in the file, as error messages name it: "options.shard.index",
// "cases.by_sut[\"plugin:/x.so\"].fwd", "buckets[3].cases".
struct Node {
  const json& v;
  std::string path;
};

// A value as an error message shows it: on one line, and short whatever the file holds.
std::string Describe(const json& v) {
  if (v.is_object()) return "an object";
  if (v.is_array()) return "an array";
  std::string text = v.dump(-1, ' ', false, json::error_handler_t::replace);
  return text.size() > 64 ? ValidUtf8(text.substr(0, 60)) + "..." : text;
}

bool Contains(const std::vector<std::string>& names, const std::string& name) {
  return std::find(names.begin(), names.end(), name) != names.end();
}

std::string MemberPath(const std::string& parent, const std::string& key) {
  const bool plain = !key.empty() && std::all_of(key.begin(), key.end(), [](unsigned char c) {
    return std::isalnum(c) || c == '_';
  });
  if (plain) return parent.empty() ? key : parent + "." + key;
  return parent + "[" + Describe(key) + "]";  // quoted, escaped and cut short
}

// As ReportFileName makes them: `convparity merge` joins it to a folder, so no '/' and no "..".
bool IsPlainFileName(const std::string& name) {
  return !name.empty() && name.size() <= 255 && name[0] != '.' &&
         std::all_of(name.begin(), name.end(), [](unsigned char c) {
           return std::isalnum(c) || c == '.' || c == '_' || c == '-';
         });
}

std::vector<std::string> DirectionNames() {
  std::vector<std::string> names;
  for (Direction d : AllDirections()) names.push_back(DirectionName(d));
  return names;
}

// Reads typed fields and remembers the first error. Later reads return zeros and record nothing,
// so SummaryFromJson reads straight through and checks once, instead of after every field.
class Reader {
 public:
  const Status& status() const { return status_; }

  void Error(const Node& n, const std::string& what) {
    if (status_.ok()) status_ = Status::Invalid("field '" + n.path + "': " + what);
  }

  // Whether `n` is an object with exactly the fields `names` (none missing, none unknown), and any
  // of `optional`.
  bool Object(const Node& n, const std::vector<std::string>& names,
              const std::vector<std::string>& optional = {}) {
    if (!status_.ok()) return false;
    if (!n.v.is_object()) {
      Error(n, "expected an object, got " + Describe(n.v));
      return false;
    }
    for (const std::string& name : names)
      if (!n.v.contains(name)) Error(Node{n.v, MemberPath(n.path, name)}, "missing");
    std::vector<std::string> known = names;
    known.insert(known.end(), optional.begin(), optional.end());
    if (std::optional<std::string> key = FirstUnknownField(n.v, known))
      Error(Node{n.v.at(*key), MemberPath(n.path, *key)}, "unknown field");
    return status_.ok();
  }

  // A member of an object Object() accepted (null when it did not).
  Node operator()(const Node& object, const std::string& name) {
    static const json null;
    const std::string path = MemberPath(object.path, name);
    if (!object.v.is_object() || !object.v.contains(name)) return {null, path};
    return {object.v.at(name), path};
  }

  // A JSON integer from lo to hi (nlohmann holds it signed or unsigned, depending on its origin).
  uint64_t Whole(const Node& n, uint64_t lo, uint64_t hi) {
    if (const std::optional<uint64_t> v = WholeNumber(n.v); v && *v >= lo && *v <= hi) return *v;
    Error(n, "expected a whole number from " + std::to_string(lo) + " to " + std::to_string(hi) +
                 ", got " + Describe(n.v));
    return lo;
  }
  int64_t Count(const Node& n) { return static_cast<int64_t>(Whole(n, 0, INT64_MAX)); }
  int Int(const Node& n, int lo, int hi) { return static_cast<int>(Whole(n, lo, hi)); }

  // A non-negative float64: a number, or "inf" or "nan" (RealToJson).
  double Real(const Node& n) {
    if (n.v.is_number() && n.v.get<double>() >= 0) return n.v.get<double>();
    if (n.v == "inf") return std::numeric_limits<double>::infinity();
    if (n.v == "nan") return std::numeric_limits<double>::quiet_NaN();
    Error(n, "expected a number >= 0, \"inf\" or \"nan\", got " + Describe(n.v));
    return 0;
  }

  bool Bool(const Node& n) {
    if (n.v.is_boolean()) return n.v.get<bool>();
    Error(n, "expected true or false, got " + Describe(n.v));
    return false;
  }

  std::string String(const Node& n) {
    if (n.v.is_string()) return n.v.get<std::string>();
    Error(n, "expected a string, got " + Describe(n.v));
    return "";
  }

  std::string OneOf(const Node& n, const std::vector<std::string>& allowed) {
    std::string s = String(n);
    if (!status_.ok() || Contains(allowed, s)) return s;
    Error(n, "expected one of " + NameList(allowed) + ", got " + Describe(n.v));
    return "";
  }

  // The items of an array, each with its path.
  std::vector<Node> Items(const Node& n) {
    std::vector<Node> items;
    if (!n.v.is_array()) Error(n, "expected an array, got " + Describe(n.v));
    for (size_t i = 0; n.v.is_array() && i < n.v.size(); ++i)
      items.push_back({n.v[i], n.path + "[" + std::to_string(i) + "]"});
    return items;
  }

  // The members of an object whose keys are open (SUT names, reasons, …), each with its path.
  std::vector<std::pair<std::string, Node>> Members(const Node& n) {
    std::vector<std::pair<std::string, Node>> members;
    if (!n.v.is_object()) {
      Error(n, "expected an object, got " + Describe(n.v));
      return members;
    }
    for (const auto& [key, value] : n.v.items())
      members.push_back({key, Node{value, MemberPath(n.path, key)}});
    return members;
  }

  std::map<std::string, int64_t> Counts(const Node& n) {
    std::map<std::string, int64_t> counts;
    for (const auto& [key, value] : Members(n)) counts[key] = Count(value);
    return counts;
  }

  std::vector<std::string> Strings(const Node& n, const std::vector<std::string>& allowed = {}) {
    std::vector<std::string> out;
    for (const Node& item : Items(n))
      out.push_back(allowed.empty() ? String(item) : OneOf(item, allowed));
    return out;
  }

  std::pair<int, int> Shard(const Node& n) {
    const std::string text = String(n);
    const char* end = text.data() + text.size();
    int index = -1, count = 0;
    auto [slash, e1] = std::from_chars(text.data(), end, index);
    if (e1 == std::errc() && slash != end && *slash == '/' &&
        std::from_chars(slash + 1, end, count).ptr == end && count >= 1 && index >= 0 &&
        index < count && ShardText(index, count) == text)  // canonical: no "01/2"
      return {index, count};
    Error(n, "expected a shard I/N with 0 <= I < N, got " + Describe(n.v));
    return {0, 1};
  }

  std::chrono::system_clock::time_point Time(const Node& n) {
    if (const auto t = ParseIso8601(String(n))) return *t;
    Error(n, "expected a UTC time like \"2026-11-22T03:44:03.120Z\" (years 1970 to 2200), got " +
                 Describe(n.v));
    return {};
  }

 private:
  Status status_;
};

Status CheckSchemaName(const json& j) {
  static const json missing;
  const json& schema = j.contains("schema") ? j.at("schema") : missing;  // no copy: any depth
  if (schema == kSummarySchema || schema == kSummarySchemaV2 || schema == kSummarySchemaV1)
    return Status::Ok();
  const bool other_version =
      schema.is_string() && schema.get<std::string>().rfind("convparity.summary/", 0) == 0;
  return Status::Invalid("field 'schema': " + Describe(schema) +
                         (other_version ? " is a version this convparity cannot read (it reads " +
                                              std::string(kSummarySchema) + ", " +
                                              kSummarySchemaV2 + " and " + kSummarySchemaV1 + ")"
                                        : " is not a convparity summary"));
}

void ReadOptions(Reader& r, const Node& n, CampaignSummary::Options* o) {
  r.Object(n, {"seed", "shard", "jobs", "time_budget_seconds", "max_cases", "max_macs", "suts",
               "directions", "fills", "dims"});
  o->seed = r.Whole(r(n, "seed"), 0, UINT64_MAX);
  const Node shard = r(n, "shard");
  r.Object(shard, {"index", "count"});
  o->shard_count = r.Int(r(shard, "count"), 1, INT_MAX);
  o->shard_index = r.Int(r(shard, "index"), 0, std::max(o->shard_count - 1, 0));
  o->jobs = r.Int(r(n, "jobs"), 0, INT_MAX);
  o->time_budget_seconds = r.Real(r(n, "time_budget_seconds"));
  o->max_cases = r.Count(r(n, "max_cases"));
  o->max_macs = r.Count(r(n, "max_macs"));
  o->suts = r.Strings(r(n, "suts"));
  o->directions = r.Strings(r(n, "directions"), DirectionNames());
  o->fills = r.Strings(r(n, "fills"), {"exact", "uniform", "positive", "wide"});
  o->dims.clear();
  for (const Node& d : r.Items(r(n, "dims"))) o->dims.push_back(r.Int(d, 1, 3));
}

void ReadCases(Reader& r, const Node& n, CampaignSummary* s) {
  r.Object(n, {"total", "by_verdict", "by_sut"}, {"computed", "outside"});
  s->cases = r.Count(r(n, "total"));
  if (n.v.contains("outside")) s->outside = r.Count(r(n, "outside"));
  const Node totals = r(n, "by_verdict");  // derived from by_sut: checked, not read
  r.Object(totals, VerdictNames());
  for (const auto& [verdict, count] : r.Members(totals)) r.Count(count);
  for (const auto& [sut, by_direction] : r.Members(r(n, "by_sut"))) {
    auto& directions = s->verdicts[sut];  // kept when empty too: SummaryJson writes it back
    for (const auto& [direction, by_verdict] : r.Members(by_direction)) {
      if (!Contains(DirectionNames(), direction)) r.Error(by_verdict, "not a direction");
      auto& verdicts = directions[direction];
      for (const auto& [verdict, count] : r.Members(by_verdict)) {
        if (!Contains(VerdictNames(), verdict)) r.Error(count, "not a verdict");
        verdicts[verdict] = r.Count(count);
      }
    }
  }
  if (n.v.contains("computed")) {
    s->computed = r.Count(r(n, "computed"));
    return;
  }
  // Written before it was counted: the verdicts of a judged result.
  for (const auto& [sut, by_direction] : s->verdicts)
    for (const auto& [direction, by_verdict] : by_direction)
      for (const auto& [verdict, count] : by_verdict)
        if (Contains({"passed", "failed", "mistrusted", "unwritten"}, verdict))
          s->computed += count;
}

void ReadBuckets(Reader& r, const Node& n, CampaignSummary* s) {
  for (const Node& item : r.Items(n)) {
    if (!r.Object(item,
                  {"signature", "report", "sut", "direction", "verdict", "cases", "first_seen"},
                  {"hits", "shrink", "last_seen", "symptom"}))
      return;
    const std::string signature = r.String(r(item, "signature"));
    if (signature.empty()) r.Error(r(item, "signature"), "empty");
    if (s->buckets.count(signature))
      r.Error(r(item, "signature"), "a second bucket " + Describe(signature));
    CampaignSummary::Bucket& b = s->buckets[signature];
    b.report_file = r.String(r(item, "report"));
    if (!b.report_file.empty() && !IsPlainFileName(b.report_file))
      r.Error(r(item, "report"), "expected a file name of letters, digits, '.', '_' and '-', got " +
                                     Describe(b.report_file));
    b.sut = r.String(r(item, "sut"));
    b.direction = r.OneOf(r(item, "direction"), DirectionNames());
    b.verdict = r.OneOf(r(item, "verdict"), VerdictNames());
    // Summaries written before buckets had a symptom have none: their signatures read as they are.
    if (item.v.contains("symptom")) b.symptom = r.OneOf(r(item, "symptom"), SymptomNames());
    b.cases = r.Count(r(item, "cases"));
    const Node first = r(item, "first_seen");
    r.Object(first, {"case_index", "seconds"});
    b.first_case_index = r.Count(r(first, "case_index"));
    b.first_seconds = r.Real(r(first, "seconds"));
    b.last_case_index = b.first_case_index;  // versions 1 and 2 know only the first
    b.last_seconds = b.first_seconds;
    if (item.v.contains("last_seen")) {
      const Node last = r(item, "last_seen");
      r.Object(last, {"case_index", "seconds"});
      b.last_case_index = r.Count(r(last, "case_index"));
      b.last_seconds = r.Real(r(last, "seconds"));
    }
    // Version 1 has neither: every case after the first was a hit, and nothing says how it shrank.
    b.hits = item.v.contains("hits") ? r.Count(r(item, "hits")) : std::max<int64_t>(b.cases - 1, 0);
    if (item.v.contains("shrink")) {
      const Node shrink = r(item, "shrink");
      r.Object(shrink,
               {"triaged", "steps", "calls", "bound_hit", "macs", "seconds", "cases_beside"},
               {"cut_short"});
      b.shrink.triaged = r.Bool(r(shrink, "triaged"));
      b.shrink.steps = r.Count(r(shrink, "steps"));
      b.shrink.calls = r.Count(r(shrink, "calls"));
      b.shrink.bound_hit = r.Bool(r(shrink, "bound_hit"));
      b.shrink.macs = r.Count(r(shrink, "macs"));
      b.shrink.seconds = r.Real(r(shrink, "seconds"));
      b.shrink.cases_beside = r.Count(r(shrink, "cases_beside"));
      // Summaries written before issue 24 have no cut_short: nothing cut them short.
      if (shrink.v.contains("cut_short")) b.shrink.cut_short = r.Bool(r(shrink, "cut_short"));
    }
  }
}

void ReadCoverage(Reader& r, const Node& n, CampaignSummary* s) {
  r.Object(n, {"cases", "tags", "pairs", "combinations"}, {"pairs_skipped", "pairs_failed"});
  s->covered = r.Count(r(n, "cases"));
  // SummaryJson lists every tag and pair, zeros included; the summary keeps only those seen.
  const Node tags = r(n, "tags");
  r.Object(tags, AllFeatureTagNames());
  for (const auto& [tag, count] : r.Counts(tags))
    if (count != 0) s->tags[tag] = count;
  for (const auto& [pair, count] : r.Counts(r(n, "pairs")))
    if (count != 0) s->pairs[pair] = count;
  for (const auto& [name, field] :
       {std::pair{"pairs_skipped", &s->pairs_skipped}, std::pair{"pairs_failed", &s->pairs_failed}})
    if (n.v.is_object() && n.v.contains(name))  // version 3
      for (const auto& [pair, count] : r.Counts(r(n, name)))
        if (count != 0) (*field)[pair] = count;
  s->combinations = r.Counts(r(n, "combinations"));
}

// The fields version 3 adds, each optional: a version 1 or 2 file has none of them.
void ReadVersion3(Reader& r, const Node& root, CampaignSummary* s) {
  const json& j = root.v;
  if (j.contains("sut_versions"))
    for (const auto& [sut, version] : r.Members(r(root, "sut_versions")))
      s->sut_versions[sut] = r.String(version);
  if (j.contains("mixed_versions")) s->mixed_versions = r.Strings(r(root, "mixed_versions"));
  if (j.contains("incomplete_shards"))
    for (const Node& item : r.Items(r(root, "incomplete_shards"))) {
      const auto [index, count] = r.Shard(item);
      s->incomplete_shards.insert(ShardText(index, count));
    }
  if (j.contains("missing_shards"))  // derived from the shards: checked, not read
    for (const Node& item : r.Items(r(root, "missing_shards"))) r.Shard(item);
  if (j.contains("timeline"))
    for (const Node& item : r.Items(r(root, "timeline"))) {
      r.Object(item, {"seconds", "cases", "distinct"});
      s->timeline.push_back(
          {r.Real(r(item, "seconds")), r.Count(r(item, "cases")), r.Count(r(item, "distinct"))});
    }
  if (j.contains("bound_use"))
    for (const auto& [sut, bins] : r.Members(r(root, "bound_use"))) {
      std::vector<int64_t>& counts = s->bound_use[sut];
      for (const Node& bin : r.Items(bins)) counts.push_back(r.Count(bin));
      if (counts.size() != kBoundUseBins + 1)
        r.Error(bins, "expected " + std::to_string(kBoundUseBins + 1) + " counts");
    }
}

}  // namespace

Result<CampaignSummary> SummaryFromJson(const json& j, ToolInfo* tool) {
  if (!j.is_object()) return Status::Invalid("a summary must be a JSON object, got " + Describe(j));
  // The kind and version first: another file gets that said, not a list of its fields.
  CP_RETURN_IF_ERROR(CheckSchemaName(j));
  Reader r;
  const Node root{j, ""};
  r.Object(root,
           {"schema", "tool", "options", "shards", "start_time", "end_time", "elapsed_seconds",
            "cases", "buckets", "throughput", "time_seconds", "coverage", "mistrusted", "skipped"},
           {"findings", "shrinking", "slow", "sut_versions", "mixed_versions", "incomplete_shards",
            "missing_shards", "timeline", "bound_use", "invalid_files", "implementations"});
  CampaignSummary s;

  const Node t = r(root, "tool");
  r.Object(t, {"name", "version", "libtorch_version", "oracle_backend"});
  r.OneOf(r(t, "name"), {kToolName});
  ToolInfo info{r.String(r(t, "version")), r.String(r(t, "libtorch_version")),
                r.String(r(t, "oracle_backend"))};

  ReadOptions(r, r(root, "options"), &s.options);
  // "shards" lists the run's own shard and those merged into it.
  const std::string own = ShardText(s.options.shard_index, s.options.shard_count);
  bool has_own = false;
  for (const Node& item : r.Items(r(root, "shards"))) {
    const auto [index, count] = r.Shard(item);
    const std::string shard = ShardText(index, count);
    if (shard != own) s.merged_shards.insert(shard);
    has_own = has_own || shard == own;
  }
  if (!has_own) r.Error(r(root, "shards"), "does not list the run's own shard " + own);

  s.start_time = r.Time(r(root, "start_time"));
  s.end_time = r.Time(r(root, "end_time"));
  s.elapsed_seconds = r.Real(r(root, "elapsed_seconds"));
  ReadCases(r, r(root, "cases"), &s);
  ReadBuckets(r, r(root, "buckets"), &s);
  if (j.contains("findings")) {  // version 2; distinct and hits derive from the buckets
    const Node findings = r(root, "findings");
    r.Object(findings, {"distinct", "hits", "untriaged"});
    r.Count(r(findings, "distinct"));
    r.Count(r(findings, "hits"));
    s.untriaged = r.Count(r(findings, "untriaged"));
  }
  if (j.contains("shrinking")) {
    const Node shrinking = r(root, "shrinking");
    r.Object(shrinking, {"triaged", "steps", "calls", "bound_hits", "seconds"}, {"cut_short"});
    s.shrinking.triaged = r.Count(r(shrinking, "triaged"));
    s.shrinking.steps = r.Count(r(shrinking, "steps"));
    s.shrinking.calls = r.Count(r(shrinking, "calls"));
    s.shrinking.bound_hits = r.Count(r(shrinking, "bound_hits"));
    s.shrinking.seconds = r.Real(r(shrinking, "seconds"));
    if (shrinking.v.contains("cut_short"))
      s.shrinking.cut_short = r.Count(r(shrinking, "cut_short"));
  }
  if (j.contains("slow")) {  // since issue 24
    const Node slow = r(root, "slow");
    r.Object(slow, {"cases", "slowest_seconds", "slowest"});
    s.slow.cases = r.Count(r(slow, "cases"));
    s.slow.slowest_seconds = r.Real(r(slow, "slowest_seconds"));
    s.slow.slowest = r.String(r(slow, "slowest"));
  }

  const Node throughput = r(root, "throughput");  // the rates are derived: checked, not read
  r.Object(throughput, {"workers", "cases_per_second", "cases_per_second_per_worker"},
           {"computed_per_second", "computed_per_second_per_worker"});
  s.workers = r.Int(r(throughput, "workers"), 0, INT_MAX);
  for (const char* rate : {"cases_per_second", "cases_per_second_per_worker", "computed_per_second",
                           "computed_per_second_per_worker"})
    if (throughput.v.contains(rate)) r.Real(r(throughput, rate));

  const Node time = r(root, "time_seconds");
  r.Object(time, {"generate", "fill", "oracle", "bound", "sut", "compare", "shrink", "io"},
           {"protocol", "idle"});
  CampaignSummary::TimeSplit& ts = s.time;
  const std::pair<const char*, double*> phases[] = {
      {"generate", &ts.generate}, {"fill", &ts.fill}, {"oracle", &ts.oracle},
      {"bound", &ts.bound},       {"sut", &ts.sut},   {"compare", &ts.compare},
      {"shrink", &ts.shrink},     {"io", &ts.io}};
  for (const auto& [name, field] : phases) *field = r.Real(r(time, name));
  // Summaries written before the worker's time was split further have no protocol and idle.
  for (const auto& [name, field] : {std::pair{"protocol", &ts.protocol}, {"idle", &ts.idle}})
    if (time.v.is_object() && time.v.contains(name)) *field = r.Real(r(time, name));

  ReadCoverage(r, r(root, "coverage"), &s);
  s.mistrusted = r.Count(r(root, "mistrusted"));
  const Node skipped = r(root, "skipped");
  r.Object(skipped, {"total", "reasons"});
  s.skipped = r.Count(r(skipped, "total"));
  s.skip_reasons = r.Counts(r(skipped, "reasons"));
  if (j.contains("implementations"))  // summaries written before they were counted have none
    for (const auto& [sut, ran] : r.Members(r(root, "implementations")))
      s.implementations[sut] = r.Counts(ran);
  if (j.contains("invalid_files"))  // summaries written before check listed them have none
    for (const Node& item : r.Items(r(root, "invalid_files"))) {
      r.Object(item, {"file", "reason"});
      s.invalid_files.push_back({r.String(r(item, "file")), r.String(r(item, "reason"))});
    }

  ReadVersion3(r, root, &s);

  if (!r.status().ok()) return r.status();
  if (tool) *tool = info;
  return s;
}

}  // namespace convparity
