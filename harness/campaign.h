// A fuzz campaign: generate cases, check each against every selected SUT, keep going after failures,
// report each discrepancy. (Shrinking, bucketing, workers and sharding build on this loop.)
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "core/conv_case.h"
#include "harness/check_case.h"

namespace convparity {

struct CampaignOptions {
  std::vector<std::string> suts;        // empty: all of ours
  std::vector<Direction> directions;    // empty: all three
  std::vector<int> dims{1, 2, 3};
  std::vector<Fill> fills{Fill::kExact, Fill::kUniform, Fill::kPositive, Fill::kWide};
  uint64_t seed = 1;
  double seconds = 60;
  int64_t max_cases = 0;                // 0: no limit
  int64_t max_macs = 200000;
  bool quiet = false;
};

struct Finding {
  ConvCase original;
  CaseOutcome outcome;
};

struct CampaignStats {
  int64_t cases = 0;
  double seconds = 0;
  std::map<std::string, std::map<std::string, int64_t>> verdicts;  // sut → verdict → count
  std::vector<Finding> findings;
};

// Calls `on_finding` as soon as a discrepancy is found, so that nothing is lost if the run is killed.
Result<CampaignStats> RunCampaign(const CampaignOptions& options,
                                  const std::function<void(const Finding&)>& on_finding);

}  // namespace convparity
