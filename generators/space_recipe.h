// The problem space's recipe, written once against the choice interface of generators/choice.h:
// the generator (generators/problem_gen.cc, SpaceRecipe<RcChoices>) and the byte decoder and its
// encoder (generators/byte_decoder.cc, SpaceRecipe<ByteChoices>) draw the same problems from it.
// Internal to generators/.
//
// The dependency chain: kind and size class → rank → per dimension (kernel, dilation, stride) →
// output_padding (transposed) → padding → remainder and size → channels (plain, grouped or
// depthwise; counts, batch) → layouts and bias. Each choice's first option is its plainest, so the
// generator shrinks toward it and zero bytes decode to it. The byte format reaches past the
// generator's edges through its wider ranges (space::kByteRanges) and through options of its own
// (Option::beyond), which come last.
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>
#include <optional>
#include <tuple>
#include <utility>
#include <vector>

#include "core/capabilities.h"
#include "core/spelling.h"
#include "generators/choice.h"
#include "generators/problem_recipe.h"
#include "generators/space_rules.h"

namespace convparity {
namespace recipe {

// What a recipe draws from: the space's allowed kinds, ranks and features, and the ranges of its
// choices.
struct SpaceParams {
  std::vector<int> ranks;  // ascending, within 1..kMaxSpatialRank, not empty
  bool ordinary = true, transposed = true;
  std::array<int64_t, kMaxSpatialRank + 1> max_kernel{};  // by rank
  int64_t channel_multiple = 0;  // > 0: counts are also drawn as 1 or 2 times it
  int large_percent = 0;         // of the cases, fitted to the larger cap; 0 when there is none
  bool layouts = true, bias = true;
  bool dilation = true;        // off: no dilation drawn
  uint32_t group_kinds = ~0u;  // bit GroupKind (core/capabilities.h): the channel groupings drawn
  space::ChoiceRanges ranges;
};

template <typename C>
struct SpaceRecipe {
  template <typename T>
  using Gen = typename C::template Gen<T>;
  using Pads = std::pair<int64_t, int64_t>;

  // Largest output size drawn per dimension: 3-D problems are kept coarse so the MAC cap leaves
  // room for channels.
  static int64_t MaxExtent(int rank) { return rank == 1 ? 48 : rank == 2 ? 16 : 6; }

  static const std::vector<int64_t>& SmallPrimes() {
    static const std::vector<int64_t> primes{5, 7, 11, 13};
    return primes;
  }
  // Channel counts at the block sizes of real libraries (8, 16, 32, 64) and one off them: their
  // blocked paths and tails.
  static const std::vector<int64_t>& NearBlockSizes() {
    static const std::vector<int64_t> sizes{7, 8, 9, 15, 16, 17, 31, 32, 33, 64};
    return sizes;
  }

  // An option of the values lo..hi, uniform; none when hi < lo.
  static Option<Gen<int64_t>> RangeOption(int weight, int64_t lo, int64_t hi, int beyond = 0) {
    const bool any = hi >= lo;
    return {any ? weight : 0, C::Uniform(lo, std::max(lo, hi)), any ? beyond : 0};
  }

  // Kernels beyond 9 taps: 1-D often 10–32 (audio, WaveNet-like models), rarely up to 64; 2-D and
  // 3-D up to their caps. Rare enough per dimension that small kernels stay the bulk.
  static Gen<int64_t> Kernel(int rank, int64_t max_kernel, bool big_bias) {
    // 3-D transposed convolution with 7–9 taps is where real frontends broke (docs/BUGS.md).
    const int64_t mid_cap = rank == 1 ? 32 : max_kernel;
    return C::PickInt({{big_bias ? 10 : 25, 1, 1},
                       {big_bias ? 20 : 35, 2, std::min<int64_t>(3, max_kernel)},
                       {big_bias ? 15 : 20, 4, std::min<int64_t>(6, max_kernel)},
                       {big_bias ? 55 : 20, 7, std::min<int64_t>(9, max_kernel)},
                       {rank == 1 ? 6 : 4, 10, std::min(mid_cap, max_kernel)},
                       {rank == 1 ? 2 : 0, mid_cap + 1, max_kernel}},
                      "kernel");
  }

  // Dilation > 1 with a 1-tap kernel is legal and only matters for output_padding's bound.
  static Gen<int64_t> Dilation(bool dilation, const space::ChoiceRanges& ranges) {
    const int dilated = dilation ? 1 : 0;
    return C::PickInt({{65, 1, 1}, {25 * dilated, 2, 2}, {10 * dilated, 3, ranges.max_dilation}},
                      "dilation");
  }

