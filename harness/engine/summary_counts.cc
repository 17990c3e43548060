#include "harness/engine/summary_counts.h"

#include <algorithm>
#include <chrono>
#include <map>
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

}  // namespace

void CountCase(CampaignSummary* s, const ConvCase& c, const CaseOutcome& outcome,
               bool count_shared_time) {
  ++s->cases;
  // Chain cases get rows of their own: what a SUT did on single convolutions stays readable.
  const std::string sut = c.graph == GraphForm::kChain ? c.sut + " (chain)" : c.sut;
  ++s->verdicts[sut][DirectionName(c.direction)][VerdictName(outcome.verdict)];
  if (count_shared_time) {
    s->time.fill += outcome.timing.fill;
    s->time.oracle += outcome.timing.oracle;
    s->time.protocol += outcome.timing.protocol;
    s->time.idle += outcome.timing.idle;
  }
  s->time.sut += outcome.timing.sut;
  s->time.compare += outcome.timing.compare;
  if (outcome.verdict == Verdict::kMistrusted) ++s->mistrusted;
  if (outcome.verdict == Verdict::kSkipped) {
    ++s->skipped;
    AddReason(&s->skip_reasons, outcome.reason, 1);
  }
  if (outcome.verdict == Verdict::kSkipped || outcome.verdict == Verdict::kInvalid) return;
  ++s->covered;
  const std::vector<std::string> t = FeatureTags(c.problem);
  for (const std::string& tag : t) ++s->tags[tag];
  std::vector<std::string> present;
  for (const std::string& k : CoverageKeyClasses())
    if (HasClass(t, k)) present.push_back(k);
  for (size_t i = 0; i < present.size(); ++i)
    for (size_t j = i + 1; j < present.size(); ++j) ++s->pairs[present[i] + "&" + present[j]];
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
    b.first_case_index = case_index;
    b.first_seconds = seconds;
  } else {
    ++b.hits;
  }
  ++b.cases;
}

void CountHit(CampaignSummary* s, const std::string& signature) {
  CampaignSummary::Bucket& b = s->buckets[signature];
  ++b.cases;
  ++b.hits;
}

void CountShrink(CampaignSummary* s, const std::string& signature, int64_t steps, int64_t calls,
                 bool bound_hit, int64_t macs, double seconds, int64_t cases_beside) {
  ++s->shrinking.triaged;
  s->shrinking.steps += steps;
  s->shrinking.calls += calls;
  s->shrinking.bound_hits += bound_hit ? 1 : 0;
  s->shrinking.seconds += seconds;
  CampaignSummary::Bucket::Shrink& first = s->buckets[signature].shrink;
  if (!first.triaged) first = {true, steps, calls, macs, bound_hit, seconds, cases_beside};
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
    if (theirs.SeenBefore(ours) || ours.report_file.empty()) ours = theirs;
    ours.cases = total;
    ours.hits = total - 1;  // one report for both: every sighting but the first is a hit
  }
  s->shrinking.triaged += other.shrinking.triaged;
  s->shrinking.steps += other.shrinking.steps;
  s->shrinking.calls += other.shrinking.calls;
  s->shrinking.bound_hits += other.shrinking.bound_hits;
  s->shrinking.seconds += other.shrinking.seconds;
  s->untriaged += other.untriaged;
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
  for (const auto& [k, n] : other.combinations) s->combinations[k] += n;
  s->mistrusted += other.mistrusted;
  s->skipped += other.skipped;
  for (const auto& [reason, n] : other.skip_reasons) AddReason(&s->skip_reasons, reason, n);
  const std::string own = ShardText(s->options.shard_index, s->options.shard_count);
  const std::string theirs = ShardText(other.options.shard_index, other.options.shard_count);
  if (theirs != own) s->merged_shards.insert(theirs);
  for (const std::string& shard : other.merged_shards)
    if (shard != own) s->merged_shards.insert(shard);
}

}  // namespace convparity
