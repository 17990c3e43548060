#include "generators/problem_gen.h"

#include <algorithm>
#include <array>
#include <climits>
#include <functional>
#include <memory>
#include <utility>

#include "core/descriptor.h"
#include "generators/problem_recipe.h"
#include "generators/rc_choices.h"
#include "generators/space_rules.h"

namespace convparity {
namespace {

using choices::Chain;
using choices::Just;
using choices::Pick;
using choices::Range;
using choices::Uniform;
using recipe::Assemble;
using recipe::Channels;
using recipe::DimRecipe;
using recipe::FitToMacs;
using recipe::Layouts;
using recipe::Recipe;
using space::kGeneratorRanges;

// The generator's side of a choice written once in generators/space_rules.h: a single value is
// gen::just, a range is uniform.
template <size_t N>
rc::Gen<int64_t> PickOf(const std::array<space::ChoiceOption, N>& options) {
  choices::Options<int64_t> list;
  for (const space::ChoiceOption& o : options)
    list.push_back(o.lo == o.hi ? std::pair{o.weight, Just(o.lo)} : Range(o.weight, o.lo, o.hi));
  return Pick<int64_t>(std::move(list));
}

// Largest output size drawn per dimension: 3-D problems are kept coarse so the MAC cap leaves room
// for channels.
int64_t MaxExtent(int rank) { return rank == 1 ? 48 : rank == 2 ? 16 : 6; }

const std::vector<int64_t>& SmallPrimes() {
  static const std::vector<int64_t> primes{5, 7, 11, 13};
  return primes;
}

// Channel counts at the block sizes of real libraries (8, 16, 32, 64) and one off them: their
// blocked paths and tails.
const std::vector<int64_t>& NearBlockSizes() {
  static const std::vector<int64_t> sizes{7, 8, 9, 15, 16, 17, 31, 32, 33, 64};
  return sizes;
}

// Kernels beyond 9 taps: 1-D often 10–32 (audio, WaveNet-like models), rarely up to 64; 2-D and
// 3-D up to their caps. Rare enough per dimension that small kernels stay the bulk.
rc::Gen<int64_t> GenKernel(int rank, int64_t max_kernel, bool big_bias) {
  // 3-D transposed convolution with 7–9 taps is where real frontends broke (BUGS.md).
  const int64_t mid_cap = rank == 1 ? 32 : max_kernel;
  return Pick<int64_t>({{big_bias ? 10 : 25, Just<int64_t>(1)},
                        Range(big_bias ? 20 : 35, 2, std::min<int64_t>(3, max_kernel)),
                        Range(big_bias ? 15 : 20, 4, std::min<int64_t>(6, max_kernel)),
                        Range(big_bias ? 55 : 20, 7, std::min<int64_t>(9, max_kernel)),
                        Range(rank == 1 ? 6 : 4, 10, std::min(mid_cap, max_kernel)),
                        Range(rank == 1 ? 2 : 0, mid_cap + 1, max_kernel)});
}

// Dilation > 1 with a 1-tap kernel is legal and only matters for output_padding's bound.
rc::Gen<int64_t> GenDilation() {
  return Pick<int64_t>({{65, Just<int64_t>(1)},
                        {25, Just<int64_t>(2)},
                        Range(10, 3, kGeneratorRanges.max_dilation)});
}

// Stride > kernel (input skipped; gaps in a transposed output) comes from strides 2–4 over small
// kernels and from the 5–10 option. In several dimensions at once it makes dgrad / transposed
// outputs mostly zeros, so large strides stay a minority, more so in 3-D.
rc::Gen<int64_t> GenStride(int rank) {
  const bool deep = rank == 3;
  return Pick<int64_t>({{deep ? 68 : 60, Just<int64_t>(1)},
                        {deep ? 20 : 24, Just<int64_t>(2)},
                        Range(deep ? 8 : 10, 3, 4),
                        Range(deep ? 4 : 6, 5, kGeneratorRanges.max_stride)});
}

// Padding of at most `begin_cap` before and `end_cap` after.
rc::Gen<std::pair<int64_t, int64_t>> GenPadding(int64_t begin_cap, int64_t end_cap) {
  using Pads = std::pair<int64_t, int64_t>;
  const int64_t sym_max = std::min(begin_cap, end_cap);
  rc::Gen<Pads> none = Just(Pads{0, 0});
  rc::Gen<Pads> symmetric = rc::gen::map(Uniform(1, sym_max), [](int64_t p) { return Pads{p, p}; });
  // Asymmetric: pad_end drawn from [0, end_cap] with pad_begin's value taken out.
  rc::Gen<Pads> asymmetric = Chain(Uniform(0, begin_cap), [end_cap](int64_t begin) {
    const int64_t choices = end_cap + 1 - (begin <= end_cap ? 1 : 0);
    if (choices <= 0) return Just(Pads{begin, begin});
    return rc::gen::map(Uniform(0, choices - 1), [begin](int64_t u) {
      return Pads{begin, u >= begin ? u + 1 : u};
    });
  });
  return Pick<Pads>({{40, none},
                     {sym_max >= 1 ? 30 : 0, symmetric},
                     {begin_cap + end_cap >= 1 ? 30 : 0, asymmetric}});
}

// A large case draws longer extents: tiled paths need several tiles.
rc::Gen<int64_t> GenExtent(int rank, bool large) {
  return Pick<int64_t>({{large ? 5 : 20, Just<int64_t>(1)},
                        Range(large ? 15 : 45, 2, 4),
                        Range(35, 5, MaxExtent(rank)),
                        Range(large ? 45 : 0, MaxExtent(rank) + 1, 2 * MaxExtent(rank))});
}

// One spatial dimension. Chain: (kernel, dilation, stride) → output_padding (transposed; it depends
// on stride and dilation only) → padding (on the dilated kernel and output_padding) → remainder and
// size. Kernel, dilation and stride are drawn independently with fixed weights, so that shrinking
// one of them redraws what depends on it with the same option (see Pick): output_padding at its
// maximum stays at its maximum while the kernel shrinks to 1.
rc::Gen<DimRecipe> GenDim(int rank, bool transposed, bool large, int64_t max_kernel) {
  using KDS = std::tuple<int64_t, int64_t, int64_t>;
  const bool big_bias = rank == 3 && transposed;
  return Chain(
      rc::gen::tuple(GenKernel(rank, max_kernel, big_bias), GenDilation(), GenStride(rank)),
      choices::Cached<KDS>([=](const KDS& kds) {
        DimRecipe base;
        std::tie(base.kernel, base.dilation, base.stride) = kds;
        const int64_t reach = base.dilation * (base.kernel - 1);  // dilated kernel − 1
        if (!transposed) {
          // Padding up to the dilated kernel: then every window still touches the input (with the
          // input at least `dilation` long, see Assemble), so no output is pure padding.
          // Rarely, padding beyond that reach: outputs wholly in the padding are an edge of their
          // own (oneDNN's DNNL-796 ran a kernel row there). Shrinks away first.
          rc::Gen<int64_t> remainder =
              Pick<int64_t>({{60, Just<int64_t>(0)}, Range(40, 1, base.stride - 1)});
          rc::Gen<int64_t> excess = Pick<int64_t>(
              {{93, Just<int64_t>(0)}, Range(7, 1, kGeneratorRanges.pad_beyond_reach)});
          auto parts = rc::gen::tuple(GenPadding(reach, reach), remainder, GenExtent(rank, large),
                                      excess, excess);
          return rc::gen::map(std::move(parts),
                              [base](const std::tuple<std::pair<int64_t, int64_t>, int64_t, int64_t,
                                                      int64_t, int64_t>& t) {
                                DimRecipe r = base;
                                std::tie(r.pad_begin, r.pad_end) = std::get<0>(t);
                                r.remainder = std::get<1>(t);
                                r.extent = std::get<2>(t);
                                r.pad_begin += std::get<3>(t);
                                r.pad_end += std::get<4>(t);
                                return r;
                              });
        }
        // ATen: output_padding < max(stride, dilation). Its maximum is an edge of its own.
        const int64_t op_max = space::MaxOutputPadding(base.stride, base.dilation);
        rc::Gen<int64_t> op = PickOf(space::OutputPaddingOptions(op_max));
        return Chain(
            op, choices::Cached<int64_t>([=](int64_t output_padding) {
              // Cropping keeps the first input's last tap (position `reach`) in the output:
              // pad_begin ≤ reach here, pad_end ≤ (input − 1)·stride + output_padding by Assemble.
              // So the output is never empty, nor entirely in the gaps between taps.
              return rc::gen::map(
                  rc::gen::tuple(GenPadding(reach, reach + output_padding), GenExtent(rank, large)),
                  [base,
                   output_padding](const std::tuple<std::pair<int64_t, int64_t>, int64_t>& t) {
                    DimRecipe r = base;
                    r.output_padding = output_padding;
                    std::tie(r.pad_begin, r.pad_end) = std::get<0>(t);
                    r.extent = std::get<1>(t);
                    return r;
                  });
            }));
      }));
}

// The spatial dimensions as a list whose shrinks first drop dimensions (to every smaller allowed
// rank, keeping any subset of the dimensions, so a failure in the last dimension can still shrink
// to rank 1), then shrink each dimension in place. Built by hand because a mapcat on the rank
// would regenerate the dimensions and lose the one that fails.
using DimShrinkables = std::vector<rc::Shrinkable<DimRecipe>>;

rc::Shrinkable<std::vector<DimRecipe>> DimList(DimShrinkables dims, std::vector<int> ranks) {
  auto value = [dims] {
    std::vector<DimRecipe> v;
    for (const auto& d : dims) v.push_back(d.value());
    return v;
  };
  auto shrinks = [dims, ranks] {
    const int n = static_cast<int>(dims.size());
    std::vector<DimShrinkables> fewer;
    for (int rank : ranks) {
      if (rank >= n) continue;
      for (unsigned mask = 0; mask < (1u << n); ++mask) {
        if (__builtin_popcount(mask) != rank) continue;
        DimShrinkables kept;
        for (int i = 0; i < n; ++i)
          if (mask & (1u << i)) kept.push_back(dims[i]);
        fewer.push_back(std::move(kept));
      }
    }
    auto drop = rc::seq::map(rc::seq::fromContainer(std::move(fewer)),
                             [ranks](DimShrinkables&& d) { return DimList(std::move(d), ranks); });
    auto each = rc::seq::mapcat(rc::seq::range<size_t>(0, dims.size()), [dims, ranks](size_t i) {
      return rc::seq::map(dims[i].shrinks(), [dims, ranks, i](rc::Shrinkable<DimRecipe>&& s) {
        DimShrinkables copy = dims;
        copy[i] = std::move(s);
        return DimList(std::move(copy), ranks);
      });
    });
    return rc::seq::concat(std::move(drop), std::move(each));
  };
  return rc::shrinkable::lambda(std::move(value), std::move(shrinks));
}

// `ranks` ascending; 2-D weighted a little higher, as in real networks.
rc::Gen<std::vector<DimRecipe>> GenDims(std::vector<int> ranks, bool transposed, bool large,
                                        std::array<int64_t, 4> max_kernel) {
  // Made once, not per draw: making generators is most of a draw's cost.
  std::vector<rc::Gen<DimRecipe>> dim_of_rank;  // by rank; rank 0 stands for ranks not drawn
  for (int rank = 0; rank <= kMaxSpatialRank; ++rank) {
    const int r = std::max(rank, 1);
    dim_of_rank.push_back(GenDim(r, transposed, large, max_kernel[r]));
  }
  return [=](const rc::Random& random, int size) {
    rc::Random r1 = random;
    rc::Random r2 = r1.split();
    auto weight = [](int rank) -> uint64_t { return rank == 2 ? 40 : 30; };
    uint64_t total = 0;
    for (int rank : ranks) total += weight(rank);
    uint64_t roll = r1.next() % total;
    size_t index = 0;
    while (roll >= weight(ranks[index])) roll -= weight(ranks[index++]);
    const int rank = ranks[index];
    const rc::Gen<DimRecipe>& dim = dim_of_rank[rank];
    DimShrinkables dims;
    for (int i = 0; i < rank; ++i) dims.push_back(dim(r2.split(), size));
    return DimList(std::move(dims), ranks);
  };
}

// A large case draws mostly counts at block sizes.
rc::Gen<int64_t> GenChannelCount(int64_t multiple, bool large) {
  const int blocked = multiple > 0 ? 40 : 0;
  return Pick<int64_t>(
      {{large ? 5 : 25, Just<int64_t>(1)},
       Range(large ? 5 : 30, 2, 4),
       {20, rc::gen::elementOf(SmallPrimes())},
       Range(25, 5, 16),
       {blocked, rc::gen::map(Uniform(1, 2), [multiple](int64_t k) { return k * multiple; })},
       {large ? 80 : 30, rc::gen::elementOf(NearBlockSizes())}});
}

rc::Gen<Channels> GenChannels(int64_t multiple, bool large) {
  rc::Gen<int64_t> batch = Pick<int64_t>(
      {{55, Just<int64_t>(1)}, Range(35, 2, 4), Range(10, 5, kGeneratorRanges.max_batch)});
  rc::Gen<Channels> plain = rc::gen::apply(
      [](int64_t in, int64_t out, int64_t n) {
        return Channels{1, in, out, n};
      },
      GenChannelCount(multiple, large), GenChannelCount(multiple, large), batch);
  rc::Gen<Channels> grouped = rc::gen::apply(
      [](int64_t g, int64_t in, int64_t out, int64_t n) {
        return Channels{g, in, out, n};
      },
      Pick<int64_t>({{60, Uniform(2, 4)}, {40, Uniform(5, kGeneratorRanges.max_groups)}}),
      GenChannelCount(multiple, large), GenChannelCount(multiple, large), batch);
  // Depthwise: groups == C_in, C_out = multiplier · C_in (multiplier > 1 is the case frontends
  // represent in two different ways).
  rc::Gen<Channels> depthwise = rc::gen::apply(
      [](int64_t g, int64_t multiplier, int64_t n) {
        return Channels{g, 1, multiplier, n};
      },
      Pick<int64_t>({{40, Uniform(2, 4)},
                     {20, rc::gen::elementOf(SmallPrimes())},
                     {40, Uniform(8, 32)},
                     {large ? 60 : 20, rc::gen::elementOf(NearBlockSizes())}}),
      Pick<int64_t>({{50, Just<int64_t>(1)}, {50, Uniform(2, kGeneratorRanges.max_multiplier)}}),
      batch);
  return Pick<Channels>({{45, plain}, {25, grouped}, {30, depthwise}});
}

rc::Gen<Layouts> GenLayouts(const ProblemSpace& space, bool transposed) {
  const std::array<WeightLayout, 4> w = space::WeightLayoutOptions(transposed);
  const int other = space.layouts ? 1 : 0;
  rc::Gen<DataLayout> data = Pick<DataLayout>(
      {{65, Just(DataLayout::kChannelsFirst)}, {35 * other, Just(DataLayout::kChannelsLast)}});
  rc::Gen<WeightLayout> weight = Pick<WeightLayout>({{40, Just(w[0])},
                                                     {20 * other, Just(w[1])},
                                                     {20 * other, Just(w[2])},
                                                     {20 * other, Just(w[3])}});
  rc::Gen<bool> bias = Pick<bool>({{50, Just(false)}, {space.bias ? 50 : 0, Just(true)}});
  return rc::gen::apply(
      [](DataLayout d, WeightLayout w, bool b) {
        return Layouts{d, w, b};
      },
      data, weight, bias);
}

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
  std::array<int64_t, 4> max_kernel{};
  for (int rank = 1; rank <= kMaxSpatialRank; ++rank) max_kernel[rank] = MaxKernel(space, rank);
  const int64_t channel_multiple = space.channel_multiple;
  const int64_t large_macs = LargeMacs(space);
  const int large_percent = large_macs > space.max_macs ? std::min(space.large_percent, 100) : 0;