  // Stride > kernel (input skipped; gaps in a transposed output) comes from strides 2–4 over small
  // kernels and from the 5–10 option. In several dimensions at once it makes dgrad / transposed
  // outputs mostly zeros, so large strides stay a minority, more so in 3-D.
  static Gen<int64_t> Stride(int rank, const space::ChoiceRanges& ranges) {
    const bool deep = rank == 3;
    return C::PickInt({{deep ? 68 : 60, 1, 1},
                       {deep ? 20 : 24, 2, 2},
                       {deep ? 8 : 10, 3, 4},
                       {deep ? 4 : 6, 5, ranges.max_stride}},
                      "stride");
  }

  // Padding of at most `begin_cap` before and `end_cap` after; in the byte format also up to
  // `beyond` more on each side (outputs wholly in the padding).
  static Gen<Pads> Padding(int64_t begin_cap, int64_t end_cap, int64_t beyond) {
    const int64_t sym_max = std::min(begin_cap, end_cap);
    Gen<Pads> none = C::Just(Pads{0, 0});
    Gen<Pads> symmetric = C::Map(
        C::Uniform(1, sym_max),
        [](int64_t p) {
          return Pads{p, p};
        },
        [](const Pads& p) { return p.first == p.second ? std::optional(p.first) : std::nullopt; });
    // Asymmetric: pad_end drawn from [0, end_cap] with pad_begin's value taken out.
    Gen<Pads> asymmetric = C::Chain(
        C::Uniform(0, begin_cap),
        [end_cap](int64_t begin) {
          const int64_t choices = end_cap + 1 - (begin <= end_cap ? 1 : 0);
          if (choices <= 0) return C::Just(Pads{begin, begin});
          return C::Map(
              C::Uniform(0, choices - 1),
              [begin](int64_t u) {
                return Pads{begin, u >= begin ? u + 1 : u};
              },
              [begin](const Pads& p) -> std::optional<int64_t> {
                if (p.first != begin || p.second == begin) return std::nullopt;
                return p.second > begin ? p.second - 1 : p.second;
              });
        },
        [](const Pads& p) { return p.first; });
    Gen<Pads> past_reach = C::Apply(
        [](int64_t b, int64_t e) {
          return Pads{b, e};
        },
        [](const Pads& p) { return std::optional(std::tuple(p.first, p.second)); },
        C::Uniform(0, begin_cap + beyond), C::Uniform(0, end_cap + beyond));
    return C::template Pick<Pads>({{40, none},
                                   {sym_max >= 1 ? 30 : 0, symmetric},
                                   {begin_cap + end_cap >= 1 ? 30 : 0, asymmetric},
                                   {0, past_reach, beyond > 0 ? 10 : 0}},
                                  "padding");
  }

  // The byte format's only (DimRecipe::short_input): inputs below the generator's floor.
  static Gen<bool> ShortInput() {
    return C::template Pick<bool>({{100, C::Just(false)}, {0, C::Just(true), 5}}, "short input");
  }

  // A large case draws longer extents: tiled paths need several tiles.
  static Gen<int64_t> Extent(int rank, bool large, const space::ChoiceRanges& ranges) {
    return C::PickInt({{large ? 5 : 20, 1, 1},
                       {large ? 15 : 45, 2, 4},
                       {35, 5, MaxExtent(rank)},
                       {large ? 45 : 0, MaxExtent(rank) + 1, 2 * MaxExtent(rank)},
                       {0, MaxExtent(rank) + 1, ranges.max_extent, 10}},
                      "size");
  }

