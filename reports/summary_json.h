// The campaign summary, convparity.summary/3 (docs/INTERFACES.md): what a run did, what it found,
// where the time went and which feature classes it actually exercised. reports/ writes and reads
// it; the campaign counts into it, and per-worker or per-shard summaries add up
// (harness/engine/summary_counts.h). Its JSON Schema is schema/summary.schema.json.
#pragma once

#include <chrono>
#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "core/conv_case.h"
#include "core/status.h"
#include "core/verdict.h"
#include "reports/report_json.h"

namespace convparity {

// Version 2 adds the triage's fields (findings, shrinking, each bucket's hits and shrink); version
// 3 what a merge across machines and a report need (the SUTs' versions, shards that did not finish
// or are missing, each bucket's last sighting, the series over the run's time, how close the
// random fills came to their bound). Versions 1 and 2 still read, without them.
constexpr const char* kSummarySchema = "convparity.summary/3";
constexpr const char* kSummarySchemaV2 = "convparity.summary/2";
constexpr const char* kSummarySchemaV1 = "convparity.summary/1";

// Bins of a check's max error/bound (Judgement::max_bound_use) in the random fills: kBoundUseBins
// of equal width below 1, then one for 1 and above (a failure).
constexpr size_t kBoundUseBins = 10;

// The classes whose pairwise intersections the coverage table counts ("transposed&grouped", …):
// where convolution code has its interacting edge cases. "grouped" here means groups > 1,
// depthwise included.
const std::vector<std::string>& CoverageKeyClasses();

// The settings of a campaign that its summary records as they were given, in the same types: the
// campaign's options (harness/engine/campaign.h) are built on them, and its summary copies them
// whole. The defaults are a summary's that no campaign wrote (`convparity check`'s).
struct RunSettings {
  uint64_t seed = 0;
  int shard_index = 0, shard_count = 1;
  int jobs = 1;
  int64_t max_cases = 0;  // generated cases (each checked against every SUT); 0: no limit
  int64_t max_macs = 0;
  std::vector<int> dims;
};

struct CampaignSummary {
  // The run's options, as given (names as on the command line).
  struct Options : RunSettings {
    double time_budget_seconds = 0;  // 0: none
    std::vector<std::string> suts, directions, fills;
  } options;

  std::chrono::system_clock::time_point start_time, end_time;
  double elapsed_seconds = 0;  // wall time of the run
  // Worker processes the counted cases ran on; throughput per worker divides by it (0, unset,
  // counts as 1). MergeSummary adds them: merge per-worker summaries that each say 1, or per-shard
  // summaries that each say jobs, into one that says 0.
  int workers = 0;

  // A case names its SUT and direction (ConvCase), so every check of a SUT is one case.
  int64_t cases = 0;
  // Of them, the cases a SUT computed (their results were judged: what the headline rate counts),
  // and those drawn outside the declarations of the campaign's SUTs (core/capabilities.h), mostly
  // on purpose. A summary written before either was counted derives `computed` from the verdicts
  // of a judged result (passed, failed, mistrusted, unwritten) and has no `outside`.
  int64_t computed = 0, outside = 0;
  // SUT → direction → verdict → cases.
  std::map<std::string, std::map<std::string, std::map<std::string, int64_t>>> verdicts;

  struct Bucket {
    std::string report_file;  // the report's file name (ReportFileName)
    std::string sut, direction, verdict;
    // A failed verdict's symptom (core/verdict.h SymptomName); empty for other verdicts, and in
    // summaries written before buckets had one.
    std::string symptom;
    int64_t cases = 0;             // discrepancies that fell in this bucket
    int64_t first_case_index = 0;  // the case counter when it was first seen
    double first_seconds = 0;      // seconds into the run when it was first seen
    // The latest sighting counted (the first, if no hit said when): summary/3.
    int64_t last_case_index = 0;
    double last_seconds = 0;
    int64_t hits = 0;  // discrepancies after the first that fell in this bucket
    // How its reported (first) finding was shrunk: accepted steps, SUT calls, whether a bound
    // ended the structural pass (the case may then not be 1-minimal), the case's MACs.
    struct Shrink {
      bool triaged = false;
      int64_t steps = 0, calls = 0, macs = 0;
      bool bound_hit = false;
      bool cut_short = false;  // the campaign's time budget ended it (Finding::shrink_cut_short)
      double seconds = 0;
      int64_t cases_beside = 0;  // cases the campaign's workers checked meanwhile
    } shrink;

    // Whether this sighting came before `other`'s: earlier in seconds, then in case index.
    // MergeSummary keeps the earlier one, and so does `convparity merge` when it picks the report
    // to keep.
    bool SeenBefore(const Bucket& other) const;
  };
  std::map<std::string, Bucket> buckets;  // by signature
  // Every triage (each shrink of a discrepancy), summed; and discrepancies never triaged (still
  // queued when a timed campaign's budget and its grace ran out).
  struct Shrinking {
    int64_t triaged = 0, steps = 0, calls = 0, bound_hits = 0;
    int64_t cut_short = 0;  // triages the campaign's time budget ended
    double seconds = 0;
  } shrinking;
  int64_t untriaged = 0;

