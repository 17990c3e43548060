#include "generators/problem_recipe.h"

#include <algorithm>
#include <optional>

namespace convparity {
namespace recipe {

ConvProblem Assemble(const Recipe& r) {
  ConvProblem p = r.attributes;
  p.rank = r.rank;
  p.transposed = r.transposed;
  p.batch = r.channels.batch;
  p.groups = r.channels.groups;
  p.in_channels = r.channels.groups * r.channels.in_per_group;
  p.out_channels = r.channels.groups * r.channels.out_per_group;
  for (int i = 0; i < r.rank; ++i) {
    const DimRecipe& d = r.dims[i];
    p.kernel[i] = d.kernel;
    p.dilation[i] = d.dilation;
    p.stride[i] = d.stride;
    p.pad_begin[i] = d.pad_begin;
    p.pad_end[i] = d.pad_end;
    p.output_padding[i] = d.output_padding;
    const int64_t reach = d.dilation * (d.kernel - 1);
    // The shortest input that still gives an output after cropping (transposed) or one window
    // (ordinary).
    const int64_t over_both = d.pad_begin + d.pad_end - reach - d.output_padding;
    const int64_t valid_floor =
        r.transposed ? (over_both <= 0 ? 1 : 1 + (over_both + d.stride - 1) / d.stride)
                     : std::max<int64_t>(1, reach + 1 - d.pad_begin - d.pad_end);
    if (r.transposed) {
      // Long enough that cropping pad_end keeps position `reach` (see SpaceRecipe::Dim).
      const int64_t over = std::max<int64_t>(d.pad_end - d.output_padding, 0);
      const int64_t floor = d.short_input ? 1 : 1 + (over + d.stride - 1) / d.stride;
      p.input[i] = std::max({d.extent, floor, valid_floor});
    } else {
      // The smallest input giving `extent` outputs, plus the unused tail. At least `dilation`
      // long so that a window spanning the whole input has a tap inside it (the output then grows
      // past `extent`; still valid since padding ≤ dilated kernel).
      const int64_t in = (d.extent - 1) * d.stride + d.dilation * (d.kernel - 1) + 1 - d.pad_begin -
                         d.pad_end + d.remainder;
      const int64_t floor = d.short_input || d.kernel == 1 ? 1 : d.dilation;
      p.input[i] = std::max({in, floor, valid_floor});
    }
  }
  return p;
}

std::optional<Recipe> RecipeOf(const ConvProblem& p, bool large) {
  Recipe r;
  r.rank = p.rank;
  r.transposed = p.transposed;
  r.large = large;
  for (int i = 0; i < p.rank; ++i) {
    DimRecipe d;
    d.kernel = p.kernel[i];
    d.dilation = p.dilation[i];
    d.stride = p.stride[i];
    d.pad_begin = p.pad_begin[i];
    d.pad_end = p.pad_end[i];
    d.output_padding = p.output_padding[i];
    if (p.transposed) {
      d.extent = p.input[i];
    } else {
      // The output size and the positions past the last window.
      const int64_t span = p.input[i] + d.pad_begin + d.pad_end - d.dilation * (d.kernel - 1) - 1;
      if (span < 0 || d.stride < 1) return std::nullopt;
      d.extent = span / d.stride + 1;
      d.remainder = span % d.stride;
    }
    r.dims.push_back(d);
  }
  const int64_t g = std::max<int64_t>(p.groups, 1);
  r.channels = Channels{g, p.in_channels / g, p.out_channels / g, p.batch};
  r.attributes = p;
  // The generator's floors where they hold, the byte format's short inputs where not.
  const ConvProblem assembled = Assemble(r);
  for (int i = 0; i < p.rank; ++i) r.dims[i].short_input = assembled.input[i] != p.input[i];
  if (!(Assemble(r) == p)) return std::nullopt;
  return r;
}

FitPolicy<Recipe> MacsFit(int64_t max_macs) {
  using Halving = FitPolicy<Recipe>::Halving;
  auto halve = [](int64_t& v) { v -= v / 2; };
  FitPolicy<Recipe> policy;
  policy.over = [max_macs](const Recipe& x) { return Assemble(x).macs() > max_macs; };
  // On ties the first of these is halved: extents, then batch, channels per group, groups. A
  // dimension the recipe does not have counts as size 1, never halved.
  for (size_t i = 0; i < kMaxSpatialRank; ++i)
    policy.halvings.push_back(
        Halving{[i](const Recipe& x) { return i < x.dims.size() ? x.dims[i].extent : 1; },
                [i, halve](Recipe& x) { halve(x.dims[i].extent); }});
  policy.halvings.push_back(Halving{[](const Recipe& x) { return x.channels.batch; },
                                    [halve](Recipe& x) { halve(x.channels.batch); }});
  policy.halvings.push_back(Halving{[](const Recipe& x) { return x.channels.out_per_group; },
                                    [halve](Recipe& x) { halve(x.channels.out_per_group); }});
  policy.halvings.push_back(Halving{[](const Recipe& x) { return x.channels.in_per_group; },
                                    [halve](Recipe& x) { halve(x.channels.in_per_group); }});
  policy.halvings.push_back(Halving{[](const Recipe& x) { return x.channels.groups; },
                                    [halve](Recipe& x) { halve(x.channels.groups); }});
  // Every size is 1: the kernel itself is too large for the cap. The widest one loses a tap, and
  // the padding stays within its new reach.
  policy.fallbacks.push_back([](Recipe& x) {
    auto widest = std::max_element(x.dims.begin(), x.dims.end(), [](const auto& a, const auto& b) {
      return a.kernel < b.kernel;
    });
    if (widest == x.dims.end() || widest->kernel <= 1) return FitStep::kNotApplicable;
    DimRecipe& d = *widest;
    --d.kernel;
    const int64_t reach = d.dilation * (d.kernel - 1);
    d.pad_begin = std::min(d.pad_begin, reach);
    d.pad_end = std::min(d.pad_end, x.transposed ? reach + d.output_padding : reach);
    return FitStep::kApplied;
  });
  policy.fallbacks.push_back([](Recipe& x) {
    for (DimRecipe& d : x.dims) d.pad_begin = d.pad_end = 0;
    return FitStep::kLast;
  });
  policy.max_steps = 1000;
  return policy;
}

Recipe FitToMacs(Recipe r, const FitPolicy<Recipe>& fit) {
  FitToBudget(r, fit);
  return r;
}

}  // namespace recipe
}  // namespace convparity
