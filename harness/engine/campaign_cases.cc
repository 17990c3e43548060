#include "harness/engine/campaign_cases.h"

#include <algorithm>
#include <utility>

#include "core/prng.h"
#include "harness/engine/case_schedule.h"
#include "harness/suts/sut_registry.h"

namespace convparity {

DrawnCase DrawCase(const CampaignOptions& o, const rc::Gen<ConvProblem>& gen,
                   const std::vector<Direction>& directions, const std::vector<std::string>& suts,
                   int64_t i) {
  const size_t nd = directions.size();
  rc::Shrinkable<ConvProblem> problem =
      gen(rc::Random(MixSeed(o.seed, static_cast<uint64_t>(i))), rc::kNominalSize);
  const GraphForm* graph = &CampaignGraphForm(problem.value(), suts, o.check.suts, o.max_macs, i);
  return {std::move(problem), directions[i % nd], o.fills[(i / nd) % o.fills.size()],
          MixSeed(o.seed ^ 0x5EEDull, static_cast<uint64_t>(i)), graph};
}

ProblemSpace SpaceOf(const CampaignOptions& o) {
  ProblemSpace space;
  space.ranks = o.dims;
  space.max_macs = o.max_macs;
  // Large cases (ProblemSpace::large_factor) stay under the limit of every case: with --max-macs
  // given (it is then the limit too), there are none.
  space.large_factor = std::min<int64_t>(
      space.large_factor, o.check.limits.max_macs / std::max<int64_t>(o.max_macs, 1));
  space.channel_multiple = ChannelMultipleFor(o.suts, o.check.suts);
  return space;
}

std::vector<Direction> DirectionsOf(const CampaignOptions& o) {
  return o.directions.empty() ? AllDirections() : o.directions;
}

ConvCase CampaignCase(const CampaignOptions& options, int64_t index) {
  return DrawCase(options, GenProblem(SpaceOf(options)), DirectionsOf(options),
                  options.suts.empty() ? OurSutNames() : options.suts, index)
      .Case();
}

}  // namespace convparity
