// Which case a campaign checks as its index-th: a function of the options' seed, the index and
// what the SUTs declare they can run alone (whatever the jobs, shard or timing), drawn with its
// shrink tree for the triage.
#pragma once

#include <rapidcheck.h>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/capabilities.h"
#include "core/conv_case.h"
#include "core/status.h"
#include "generators/problem_gen.h"
#include "harness/engine/campaign.h"
#include "harness/models/model_formats.h"

namespace convparity {

// A drawn case: its problem with the generator's shrink tree, and the rest of the case.
struct DrawnCase {
  rc::Shrinkable<ConvProblem> problem;
  Direction direction;
  Fill fill;
  uint64_t seed;
  const GraphForm* graph;
  bool outside = false;  // outside the SUTs' declarations (mostly on purpose, just outside)
  Spelling spelling;     // plain unless a SUT reads a model format

  // The case, its problem conformed to its spelling (an auto-pad mode's pads).
  ConvCase Case() const {
    ConvCase c{problem.value(), direction, "", fill, seed};
    c.graph = graph;
    c.spelling = spelling;
    ConformToSpelling(spelling, c.problem);
    return c;
  }
};

// What a campaign draws from, made once: its space's generator, its directions, and what its SUTs
// declare they can run, together (core/capabilities.h Union; nothing declared when one of them
// declares nothing).
struct CampaignSpace {
  rc::Gen<ConvProblem> gen;
  Capabilities declarations;
  std::vector<std::string> suts;
  // The campaign's directions that some declaration runs (all of them when nothing is declared, or
  // when none is run: then every case is outside, drawn as it comes), and of those the ones where
  // a case can be just outside (no region there holds every problem).
  std::vector<Direction> directions, outside_directions;
  // By direction: `gen` narrowed to the ranks, kinds, groupings and dilation of the regions that
  // run it, which a case drawn inside is drawn from (fewer draws land outside); and whether a case
  // can land inside at all.
  std::vector<rc::Gen<ConvProblem>> inside;
  std::vector<bool> runs;
  // The model formats its SUTs read (harness/models/model_formats.h). With one, cases are drawn
  // with wished spellings from `spellings`, of the values one of them writes, fitted to the problem
  // (core/spelling.h FitSpelling). When every SUT reads a model, a case that none of their formats
  // writes is drawn again, like one that lands outside the declarations.
  std::vector<const ModelFormat*> formats;
  std::optional<rc::Gen<Spelling>> spellings;
  bool only_models = false;
};

// About one case in kOutsideEvery of a campaign whose SUTs declare what they run is drawn just
// outside that (core/capabilities.h JustOutside), in a direction they run: where a stack's own
// checks are tested.
constexpr uint64_t kOutsideEvery = 12;
// A case is drawn again, from another stream, until it lands where it is meant to, at most this
// many times (then it is taken as it is).
constexpr int kMaxDraws = 64;

// The space of a campaign with these options over `suts`: each SUT is made once, here, to ask what
// it declares (an error is the one MakeSut gives: a name no worker could make fails the campaign
// before it starts).
Result<CampaignSpace> MakeCampaignSpace(const CampaignOptions& o, std::vector<std::string> suts);

// Case i of the campaign: a function of (seed, i) and the space alone. Inside the SUTs'
// declarations, but for about one in kOutsideEvery; as before declarations when none is made.
DrawnCase DrawCase(const CampaignOptions& o, const CampaignSpace& space, int64_t i);

}  // namespace convparity
