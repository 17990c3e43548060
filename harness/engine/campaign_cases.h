// Which case a campaign checks as its index-th: a function of the options' seed and the index
// alone (whatever the jobs, shard or timing), drawn with its shrink tree for the triage.
#pragma once

#include <rapidcheck.h>

#include <cstdint>
#include <string>
#include <vector>

#include "core/conv_case.h"
#include "generators/problem_gen.h"
#include "harness/engine/campaign.h"

namespace convparity {

// A drawn case: its problem with the generator's shrink tree, and the rest of the case.
struct DrawnCase {
  rc::Shrinkable<ConvProblem> problem;
  Direction direction;
  Fill fill;
  uint64_t seed;
  const GraphForm* graph;

  ConvCase Case() const {
    ConvCase c{problem.value(), direction, "", fill, seed};
    c.graph = graph;
    return c;
  }
};

// The problem space a campaign with these options draws from.
ProblemSpace SpaceOf(const CampaignOptions& o);

// The directions a campaign checks (all three when none is named).
std::vector<Direction> DirectionsOf(const CampaignOptions& o);

// Case i of the campaign: a function of (seed, i) and the SUTs alone.
DrawnCase DrawCase(const CampaignOptions& o, const rc::Gen<ConvProblem>& gen,
                   const std::vector<Direction>& directions, const std::vector<std::string>& suts,
                   int64_t i);

}  // namespace convparity