  rc::Gen<bool> kind =
      Pick<bool>({{space.ordinary ? 65 : 0, Just(false)}, {space.transposed ? 35 : 0, Just(true)}});
  // Shrinks to an ordinary case first.
  rc::Gen<bool> large =
      Pick<bool>({{100 - large_percent, Just(false)}, {large_percent, Just(true)}});
  // Dependency chain: kind and size class → dimensions (rank → kernel → dilation → stride →
  // padding, output padding → sizes) → channels and layouts; FitToMacs then scales sizes down to
  // the cap.
  // The rest of the recipe for each kind and size class, made once rather than per draw.
  std::vector<rc::Gen<Recipe>> rest;  // index 2·transposed + large
  for (int transposed = 0; transposed < 2; ++transposed) {
    for (int is_large = 0; is_large < 2; ++is_large) {
      rest.push_back(rc::gen::apply(
          [transposed, is_large](std::vector<DimRecipe> dims, Channels channels, Layouts layouts) {
            const int rank = static_cast<int>(dims.size());
            return Recipe{rank, transposed == 1, is_large == 1, std::move(dims), channels, layouts};
          },
          GenDims(ranks, transposed == 1, is_large == 1, max_kernel),
          GenChannels(channel_multiple, is_large == 1), GenLayouts(space, transposed == 1)));
    }
  }
  rc::Gen<Recipe> recipe =
      Chain(rc::gen::tuple(kind, large), [rest](const std::tuple<bool, bool>& kind_and_size) {
        const auto [transposed, is_large] = kind_and_size;
        return rest[2 * (transposed ? 1 : 0) + (is_large ? 1 : 0)];
      });
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
  return true;
}

void showValue(const ConvProblem& p, std::ostream& os) { os << ProblemDescriptor(p); }

}  // namespace convparity
