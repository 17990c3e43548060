#include "harness/engine/campaign_cases.h"

#include <algorithm>
#include <memory>
#include <optional>
#include <utility>

#include "core/prng.h"
#include "harness/engine/case_schedule.h"
#include "harness/models/model_sut.h"
#include "harness/suts/sut_registry.h"

namespace convparity {
namespace {

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

// The streams of a case's redraws and of its choice to be drawn outside, apart from its first draw
// (MixSeed(seed, i), as before declarations) and its fill's seed.
constexpr uint64_t kRedrawStream = 0xD3A7ull, kOutsideStream = 0x0575ull;
constexpr uint64_t kSpellingStream = 0x5BE1ull;

// `all` narrowed to what the regions of `declared` that run `d` draw: their ranks, kinds and
// groupings, and dilation if one of them has it. None when no region runs d inside `all`.
std::optional<ProblemSpace> Narrowed(const ProblemSpace& all, const Capabilities& declared,
                                     Direction d) {
  ProblemSpace narrowed = all;
  uint32_t ranks = 0, kinds = 0;
  narrowed.dilation = false;
  narrowed.group_kinds = 0;
  for (const CapabilityRegion& r : declared.regions) {
    if (!(r.directions & DirectionMask({d})) || !(r.forms & kConvFormBit)) continue;
    ranks |= r.ranks;
    kinds |= r.kinds;
    narrowed.group_kinds |= r.groups;
    narrowed.dilation = narrowed.dilation || r.dilation;
  }
  narrowed.ranks.clear();
  for (int rank : all.ranks)
    if (ranks >> rank & 1u) narrowed.ranks.push_back(rank);
  narrowed.ordinary = all.ordinary && (kinds & kOrdinaryBit);
  narrowed.transposed = all.transposed && (kinds & kTransposedBit);
  if (narrowed.ranks.empty() || !(narrowed.ordinary || narrowed.transposed)) return std::nullopt;
  return narrowed;
}

}  // namespace

Result<CampaignSpace> MakeCampaignSpace(const CampaignOptions& o, std::vector<std::string> suts) {
  std::vector<Capabilities> declarations;
  std::vector<const ModelFormat*> formats;
  bool only_models = !suts.empty();
  for (const std::string& name : suts) {
    Result<std::unique_ptr<Sut>> sut = MakeSut(name, o.check.suts);
    if (!sut.ok()) return sut.status();
    declarations.push_back((*sut)->capabilities());
    const auto* reader = dynamic_cast<const ModelSut*>(sut->get());
    only_models = only_models && reader != nullptr;
    const ModelFormat* format = reader ? FindModelFormat(reader->format()) : nullptr;
    if (format && std::find(formats.begin(), formats.end(), format) == formats.end())
      formats.push_back(format);
  }
  const ProblemSpace all = SpaceOf(o);
  CampaignSpace space{GenProblem(all), Union(declarations), std::move(suts), {}, {}, {}, {}};
  space.only_models = only_models && !formats.empty();
  if (!formats.empty()) {
    SpellingMask written = SpellingMask::PlainOnly();
    for (const ModelFormat* f : formats) written |= SpellingMask::AllBut(f->unwritten);
    space.spellings = GenSpelling(written);
  }
  // Unless the user names them, a campaign of model readers draws the directions their formats
  // write.
  std::vector<Direction> directions = o.directions;
  if (directions.empty() && space.only_models)
    for (Direction d : AllDirections())
      if (std::any_of(formats.begin(), formats.end(), [d](const ModelFormat* f) {
            return std::count(f->directions.begin(), f->directions.end(), d) > 0;
          }))
        directions.push_back(d);
  if (directions.empty()) directions = AllDirections();
  space.formats = std::move(formats);
  space.inside.assign(AllDirections().size(), space.gen);
  space.runs.assign(AllDirections().size(), !space.declarations.declared);
  for (Direction d : directions) {
    if (!space.declarations.declared) {
      space.directions.push_back(d);
      continue;
    }
    const std::optional<ProblemSpace> narrowed = Narrowed(all, space.declarations, d);
    if (!narrowed) continue;
    space.directions.push_back(d);
    space.inside[static_cast<size_t>(d)] = GenProblem(*narrowed);
    space.runs[static_cast<size_t>(d)] = true;
    const std::vector<CapabilityRegion>& regions = space.declarations.regions;
    if (std::none_of(regions.begin(), regions.end(), [d](const CapabilityRegion& r) {
          return (r.directions & DirectionMask({d})) && (r.forms & kConvFormBit) &&
                 HoldsEveryProblem(r);
        }))
      space.outside_directions.push_back(d);
  }
  if (space.directions.empty()) space.directions = directions;
  return space;
}

DrawnCase DrawCase(const CampaignOptions& o, const CampaignSpace& space, int64_t i) {
  const uint64_t index = static_cast<uint64_t>(i);
  const Capabilities& declared = space.declarations;
  const bool outside = declared.declared && !space.outside_directions.empty() &&
                       MixSeed(o.seed ^ kOutsideStream, index) % kOutsideEvery == 0;
  const std::vector<Direction>& directions = outside ? space.outside_directions : space.directions;
  const size_t nd = directions.size();
  const Direction d = directions[index % nd];
  // A case drawn inside comes from the space narrowed to the regions of its direction.
  const rc::Gen<ConvProblem>& gen = outside ? space.gen : space.inside[static_cast<size_t>(d)];
  // Attempt 0 is the first draw (MixSeed(seed, i), as before declarations); the others redraw.
  auto stream = [&](uint64_t of, int attempt) {
    return attempt == 0 ? MixSeed(of, index) : MixSeed(MixSeed(of ^ kRedrawStream, index), attempt);
  };
  auto draw = [&](int attempt) {
    // A narrowed space too small for the generator's filter: the whole space, redrawn.
    try {
      rc::Shrinkable<ConvProblem> drawn =
          gen(rc::Random(stream(o.seed, attempt)), rc::kNominalSize);
      drawn.value();
      return drawn;
    } catch (const rc::GenerationFailure&) {
      return space.gen(rc::Random(stream(o.seed, attempt)), rc::kNominalSize);
    }
  };
  // The spelling the generators wish for, fitted to p: without an auto-pad mode whose pads would
  // take the case past the campaign's cap on work (SAME's output is ⌈in/s⌉).
  auto spelled = [&](const ConvProblem& p, int attempt) {
    if (!space.spellings) return Spelling{};
    const Spelling wished =
        (*space.spellings)(rc::Random(stream(o.seed ^ kSpellingStream, attempt)), rc::kNominalSize)
            .value();
    const int64_t cap = std::max(o.max_macs, p.macs());
    return FitSpelling(wished, p, [cap](const ConvProblem& q) { return q.macs() <= cap; });
  };
  // Some reader's format writes the case.
  auto written = [&](const ConvProblem& p, const GraphForm& form, const Spelling& s) {
    ConvProblem conformed = p;
    ConformToSpelling(s, conformed);
    for (const ModelFormat* f : space.formats)
      if (FormatWrites(*f, conformed, form, d, s).ok()) return true;
    return false;
  };
  const bool can_land = declared.declared && (outside || space.runs[static_cast<size_t>(d)]);
  rc::Shrinkable<ConvProblem> problem = draw(0);
  const GraphForm* graph = nullptr;
  Spelling spelling;
  for (int attempt = 0;; problem = draw(++attempt)) {
    const ConvProblem& p = problem.value();
    const bool last = attempt + 1 >= kMaxDraws;  // taken as it is
    if (!last && can_land &&
        (outside ? !JustOutside(declared, ConvForm().name, d, p)
                 : WhyOutside(declared, ConvForm().name, d, p).has_value()))
      continue;  // its graph form and spelling are not needed
    graph = &CampaignGraphForm(p, space.suts, o.check.suts, o.max_macs, i);
    spelling = spelled(p, attempt);
    if (last || !space.only_models || written(p, *graph, spelling)) break;
  }
  const bool landed_outside = WhyOutside(declared, graph->name, d, problem.value()).has_value();
  return {std::move(problem),
          d,
          o.fills[(index / nd) % o.fills.size()],
          MixSeed(o.seed ^ 0x5EEDull, index),
          graph,
          landed_outside,
          spelling};
}

Result<ConvCase> CampaignCase(const CampaignOptions& options, int64_t index) {
  Result<CampaignSpace> space =
      MakeCampaignSpace(options, options.suts.empty() ? OurSutNames() : options.suts);
  if (!space.ok()) return space.status();
  return DrawCase(options, *space, index).Case();
}

}  // namespace convparity