  // One spatial dimension. Chain: (kernel, dilation, stride) → output_padding (transposed; it
  // depends on stride and dilation only) → padding (on the dilated kernel and output_padding) →
  // remainder and size. Kernel, dilation and stride are drawn independently with fixed weights, so
  // that shrinking one of them redraws what depends on it with the same option (see
  // choices::Pick): output_padding at its maximum stays at its maximum while the kernel shrinks
  // to 1.
  static Gen<DimRecipe> Dim(int rank, bool transposed, bool large, int64_t max_kernel,
                            bool dilation, const space::ChoiceRanges& ranges) {
    using KDS = std::tuple<int64_t, int64_t, int64_t>;
    const bool big_bias = rank == 3 && transposed;
    auto next = [=](const KDS& kds) -> Gen<DimRecipe> {
      DimRecipe base;
      std::tie(base.kernel, base.dilation, base.stride) = kds;
      const int64_t reach = base.dilation * (base.kernel - 1);  // dilated kernel − 1
      if (!transposed) return OrdinaryRest(base, reach, rank, large, ranges);
      // ATen: output_padding < max(stride, dilation). Its maximum is an edge of its own.
      Gen<int64_t> op = C::PickInt(
          space::OutputPaddingOptions(space::MaxOutputPadding(base.stride, base.dilation)),
          "output_padding");
      return C::Chain(
          op,
          [=](int64_t output_padding) {
            // Cropping keeps the first input's last tap (position `reach`) in the output:
            // pad_begin ≤ reach here, pad_end ≤ (input − 1)·stride + output_padding by Assemble.
            // So the output is never empty, nor entirely in the gaps between taps.
            return C::Map(
                C::Tuple(Padding(reach, reach + output_padding, ranges.pad_beyond_reach),
                         Extent(rank, large, ranges), ShortInput()),
                [base, output_padding](const std::tuple<Pads, int64_t, bool>& t) {
                  DimRecipe r = base;
                  r.output_padding = output_padding;
                  std::tie(r.pad_begin, r.pad_end) = std::get<0>(t);
                  r.extent = std::get<1>(t);
                  r.short_input = std::get<2>(t);
                  return r;
                },
                [](const DimRecipe& d) {
                  return std::optional(
                      std::tuple(Pads{d.pad_begin, d.pad_end}, d.extent, d.short_input));
                });
          },
          [](const DimRecipe& d) { return d.output_padding; });
    };
    return C::Chain(C::Tuple(Kernel(rank, max_kernel, big_bias), Dilation(dilation, ranges),
                             Stride(rank, ranges)),
                    next, [](const DimRecipe& d) {
                      return KDS{d.kernel, d.dilation, d.stride};
                    });
  }

  // An ordinary dimension after its kernel, dilation and stride. Padding up to the dilated
  // kernel: then every window still touches the input (with the input at least `dilation` long,
  // see Assemble), so no output is pure padding. Rarely, padding beyond that reach: outputs wholly
  // in the padding are an edge of their own (oneDNN's DNNL-796 ran a kernel row there). Shrinks
  // away first.
  static Gen<DimRecipe> OrdinaryRest(const DimRecipe& base, int64_t reach, int rank, bool large,
                                     const space::ChoiceRanges& ranges) {
    using Parts = std::tuple<Pads, int64_t, int64_t, int64_t, int64_t, bool>;
    Gen<int64_t> remainder = C::PickInt({{60, 0, 0}, {40, 1, base.stride - 1}}, "remainder");
    Gen<int64_t> excess = C::PickInt({{93, 0, 0}, {7, 1, ranges.pad_beyond_reach}},
                                     "padding beyond the kernel's reach");
    return C::Map(
        C::Tuple(Padding(reach, reach, 0), remainder, Extent(rank, large, ranges), excess, excess,
                 ShortInput()),
        [base](const Parts& t) {
          DimRecipe r = base;
          std::tie(r.pad_begin, r.pad_end) = std::get<0>(t);
          r.remainder = std::get<1>(t);
          r.extent = std::get<2>(t);
          r.pad_begin += std::get<3>(t);
          r.pad_end += std::get<4>(t);
          r.short_input = std::get<5>(t);
          return r;
        },
        [reach](const DimRecipe& d) {
          const int64_t begin = std::min(d.pad_begin, reach), end = std::min(d.pad_end, reach);
          return std::optional(Parts{Pads{begin, end}, d.remainder, d.extent, d.pad_begin - begin,
                                     d.pad_end - end, d.short_input});
        });
  }

  // The spatial dimensions: a rank (2-D weighted a little higher, as in real networks), then that
  // many dimensions. The generator's shrinks first drop dimensions (choices::ListNode).
  static Gen<std::vector<DimRecipe>> Dims(const SpaceParams& s, bool transposed, bool large) {
    // Made once, not per draw: making generators is most of a draw's cost.
    std::vector<Gen<DimRecipe>> dim_of_rank;  // by rank; rank 0 stands for ranks not drawn
    for (int rank = 0; rank <= kMaxSpatialRank; ++rank) {
      const int r = std::max(rank, 1);
      dim_of_rank.push_back(Dim(r, transposed, large, s.max_kernel[r], s.dilation, s.ranges));
    }
    std::vector<int> weights;
    for (int rank : s.ranks) weights.push_back(rank == 2 ? 40 : 30);
    return C::List(s.ranks, weights, std::move(dim_of_rank));
  }

