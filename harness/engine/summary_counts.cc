#include "harness/engine/summary_counts.h"

#include <algorithm>
#include <chrono>
#include <map>
#include <set>
#include <vector>

#include "core/descriptor.h"
#include "core/features.h"

namespace convparity {
namespace {

constexpr size_t kMaxReasonBytes = 200;

// "grouped" in the coverage table means groups > 1, depthwise included.
bool HasClass(const std::vector<std::string>& tags, const std::string& k) {
  auto has = [&](const std::string& t) {
    return std::find(tags.begin(), tags.end(), t) != tags.end();
  };
  return k == "grouped" ? has("grouped") || has("depthwise") : has(k);
}

// Kind and rank, then the classes docs/INTERFACES.md crosses: "t3d+grouped+dilation>1+kernel>5".
std::string CombinationKey(const ConvProblem& p, const std::vector<std::string>& tags) {
  std::string key = (p.transposed ? "t" : "") + std::to_string(p.rank) + "d";
  for (const char* k : {"grouped", "dilation>1", "output_padding>0", "channels_last", "kernel>5"})
    if (HasClass(tags, k)) key += std::string("+") + k;
  return key;
}

// Moves a bucket's last sighting to (index, seconds) when that came later.
void SeenAgain(CampaignSummary::Bucket* b, int64_t case_index, double seconds) {
  if (case_index < 0 || seconds < 0) return;
  if (seconds > b->last_seconds ||
      (seconds == b->last_seconds && case_index > b->last_case_index)) {
    b->last_seconds = seconds;
    b->last_case_index = case_index;
  }
}

// Which bin of CampaignSummary::bound_use an error/bound falls in.
size_t BoundUseBin(double use) {
  if (!(use < 1)) return kBoundUseBins;  // NaN too: no bound held
  return std::min(static_cast<size_t>(std::max(use, 0.0) * kBoundUseBins),
                  static_cast<size_t>(kBoundUseBins - 1));
}

void AddReason(std::map<std::string, int64_t>* reasons, const std::string& reason, int64_t n) {
  std::string key = reason.empty() ? "(no reason given)" : reason.substr(0, kMaxReasonBytes);
  if (!reasons->count(key) && reasons->size() >= CampaignSummary::kMaxSkipReasons)
    key = CampaignSummary::kOtherReasons;
  (*reasons)[key] += n;
}

// Each run's series is a step function of its own time (its cases so far); the merged one is their
// sum at every time either has a point. Distinct findings are recounted from the merged buckets'
// first sightings, so that a bucket two shards found counts once.
void MergeTimelines(CampaignSummary* s, const CampaignSummary& other) {
  using Point = CampaignSummary::TimePoint;
  const std::vector<Point> a = s->timeline, &b = other.timeline;
  if (b.empty()) return;
  auto cases_at = [](const std::vector<Point>& series, double t) {
    int64_t cases = 0;
    for (const Point& p : series)
      if (p.seconds <= t) cases = p.cases;
    return cases;
  };
  std::set<double> times;
  for (const Point& p : a) times.insert(p.seconds);
  for (const Point& p : b) times.insert(p.seconds);
  s->timeline.clear();
  for (double t : times) {
    int64_t distinct = 0;
    for (const auto& [signature, bucket] : s->buckets) distinct += bucket.first_seconds <= t;
    s->timeline.push_back({t, cases_at(a, t) + cases_at(b, t), distinct});
  }
}

}  // namespace

void CountCase(CampaignSummary* s, const ConvCase& c, const CaseOutcome& outcome,
               bool count_shared_time) {
  ++s->cases;
  // Chain cases get rows of their own: what a SUT did on single convolutions stays readable.
  const std::string sut = *c.graph != ConvForm() ? c.sut + " (" + c.graph->name + ")" : c.sut;
  ++s->verdicts[sut][DirectionName(c.direction)][VerdictName(outcome.verdict)];
  if (count_shared_time) {
    s->time.fill += outcome.timing.fill;
    s->time.oracle += outcome.timing.oracle;
    s->time.protocol += outcome.timing.protocol;
    s->time.idle += outcome.timing.idle;
  } else {
    s->time.oracle += outcome.timing.own_oracle;
  }
  s->time.sut += outcome.timing.sut;
  s->time.compare += outcome.timing.compare;
  if (outcome.slow) {
    ++s->slow.cases;
    if (outcome.timing.sut >= s->slow.slowest_seconds) {
      s->slow.slowest_seconds = outcome.timing.sut;
      s->slow.slowest = c.sut + " " + CaseDescriptor(c.problem, c.direction);
    }
  }
  if (outcome.judgement.elements > 0) {
    ++s->computed;
    if (!outcome.notes.implementation.empty())
      AddReason(&s->implementations[c.sut], outcome.notes.implementation, 1);
  }
  if (outcome.verdict == Verdict::kMistrusted) ++s->mistrusted;
  if (outcome.verdict == Verdict::kSkipped) {
    ++s->skipped;
    AddReason(&s->skip_reasons, outcome.reason, 1);
  }
  if (outcome.verdict == Verdict::kInvalid) return;
  const std::vector<std::string> t = FeatureTags(c.problem);
  std::vector<std::string> present;
  for (const std::string& k : CoverageKeyClasses())
    if (HasClass(t, k)) present.push_back(k);
  auto count_pairs = [&](std::map<std::string, int64_t>* pairs) {
    for (size_t i = 0; i < present.size(); ++i)
      for (size_t j = i + 1; j < present.size(); ++j) ++(*pairs)[present[i] + "&" + present[j]];
  };
  if (outcome.verdict == Verdict::kSkipped) {
    count_pairs(&s->pairs_skipped);
    return;
  }
  if (IsDiscrepancy(outcome.verdict)) count_pairs(&s->pairs_failed);
  // The random fills are judged against a bound; how close they come to it is the kernel's margin.
  if (c.fill != Fill::kExact &&
      (outcome.verdict == Verdict::kPassed || outcome.verdict == Verdict::kFailed)) {
    std::vector<int64_t>& bins = s->bound_use[sut];
    bins.resize(kBoundUseBins + 1, 0);
    ++bins[BoundUseBin(outcome.judgement.max_bound_use)];
  }
  ++s->covered;
  for (const std::string& tag : t) ++s->tags[tag];
  count_pairs(&s->pairs);
  ++s->combinations[CombinationKey(c.problem, t)];
}

void CountFinding(CampaignSummary* s, const std::string& signature, const ConvCase& minimized,
                  Verdict verdict, Symptom symptom, const std::string& report_file,
                  int64_t case_index, double seconds) {
  auto [it, inserted] = s->buckets.try_emplace(signature);
  CampaignSummary::Bucket& b = it->second;
  if (inserted) {
    b.report_file = report_file;
    b.sut = minimized.sut;
    b.direction = DirectionName(minimized.direction);
    b.verdict = VerdictName(verdict);
    b.symptom = SymptomName(symptom);
    b.first_case_index = b.last_case_index = case_index;
    b.first_seconds = b.last_seconds = seconds;
  } else {
    ++b.hits;
    SeenAgain(&b, case_index, seconds);
  }
  ++b.cases;
}

void CountHit(CampaignSummary* s, const std::string& signature, int64_t case_index,
              double seconds) {
  CampaignSummary::Bucket& b = s->buckets[signature];
  ++b.cases;
  ++b.hits;
  SeenAgain(&b, case_index, seconds);
}

void CountShrink(CampaignSummary* s, const std::string& signature, int64_t steps, int64_t calls,
                 bool bound_hit, bool cut_short, int64_t macs, double seconds,
                 int64_t cases_beside) {
  ++s->shrinking.triaged;
  s->shrinking.steps += steps;
  s->shrinking.calls += calls;
  s->shrinking.bound_hits += bound_hit ? 1 : 0;
  s->shrinking.cut_short += cut_short ? 1 : 0;
  s->shrinking.seconds += seconds;
  CampaignSummary::Bucket::Shrink& first = s->buckets[signature].shrink;
  if (!first.triaged)
    first = {true, steps, calls, macs, bound_hit, cut_short, seconds, cases_beside};
}

void MergeSummary(CampaignSummary* s, const CampaignSummary& other) {
  // A default time point (the epoch) means "not set": it must not widen the range.
  const std::chrono::system_clock::time_point unset{};
  if (other.start_time != unset)
    s->start_time =
        s->start_time == unset ? other.start_time : std::min(s->start_time, other.start_time);
  if (other.end_time != unset) s->end_time = std::max(s->end_time, other.end_time);
  s->elapsed_seconds = std::max(s->elapsed_seconds, other.elapsed_seconds);
  s->workers += other.workers;
  s->cases += other.cases;
  for (const auto& [sut, by_direction] : other.verdicts)
    for (const auto& [direction, by_verdict] : by_direction)
      for (const auto& [verdict, n] : by_verdict) s->verdicts[sut][direction][verdict] += n;
  for (const auto& [signature, theirs] : other.buckets) {
    auto [it, inserted] = s->buckets.try_emplace(signature, theirs);
    if (inserted) continue;
    CampaignSummary::Bucket& ours = it->second;
    const int64_t total = ours.cases + theirs.cases;
    const CampaignSummary::Bucket before = ours;
    if (theirs.SeenBefore(ours) || ours.report_file.empty()) ours = theirs;
    ours.cases = total;
    ours.hits = total - 1;  // one report for both: every sighting but the first is a hit
    ours.last_case_index = before.last_case_index;
    ours.last_seconds = before.last_seconds;
    SeenAgain(&ours, theirs.last_case_index, theirs.last_seconds);
  }
  MergeTimelines(s, other);
  for (const auto& [sut, bins] : other.bound_use) {
    std::vector<int64_t>& ours = s->bound_use[sut];
    ours.resize(std::max(ours.size(), bins.size()), 0);
    for (size_t k = 0; k < bins.size(); ++k) ours[k] += bins[k];
  }
  s->incomplete_shards.insert(other.incomplete_shards.begin(), other.incomplete_shards.end());
  s->shrinking.triaged += other.shrinking.triaged;
  s->shrinking.steps += other.shrinking.steps;
  s->shrinking.calls += other.shrinking.calls;
  s->shrinking.bound_hits += other.shrinking.bound_hits;
  s->shrinking.cut_short += other.shrinking.cut_short;
  s->shrinking.seconds += other.shrinking.seconds;
  s->untriaged += other.untriaged;
  s->invalid_files.insert(s->invalid_files.end(), other.invalid_files.begin(),
                          other.invalid_files.end());
  s->time.generate += other.time.generate;
  s->time.fill += other.time.fill;
  s->time.oracle += other.time.oracle;
  s->time.bound += other.time.bound;
  s->time.sut += other.time.sut;
  s->time.compare += other.time.compare;
  s->time.shrink += other.time.shrink;
  s->time.io += other.time.io;
  s->time.protocol += other.time.protocol;
  s->time.idle += other.time.idle;
  s->covered += other.covered;
  for (const auto& [k, n] : other.tags) s->tags[k] += n;
  for (const auto& [k, n] : other.pairs) s->pairs[k] += n;
  for (const auto& [k, n] : other.pairs_skipped) s->pairs_skipped[k] += n;
  for (const auto& [k, n] : other.pairs_failed) s->pairs_failed[k] += n;
  for (const auto& [k, n] : other.combinations) s->combinations[k] += n;
  s->slow.cases += other.slow.cases;
  if (other.slow.slowest_seconds > s->slow.slowest_seconds) {
    s->slow.slowest_seconds = other.slow.slowest_seconds;
    s->slow.slowest = other.slow.slowest;
  }
  s->computed += other.computed;
  s->outside += other.outside;
  s->mistrusted += other.mistrusted;
  s->skipped += other.skipped;
  for (const auto& [reason, n] : other.skip_reasons) AddReason(&s->skip_reasons, reason, n);
  for (const auto& [sut, ran] : other.implementations)
    for (const auto& [what, n] : ran) AddReason(&s->implementations[sut], what, n);
  const std::string own = ShardText(s->options.shard_index, s->options.shard_count);
  const std::string theirs = ShardText(other.options.shard_index, other.options.shard_count);
  if (theirs != own) s->merged_shards.insert(theirs);
  for (const std::string& shard : other.merged_shards)
    if (shard != own) s->merged_shards.insert(shard);
}

}  // namespace convparity
