// Last night against tonight: how the buckets of two campaigns (or merged campaigns) compare,
// convparity.comparison/1 (schema/comparison.schema.json). A bucket only tonight's run found is
// new; one both found is still failing; one only last night's found is gone, and its case is
// replayed (harness/engine/compare_runs.h): fixed when it now passes, not drawn when it still
// fails (tonight's campaign did not reach it), not replayed when the replay could not say.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "core/verdict.h"
#include "reports/summary_json.h"

namespace convparity {

constexpr const char* kComparisonSchema = "convparity.comparison/1";

enum class BucketChange { kNew, kStillFailing, kFixed, kNotDrawn, kNotReplayed };
constexpr BucketChange kAllBucketChanges[] = {BucketChange::kNew, BucketChange::kStillFailing,
                                              BucketChange::kFixed, BucketChange::kNotDrawn,
                                              BucketChange::kNotReplayed};
const char* BucketChangeName(BucketChange change);  // "new", "still_failing", …

struct BucketComparison {
  std::string signature, sut, direction, verdict;
  BucketChange change = BucketChange::kNotReplayed;
  // The bucket as each run's summary has it; absent in the run that did not find it.
  std::optional<CampaignSummary::Bucket> before, after;
  // A gone bucket's replay: the verdict its case got tonight, and why (empty before a replay).
  std::string replay_verdict, replay_reason;
};

// One side of a comparison: the folder, and what its summary says about the run.
struct ComparedRun {
  std::string folder;
  CampaignSummary summary;
  ToolInfo tool;
};

struct RunComparison {
  ComparedRun before, after;
  std::vector<BucketComparison> buckets;  // by signature
  int64_t Count(BucketChange change) const;
};

// Classifies every bucket of the two runs; a gone bucket stays kNotReplayed until ApplyReplay.
RunComparison CompareSummaries(const ComparedRun& before, const ComparedRun& after);
// A gone bucket's replay: passed (or mistrusted: a pass on a mostly-zero reference) is fixed, a
// discrepancy not drawn, anything else (skipped, invalid) not replayed, with its reason.
void ApplyReplay(BucketComparison* bucket, Verdict verdict, const std::string& reason);

nlohmann::json ComparisonJson(const RunComparison& c);

}  // namespace convparity