  // A large case draws mostly counts at block sizes.
  static Gen<int64_t> ChannelCount(int64_t multiple, bool large,
                                   const space::ChoiceRanges& ranges) {
    const int blocked = multiple > 0 ? 40 : 0;
    return C::template Pick<int64_t>(
        {{large ? 5 : 25, C::Just(int64_t{1})},
         RangeOption(large ? 5 : 30, 2, 4),
         {20, C::ElementOf(SmallPrimes())},
         RangeOption(25, 5, 16),
         {blocked, C::Map(
                       C::Uniform(1, 2), [multiple](int64_t k) { return k * multiple; },
                       [multiple](int64_t v) -> std::optional<int64_t> {
                         if (multiple <= 0 || v % multiple != 0) return std::nullopt;
                         return v / multiple;
                       })},
         {large ? 80 : 30, C::ElementOf(NearBlockSizes())},
         RangeOption(0, 1, ranges.max_channels, 10)},
        "channel count");
  }

  // `kinds`: the groupings drawn (bit GroupKind); depthwise with a multiplier or without are two.
  static Gen<Channels> ChannelsOf(int64_t multiple, bool large, uint32_t kinds,
                                  const space::ChoiceRanges& ranges) {
    auto drawn = [kinds](GroupKind k) { return (kinds >> static_cast<int>(k) & 1u) ? 1 : 0; };
    // (Neither depthwise kind: the depthwise option is never drawn, its choices stay as they are.)
    const int depthwise_kinds =
        drawn(GroupKind::kDepthwise) | drawn(GroupKind::kDepthwiseMultiplier);
    using Three = std::optional<std::tuple<int64_t, int64_t, int64_t>>;
    using Four = std::optional<std::tuple<int64_t, int64_t, int64_t, int64_t>>;
    Gen<int64_t> batch = C::PickInt({{55, 1, 1}, {35, 2, 4}, {10, 5, ranges.max_batch}}, "batch");
    Gen<Channels> plain = C::Apply(
        [](int64_t in, int64_t out, int64_t n) {
          return Channels{1, in, out, n};
        },
        [](const Channels& c) {
          return c.groups == 1 ? Three(std::tuple(c.in_per_group, c.out_per_group, c.batch))
                               : std::nullopt;
        },
        ChannelCount(multiple, large, ranges), ChannelCount(multiple, large, ranges), batch);
    Gen<Channels> grouped = C::Apply(
        [](int64_t g, int64_t in, int64_t out, int64_t n) {
          return Channels{g, in, out, n};
        },
        [](const Channels& c) {
          return Four(std::tuple(c.groups, c.in_per_group, c.out_per_group, c.batch));
        },
        C::PickInt({{60, 2, 4}, {40, 5, ranges.max_groups}}, "groups"),
        ChannelCount(multiple, large, ranges), ChannelCount(multiple, large, ranges), batch);
    // Depthwise: groups == C_in, C_out = multiplier · C_in (multiplier > 1 is the case frontends
    // represent in two different ways).
    Gen<Channels> depthwise = C::Apply(
        [](int64_t g, int64_t multiplier, int64_t n) {
          return Channels{g, 1, multiplier, n};
        },
        [](const Channels& c) {
          return c.in_per_group == 1 ? Three(std::tuple(c.groups, c.out_per_group, c.batch))
                                     : std::nullopt;
        },
        C::template Pick<int64_t>({{40, C::Uniform(2, 4)},
                                   {20, C::ElementOf(SmallPrimes())},
                                   {40, C::Uniform(8, 32)},
                                   {large ? 60 : 20, C::ElementOf(NearBlockSizes())},
                                   RangeOption(0, 2, ranges.max_depthwise_groups, 10)},
                                  "depthwise groups"),
        C::PickInt({{50 * (drawn(GroupKind::kDepthwise) | !depthwise_kinds), 1, 1},
                    {50 * (drawn(GroupKind::kDepthwiseMultiplier) | !depthwise_kinds), 2,
                     ranges.max_multiplier}},
                   "depth multiplier"),
        batch);
    return C::template Pick<Channels>({{45 * drawn(GroupKind::kPlain), plain},
                                       {25 * drawn(GroupKind::kGrouped), grouped},
                                       {30 * depthwise_kinds, depthwise}},
                                      "channels");
  }