  // Seconds per phase, summed over workers (so it can exceed the elapsed time). CountCase() adds
  // fill, oracle, sut, compare, protocol and idle from each outcome; the campaign adds the others
  // directly. `bound` is inside the oracle unless measured apart; `sut` is the SUT's own calls,
  // the layout conversions around them count as compare. A worker's time is fill + oracle + sut +
  // compare + protocol (its requests and answers, its start) + idle (waiting for cases);
  // generate, shrink and io are the campaign's threads', which overlap their workers' while cases
  // are in flight.
  struct TimeSplit {
    double generate = 0, fill = 0, oracle = 0, bound = 0, sut = 0, compare = 0, shrink = 0, io = 0;
    double protocol = 0, idle = 0;
  } time;

  // Coverage counts cases whose SUT actually ran (every verdict but skipped and invalid).
  int64_t covered = 0;
  std::map<std::string, int64_t> tags;          // every AllFeatureTagNames() tag
  std::map<std::string, int64_t> pairs;         // "a&b" for each pair of CoverageKeyClasses()
  std::map<std::string, int64_t> combinations;  // exact combination, e.g. "t3d+grouped+kernel>5"
  // summary/3: the pairs of the checks a SUT skipped, and of those that ended in a discrepancy.
  std::map<std::string, int64_t> pairs_skipped, pairs_failed;

  // Runs that ran out of their first time limit and then finished alone under a longer one
  // (harness/engine/time_limits.h): slow, not hung. The slowest: its SUT's own seconds and what
  // ran.
  struct Slow {
    int64_t cases = 0;
    double slowest_seconds = 0;
    std::string slowest;  // "<sut> <descriptor>"
  } slow;

  int64_t mistrusted = 0;
  int64_t skipped = 0;
  // Reason → count; at most kMaxSkipReasons distinct reasons, the rest under kOtherReasons.
  std::map<std::string, int64_t> skip_reasons;
  static constexpr size_t kMaxSkipReasons = 32;
  static constexpr const char* kOtherReasons = "(other reasons)";
  // What each SUT said it ran (RunNotes::implementation: oneDNN's implementation, the ops ONNX
  // Runtime's optimizer left), over its computed checks: SUT → what → checks; at most
  // kMaxSkipReasons per SUT, the rest under kOtherReasons. Coverage of code a clean result does
  // not show otherwise; summaries written before it was counted have none.
  std::map<std::string, std::map<std::string, int64_t>> implementations;

  // Case files `convparity check` could not replay (unreadable, malformed, an illegal or oversized
  // problem), each with its one-line reason; a campaign has none.
  struct InvalidFile {
    std::string file, reason;
  };
  std::vector<InvalidFile> invalid_files;

  // Shards merged into this summary besides its own, as "i/N".
  std::set<std::string> merged_shards;

  // summary/3. What each SUT of the run is, as its own code says (SutVersion,
  // harness/suts/sut_version.h): SUT name → version text. A merge refuses shards whose versions
  // differ unless told to mix them, and then lists in `mixed_versions` what differed.
  std::map<std::string, std::string> sut_versions;
  std::vector<std::string> mixed_versions;
  // Shards (own or merged) whose run did not end by itself: stopped by a signal, or killed
  // (their last checkpoint still names them). A shard that is neither listed nor merged is
  // missing; SummaryJson writes those too.
  std::set<std::string> incomplete_shards;
  // The run over its time, a point per checkpoint: checks and distinct findings so far.
  struct TimePoint {
    double seconds = 0;
    int64_t cases = 0, distinct = 0;
  };
  std::vector<TimePoint> timeline;
  // SUT → checks of a random fill judged within or over their bound, by bin of error/bound
  // (kBoundUseBins + 1 counts).
  std::map<std::string, std::vector<int64_t>> bound_use;
};

nlohmann::json SummaryJson(const CampaignSummary& s, const ToolInfo& tool);

// "i/N", as the summary names a shard.
std::string ShardText(int index, int count);
// The shards of the campaign `s` belongs to (its own shard count) that it neither ran nor merged.
std::vector<std::string> MissingShards(const CampaignSummary& s);
// Every verdict's name, in the order of the Verdict enum.
std::vector<std::string> VerdictNames();
// Every symptom's name but none's (""), in the order of the Symptom enum.
std::vector<std::string> SymptomNames();

// The inverse of SummaryJson: SummaryJson(*SummaryFromJson(j), tool) == j for every j SummaryJson
// wrote with `tool`. Strict, like the schema: the schema name and version must be ours, every field
// must be there with its type and range, and an unknown field is an error (a misspelling must not
// pass for a zero). Values SummaryJson derives (totals by verdict, throughput rates) are checked
// for type but not read. Errors are one line and name the field ("field 'options.seed': …");
// nothing throws, whatever `j` holds. `tool`, when given, receives the file's tool block.
Result<CampaignSummary> SummaryFromJson(const nlohmann::json& j, ToolInfo* tool = nullptr);

}  // namespace convparity
