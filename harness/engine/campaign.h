// A fuzz campaign: draw cases, check each against every selected SUT (in worker processes), and on
// a discrepancy hand it to a triage thread beside the workers, which confirms it, shrinks it to a
// 1-minimal case (harness/engine/triage.h), buckets it by the signature of that case (a finding
// whose bucket exists is a hit of it) and hands each new bucket to the caller at once, so that
// nothing found is lost if the run is killed. The case space is deterministic: case i depends only
// on (seed, i), and
// `--shard I/N` takes the indices i ≡ I (mod N).
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "core/conv_case.h"
#include "core/defaults.h"
#include "core/features.h"
#include "core/status.h"
#include "harness/engine/check_context.h"
#include "harness/engine/triage.h"
#include "reports/summary_json.h"

namespace convparity {

// A campaign's options: the settings its summary records (RunSettings), how its triage checks and
// shrinks a discrepancy (TriageOptions, which also say how its workers run cases), and its own.
struct CampaignOptions : RunSettings, TriageOptions {
  CampaignOptions() {  // a campaign's defaults of the settings its summary records
    seed = 1;
    max_macs = defaults::kMaxMacs;
    dims = {1, 2, 3};
  }
  std::vector<std::string> suts;      // empty: all of ours
  std::vector<Direction> directions;  // empty: all three
  std::vector<Fill> fills{Fill::kExact, Fill::kUniform, Fill::kPositive, Fill::kWide};
  double seconds = defaults::kCampaignSeconds;
  int64_t stop_after_buckets = 0;  // stop once this many buckets are found; 0: never
  bool quiet = false;
};

struct CampaignHooks {
  std::function<void(const Finding&)> on_new_bucket;          // at once, one at a time
  std::function<void(const CampaignSummary&)> on_checkpoint;  // every few seconds, and at the end
};

// The case a campaign with these options checks as its index-th (SUT left empty): a function of
// (seed, index) and what its SUTs declare alone, whatever the jobs, shard or timing. Makes the
// SUTs to ask them (an error is MakeSut's).
Result<ConvCase> CampaignCase(const CampaignOptions& options, int64_t index);

Result<CampaignSummary> RunCampaign(const CampaignOptions& options, const CampaignHooks& hooks);

// Asks a running campaign to stop after the cases in flight (for SIGINT / SIGTERM handlers).
void RequestCampaignStop();
// Whether the last campaign was asked to stop: it ended before its budget, and its summary names
// its shard incomplete.
bool CampaignStopRequested();

}  // namespace convparity
