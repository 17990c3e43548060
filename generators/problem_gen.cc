#include "generators/problem_gen.h"

#include <algorithm>
#include <array>
#include <climits>
#include <functional>
#include <memory>
#include <utility>

#include "core/capabilities.h"
#include "core/descriptor.h"
#include "generators/problem_recipe.h"
#include "generators/rc_choices.h"
#include "generators/space_recipe.h"

namespace convparity {
namespace {

using recipe::Assemble;
using recipe::FitToMacs;
using recipe::Recipe;

std::vector<int> UsableRanks(const ProblemSpace& space) {
  std::vector<int> ranks;
  for (int rank : space.ranks)
    if (rank >= 1 && rank <= kMaxSpatialRank) ranks.push_back(rank);
  std::sort(ranks.begin(), ranks.end());
  ranks.erase(std::unique(ranks.begin(), ranks.end()), ranks.end());
  return ranks;
}

}  // namespace

rc::Gen<ConvProblem> GenProblemUnfiltered(const ProblemSpace& space) {
  const std::vector<int> ranks = UsableRanks(space);
  if (ranks.empty()) throw rc::GenerationFailure("ProblemSpace has no rank in 1..3");
  if (!space.ordinary && !space.transposed)
    throw rc::GenerationFailure("ProblemSpace allows neither ordinary nor transposed convolution");
  recipe::SpaceParams params;
  params.ranks = ranks;
  params.ordinary = space.ordinary;
  params.transposed = space.transposed;
  for (int rank = 1; rank <= kMaxSpatialRank; ++rank)
    params.max_kernel[rank] = MaxKernel(space, rank);
  params.channel_multiple = space.channel_multiple;
  const int64_t large_macs = LargeMacs(space);
  params.large_percent = large_macs > space.max_macs ? std::min(space.large_percent, 100) : 0;
  params.layouts = space.layouts;
  params.bias = space.bias;
  params.dilation = space.dilation;
  params.group_kinds = space.group_kinds;
  params.ranges = space::kGeneratorRanges;
  const rc::Gen<Recipe> recipe = recipe::SpaceRecipe<RcChoices>::Draw(params);
  auto fits =
      std::make_shared<const std::array<FitPolicy<Recipe>, 2>>(std::array<FitPolicy<Recipe>, 2>{
          recipe::MacsFit(space.max_macs), recipe::MacsFit(large_macs)});
  return rc::gen::map(
      recipe, [fits](const Recipe& r) { return Assemble(FitToMacs(r, (*fits)[r.large ? 1 : 0])); });
}

int64_t MaxKernel(const ProblemSpace& space, int rank) {
  const int64_t of_rank =
      rank >= 1 && rank <= kMaxSpatialRank ? defaults::kMaxKernelOfRank[rank] : 1;
  return std::max<int64_t>(std::min(space.max_kernel, of_rank), 1);
}

int64_t LargeMacs(const ProblemSpace& space) {
  if (space.large_percent <= 0 || space.large_factor <= 1) return space.max_macs;
  return space::LargeCaseMacs(space.max_macs, space.large_factor);
}

rc::Gen<Spelling> GenSpelling(const SpellingMask& allowed) {
  return recipe::SpaceRecipe<RcChoices>::SpellingOf(allowed);
}

rc::Gen<ConvProblem> GenProblem(const ProblemSpace& space) {
  return choices::Memoized(rc::gen::suchThat(
      GenProblemUnfiltered(space), [space](const ConvProblem& p) { return InSpace(p, space); }));
}

bool InSpace(const ConvProblem& p, const ProblemSpace& space) {
  if (!Validate(p).ok()) return false;
  if (std::find(space.ranks.begin(), space.ranks.end(), p.rank) == space.ranks.end()) return false;
  if (p.transposed ? !space.transposed : !space.ordinary) return false;
  for (int i = 0; i < p.rank; ++i)
    if (p.kernel[i] > MaxKernel(space, p.rank)) return false;
  if (p.macs() > LargeMacs(space)) return false;
  if (!space.layouts &&
      (p.data_layout != DataLayout::kChannelsFirst || p.weight_layout != p.natural_weight_layout()))
    return false;
  if (!space.bias && p.bias) return false;
  if (!space.dilation &&
      std::any_of(p.dilation.begin(), p.dilation.begin() + p.rank, [](int64_t d) { return d > 1; }))
    return false;
  return (space.group_kinds >> static_cast<int>(GroupKindOf(p)) & 1u) != 0;
}

void showValue(const ConvProblem& p, std::ostream& os) { os << ProblemDescriptor(p); }

}  // namespace convparity