  // The problem's attributes (Recipe::attributes): layouts and bias.
  static Gen<ConvProblem> AttributesOf(const SpaceParams& s, bool transposed) {
    const std::array<WeightLayout, 4> w = space::WeightLayoutOptions(transposed);
    const int other = s.layouts ? 1 : 0;
    Gen<DataLayout> data =
        C::template Pick<DataLayout>({{65, C::Just(DataLayout::kChannelsFirst)},
                                      {35 * other, C::Just(DataLayout::kChannelsLast)}},
                                     "data layout");
    Gen<WeightLayout> weight = C::template Pick<WeightLayout>({{40, C::Just(w[0])},
                                                               {20 * other, C::Just(w[1])},
                                                               {20 * other, C::Just(w[2])},
                                                               {20 * other, C::Just(w[3])}},
                                                              "weight layout");
    Gen<bool> bias =
        C::template Pick<bool>({{50, C::Just(false)}, {s.bias ? 50 : 0, C::Just(true)}}, "bias");
    return C::Apply(
        [](DataLayout d, WeightLayout w, bool b) {
          ConvProblem a;
          a.data_layout = d;
          a.weight_layout = w;
          a.bias = b;
          return a;
        },
        [](const ConvProblem& a) {
          return std::optional(std::tuple(a.data_layout, a.weight_layout, a.bias));
        },
        data, weight, bias);
  }

  // A wished spelling (core/spelling.h; FitSpelling makes it the problem's): each way plain half
  // the time, else one of the values `allowed` allows, equally likely. Drawn apart from the
  // problem, which it never changes: shrinking the problem keeps the wish.
  using SpellingTuple = std::tuple<int64_t, int64_t, int64_t, int64_t, int64_t, int64_t, int64_t>;
  static_assert(std::tuple_size_v<SpellingTuple> == kSpellingWays, "one draw per way");
  static Gen<Spelling> SpellingOf(const SpellingMask& allowed) {
    const std::vector<SpellingField>& fields = SpellingFields();
    std::vector<Gen<int64_t>> ways;
    for (size_t f = 0; f < kSpellingWays; ++f) {
      std::vector<Option<Gen<int64_t>>> options{{1, C::Just(int64_t{0})}};
      int others = 0;
      for (int v = 1; v < static_cast<int>(fields[f].values.size()); ++v) {
        const bool drawn = allowed.Allows(static_cast<int>(f), v);
        options.push_back({drawn ? 1 : 0, C::Just(int64_t{v})});
        others += drawn ? 1 : 0;
      }
      options[0].weight = std::max(others, 1);  // plain as likely as the others together
      ways.push_back(C::template Pick<int64_t>(std::move(options), fields[f].name));
    }
    return C::Apply(
        [](int64_t a, int64_t b, int64_t c, int64_t d, int64_t e, int64_t f, int64_t g) {
          const std::array<int64_t, kSpellingWays> v{a, b, c, d, e, f, g};
          Spelling s;
          for (size_t i = 0; i < v.size(); ++i) SpellingFields()[i].set(s, static_cast<int>(v[i]));
          return s;
        },
        [](const Spelling& s) {
          SpellingTuple t;
          std::apply(
              [&s](auto&... v) {
                size_t i = 0;
                ((v = SpellingFields()[i++].get(s)), ...);
              },
              t);
          return std::optional(t);
        },
        ways[0], ways[1], ways[2], ways[3], ways[4], ways[5], ways[6]);
  }
  // The whole recipe: kind and size class first (the generator shrinks to an ordinary case
  // first), then the rest, made once for each of them rather than per draw.
  static Gen<Recipe> Draw(const SpaceParams& s) {
    Gen<bool> kind = C::template Pick<bool>(
        {{s.ordinary ? 65 : 0, C::Just(false)}, {s.transposed ? 35 : 0, C::Just(true)}}, "kind");
    Gen<bool> large = C::template Pick<bool>(
        {{100 - s.large_percent, C::Just(false)}, {s.large_percent, C::Just(true)}}, "size class");
    std::vector<Gen<Recipe>> rest;  // index 2·transposed + large
    for (int transposed = 0; transposed < 2; ++transposed) {
      for (int is_large = 0; is_large < 2; ++is_large) {
        rest.push_back(C::Apply(
            [transposed, is_large](std::vector<DimRecipe> dims, Channels channels,
                                   ConvProblem attributes) {
              const int rank = static_cast<int>(dims.size());
              return Recipe{rank,     transposed == 1, is_large == 1, std::move(dims),
                            channels, attributes};
            },
            [](const Recipe& r) {
              return std::optional(std::tuple(r.dims, r.channels, r.attributes));
            },
            Dims(s, transposed == 1, is_large == 1),
            ChannelsOf(s.channel_multiple, is_large == 1, s.group_kinds, s.ranges),
            AttributesOf(s, transposed == 1)));
      }
    }
    return C::Chain(
        C::Tuple(kind, large),
        [rest](const std::tuple<bool, bool>& kind_and_size) {
          const auto [transposed, is_large] = kind_and_size;
          return rest[2 * (transposed ? 1 : 0) + (is_large ? 1 : 0)];
        },
        [](const Recipe& r) { return std::tuple(r.transposed, r.large); });
  }
};

}  // namespace recipe
}  // namespace convparity
