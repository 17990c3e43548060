#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <algorithm>
#include <cstdio>
#include <functional>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "core/capabilities.h"
#include "core/descriptor.h"
#include "generators/problem_gen.h"

namespace convparity {
namespace {

// ---- Sampling and shrinking helpers -------------------------------------------------------------

// `n` problems drawn with a fixed seed, at RapidCheck's nominal size (the generators ignore size).
std::vector<ConvProblem> Sample(const rc::Gen<ConvProblem>& gen, int n, uint64_t seed) {
  rc::Random random(seed);
  std::vector<ConvProblem> out;
  out.reserve(n);
  for (int i = 0; i < n; ++i) out.push_back(gen(random.split(), rc::kNominalSize).value());
  return out;
}

// Greedy descent of the shrink tree, as RapidCheck does it: take the first shrink that still fails.
ConvProblem Minimize(rc::Shrinkable<ConvProblem> s,
                     const std::function<bool(const ConvProblem&)>& fails, int* steps) {
  *steps = 0;
  for (bool progress = true; progress && *steps < 10000;) {
    progress = false;
    rc::Seq<rc::Shrinkable<ConvProblem>> shrinks = s.shrinks();
    while (rc::Maybe<rc::Shrinkable<ConvProblem>> next = shrinks.next()) {
      if (fails(next->value())) {
        s = std::move(*next);
        progress = true;
        ++*steps;
        break;
      }
    }
  }
  return s.value();
}

// The first problem drawn from `seed` onward for which `fails` holds, still shrinkable.
rc::Shrinkable<ConvProblem> FirstFailing(const rc::Gen<ConvProblem>& gen, uint64_t seed,
                                         const std::function<bool(const ConvProblem&)>& fails) {
  rc::Random random(seed);
  for (;;) {
    rc::Shrinkable<ConvProblem> s = gen(random.split(), rc::kNominalSize);
    if (fails(s.value())) return s;
  }
}

// ---- Feature classes ----------------------------------------------------------------------------

bool AnyDim(const ConvProblem& p, const std::function<bool(int)>& f) {
  for (int i = 0; i < p.rank; ++i)
    if (f(i)) return true;
  return false;
}

bool IsPrime(int64_t n) {
  if (n < 2) return false;
  for (int64_t d = 2; d * d <= n; ++d)
    if (n % d == 0) return false;
  return true;
}

// Share of the large side (ordinary input, transposed output) that some kernel tap touches: where
// it is small, dgrad (ordinary) or the forward pass (transposed) is mostly zeros ("mistrusted").
double TapCoverage(const ConvProblem& p) {
  const Dims out = p.output();
  double coverage = 1.0;
  for (int i = 0; i < p.rank; ++i) {
    const int64_t big = p.transposed ? out[i] : p.input[i];
    const int64_t small = p.transposed ? p.input[i] : out[i];
    std::vector<char> hit(big, 0);
    for (int64_t o = 0; o < small; ++o)
      for (int64_t t = 0; t < p.kernel[i]; ++t) {
        const int64_t j = o * p.stride[i] - p.pad_begin[i] + t * p.dilation[i];
        if (j >= 0 && j < big) hit[j] = 1;
      }
    coverage *= static_cast<double>(std::count(hit.begin(), hit.end(), 1)) / big;
  }
  return coverage;
}

struct Feature {
  const char* name;
  std::function<bool(const ConvProblem&)> has;
};

const std::vector<Feature>& Features() {
  static const std::vector<Feature> features{
      {"rank 1", [](const ConvProblem& p) { return p.rank == 1; }},
      {"rank 2", [](const ConvProblem& p) { return p.rank == 2; }},
      {"rank 3", [](const ConvProblem& p) { return p.rank == 3; }},
      {"transposed", [](const ConvProblem& p) { return p.transposed; }},
      {"groups > 1", [](const ConvProblem& p) { return p.groups > 1; }},
      {"depthwise", [](const ConvProblem& p) { return p.depthwise(); }},
      {"depth multiplier > 1",
       [](const ConvProblem& p) { return p.depthwise() && p.depth_multiplier() > 1; }},
      {"channels 1 or prime",
       [](const ConvProblem& p) {
         auto odd = [](int64_t c) { return c == 1 || IsPrime(c); };
         return odd(p.in_channels) || odd(p.out_channels);
       }},
      {"batch > 1", [](const ConvProblem& p) { return p.batch > 1; }},
      {"kernel > 5",
       [](const ConvProblem& p) { return AnyDim(p, [&](int i) { return p.kernel[i] > 5; }); }},
      {"3-D transposed, kernel 7-9",
       [](const ConvProblem& p) {
         return p.rank == 3 && p.transposed &&
                AnyDim(p, [&](int i) { return p.kernel[i] >= 7 && p.kernel[i] <= 9; });
       }},
      {"dilation > 1 (kernel > 1)",
       [](const ConvProblem& p) {
         return AnyDim(p, [&](int i) { return p.dilation[i] > 1 && p.kernel[i] > 1; });
       }},
      {"stride > 1",
       [](const ConvProblem& p) { return AnyDim(p, [&](int i) { return p.stride[i] > 1; }); }},
      {"stride > kernel",
       [](const ConvProblem& p) {
         return AnyDim(p, [&](int i) { return p.stride[i] > p.kernel[i]; });
       }},
      {"dilation > 1 with stride > 1",
       [](const ConvProblem& p) {
         return AnyDim(
             p, [&](int i) { return p.dilation[i] > 1 && p.kernel[i] > 1 && p.stride[i] > 1; });
       }},
      {"output_padding > 0",
       [](const ConvProblem& p) {
         return AnyDim(p, [&](int i) { return p.output_padding[i] > 0; });
       }},
      {"output_padding at max",
       [](const ConvProblem& p) {
         return AnyDim(p, [&](int i) {
           return p.output_padding[i] > 0 &&
                  p.output_padding[i] == std::max(p.stride[i], p.dilation[i]) - 1;
         });
       }},
      {"padding > 0",
       [](const ConvProblem& p) {
         return AnyDim(p, [&](int i) { return p.pad_begin[i] + p.pad_end[i] > 0; });
       }},
      {"asymmetric padding",
       [](const ConvProblem& p) {
         return AnyDim(p, [&](int i) { return p.pad_begin[i] != p.pad_end[i]; });
       }},
      {"output size 1",
       [&](const ConvProblem& p) {
         const Dims out = p.output();
         return AnyDim(p, [&](int i) { return out[i] == 1; });
       }},
      {"dilated kernel > input (ordinary)",
       [](const ConvProblem& p) {
         return !p.transposed && AnyDim(p, [&](int i) {
           return p.dilation[i] * (p.kernel[i] - 1) + 1 > p.input[i];
         });
       }},
      {"unused input tail (ordinary)",
       [](const ConvProblem& p) {
         return !p.transposed && AnyDim(p, [&](int i) {
           return (p.input[i] + p.pad_begin[i] + p.pad_end[i] - p.dilation[i] * (p.kernel[i] - 1) -
                   1) %
                      p.stride[i] !=
                  0;
         });
       }},
      {"channels-last",
       [](const ConvProblem& p) { return p.data_layout == DataLayout::kChannelsLast; }},
      {"weight OI...", [](const ConvProblem& p) { return p.weight_layout == WeightLayout::kOI; }},
      {"weight IO...", [](const ConvProblem& p) { return p.weight_layout == WeightLayout::kIO; }},
      {"weight ...IO",
       [](const ConvProblem& p) { return p.weight_layout == WeightLayout::kSpatialIO; }},
      {"weight O...I",
       [](const ConvProblem& p) { return p.weight_layout == WeightLayout::kOSpatialI; }},
      {"non-natural weight layout",
       [](const ConvProblem& p) { return p.weight_layout != p.natural_weight_layout(); }},
      {"bias", [](const ConvProblem& p) { return p.bias; }},
  };
  return features;
}

// ---- Validity and the space ---------------------------------------------------------------------

// GenProblem's final filter is InSpace itself, so its problems are in the space by definition; the
// construction is what can fail: every problem it builds for the default space, before the filter.
RC_GTEST_PROP(ProblemGen, EveryUnfilteredProblemIsValidAndInsideTheDefaultSpace, ()) {
  const ProblemSpace space;
  const ConvProblem p = *GenProblemUnfiltered(space);
  const Status st = Validate(p);
  RC_ASSERT(st.ok());
  RC_ASSERT(p.macs() <= LargeMacs(space));  // max_macs unless the case is large
  RC_ASSERT(InSpace(p, space));
}

// Valid by construction: even without GenProblem's final filter, any non-empty space is respected.
RC_GTEST_PROP(ProblemGen, EveryUnfilteredProblemIsInsideAnyNonEmptySpace, ()) {
  ProblemSpace space;
  space.ranks = *rc::gen::nonEmpty(rc::gen::container<std::vector<int>>(rc::gen::inRange(1, 4)));
  space.ordinary = *rc::gen::arbitrary<bool>();
  space.transposed = !space.ordinary || *rc::gen::arbitrary<bool>();
  space.max_macs = *rc::gen::inRange<int64_t>(1, 2000000);
  space.max_kernel = *rc::gen::inRange<int64_t>(1, 13);
  space.layouts = *rc::gen::arbitrary<bool>();
  space.bias = *rc::gen::arbitrary<bool>();
  const ConvProblem p = *GenProblemUnfiltered(space);
  RC_ASSERT(Validate(p).ok());
  RC_ASSERT(InSpace(p, space));
}

TEST(ProblemGen, RestrictedSpacesAreRespected) {
  struct Named {
    const char* name;
    ProblemSpace space;
  };
  std::vector<Named> spaces;
  {
    ProblemSpace s;
    s.ranks = {2};
    s.transposed = false;
    s.layouts = false;
    s.bias = false;
    spaces.push_back({"2-D ordinary, plain layouts, no bias", s});
  }
  {
    ProblemSpace s;
    s.ranks = {3, 1};
    s.ordinary = false;
    s.max_kernel = 3;
    spaces.push_back({"1-D/3-D transposed, kernel <= 3", s});
  }
  {
    ProblemSpace s;
    s.max_macs = 64;  // below a 3-D 9x9x9 kernel: forces kernels down
    spaces.push_back({"max_macs 64", s});
  }
  {
    ProblemSpace s;
    s.max_macs = 1;
    s.max_kernel = 1;
    spaces.push_back({"max_macs 1, kernel 1", s});
  }
  for (const Named& n : spaces) {
    for (const ConvProblem& p : Sample(GenProblemUnfiltered(n.space), 1000, 7)) {
      ASSERT_TRUE(Validate(p).ok()) << n.name << ": " << Validate(p).message();
      ASSERT_TRUE(InSpace(p, n.space)) << n.name << ": rank " << p.rank << " macs " << p.macs();
      if (!n.space.layouts) {
        EXPECT_EQ(p.data_layout, DataLayout::kChannelsFirst);
        EXPECT_EQ(p.weight_layout, p.natural_weight_layout());
      }
      if (!n.space.bias) {
        EXPECT_FALSE(p.bias);
      }
    }
  }
}

// What a SUT's declaration narrows a campaign to (harness/engine/campaign_cases.h): the recipe
// draws the groupings and dilation asked for, so that few draws are filtered out.
TEST(ProblemGen, OnlyTheGroupingsAndDilationAskedForAreDrawn) {
  const GroupKind kinds[] = {GroupKind::kPlain, GroupKind::kGrouped, GroupKind::kDepthwise,
                             GroupKind::kDepthwiseMultiplier};
  for (uint32_t mask : {1u, 2u, 4u, 8u, 5u, 12u}) {
    for (bool dilation : {false, true}) {
      ProblemSpace space;
      space.group_kinds = mask;
      space.dilation = dilation;
      std::set<GroupKind> seen;
      bool dilated = false;
      const int kDraws = 400;
      int inside = 0;
      for (const ConvProblem& p : Sample(GenProblemUnfiltered(space), kDraws, 5))
        inside += InSpace(p, space);
      EXPECT_GT(inside, kDraws * 7 / 10) << "groupings " << mask << ", dilation " << dilation;
      for (const ConvProblem& p : Sample(GenProblem(space), kDraws, 5)) {
        ASSERT_TRUE(InSpace(p, space));
        seen.insert(GroupKindOf(p));
        for (int i = 0; i < p.rank; ++i) dilated = dilated || p.dilation[i] > 1;
      }
      for (GroupKind k : kinds)
        EXPECT_EQ(seen.count(k), (mask >> static_cast<int>(k)) & 1u)
            << "groupings " << mask << ": kind " << static_cast<int>(k);
      EXPECT_EQ(dilated, dilation);
    }
  }
}

TEST(ProblemGen, InSpaceRejectsWhatTheSpaceExcludes) {
  ConvProblem p;  // 2-D, 1x1 kernel, valid
  ProblemSpace space;
  EXPECT_TRUE(InSpace(p, space));
  space.ranks = {1, 3};
  EXPECT_FALSE(InSpace(p, space));
  space = ProblemSpace{};
  space.ordinary = false;
  EXPECT_FALSE(InSpace(p, space));
  space = ProblemSpace{};
  p.kernel = {3, 3, 1};
  p.input = {3, 3, 1};
  space.max_kernel = 2;
  EXPECT_FALSE(InSpace(p, space));
  space = ProblemSpace{};
  space.max_macs = 8;  // 9 MACs: a large case (up to 160)
  EXPECT_TRUE(InSpace(p, space));
  space.large_percent = 0;
  EXPECT_FALSE(InSpace(p, space));
  space = ProblemSpace{};
  space.max_macs = 8;
  space.large_factor = 1;
  EXPECT_FALSE(InSpace(p, space));
  space = ProblemSpace{};
  p.bias = true;
  space.bias = false;
  EXPECT_FALSE(InSpace(p, space));
  p.bias = false;
  p.data_layout = DataLayout::kChannelsLast;
  space.layouts = false;
  EXPECT_FALSE(InSpace(p, space));
  p.data_layout = DataLayout::kChannelsFirst;
  p.groups = 2;  // in_channels 1 is not divisible by 2
  EXPECT_FALSE(InSpace(p, ProblemSpace{}));
}

TEST(ProblemGen, AChannelMultipleIsDrawnOftenAndOnlyWhenAsked) {
  // ONNX Runtime's NCHWc rewrite wants 2-D convolutions whose channel counts are multiples of 16.
  auto blocked = [](const ConvProblem& p) {
    return p.rank == 2 && p.groups == 1 && p.in_channels % 16 == 0 && p.out_channels % 16 == 0;
  };
  ProblemSpace space;
  space.ranks = {2};
  space.transposed = false;
  const std::vector<ConvProblem> plain = Sample(GenProblem(space), 2000, 14);
  space.channel_multiple = 16;
  const std::vector<ConvProblem> asked = Sample(GenProblem(space), 2000, 14);
  const auto count = [&](const std::vector<ConvProblem>& v) {
    return std::count_if(v.begin(), v.end(), blocked);
  };
  EXPECT_GT(count(asked), 40) << "of 2000";  // 65 with this seed: thousands in a 600 s campaign
  EXPECT_LT(count(plain), 10) << "of 2000";
  for (const ConvProblem& p : asked) EXPECT_TRUE(InSpace(p, space)) << ProblemDescriptor(p);
}

TEST(ProblemGen, EmptySpaceIsAnError) {
  ProblemSpace s;
  s.ranks = {4};
  EXPECT_THROW(GenProblem(s), rc::GenerationFailure);
  s = ProblemSpace{};
  s.ordinary = s.transposed = false;
  EXPECT_THROW(GenProblem(s), rc::GenerationFailure);
}

TEST(ProblemGen, SameRandomGivesTheSameProblem) {
  const std::vector<ConvProblem> a = Sample(GenProblem(), 200, 99);
  const std::vector<ConvProblem> b = Sample(GenProblem(), 200, 99);
  EXPECT_EQ(a, b);
  EXPECT_NE(a, Sample(GenProblem(), 200, 100));
}

// ---- Edge coverage and rejection ----------------------------------------------------------------

TEST(ProblemGen, EdgeFeaturesAreReachedOftenAndRejectionIsRare) {
  constexpr int kSamples = 5000;
  const ProblemSpace space;
  const std::vector<ConvProblem> problems = Sample(GenProblemUnfiltered(space), kSamples, 2024);

  int rejected = 0, low_coverage = 0;
  for (const ConvProblem& p : problems) {
    if (!InSpace(p, space)) ++rejected;
    if (TapCoverage(p) < 0.3) ++low_coverage;
  }
  std::printf("%-36s %7s\n", "feature class", "share");
  for (const Feature& f : Features()) {
    const auto n = std::count_if(problems.begin(), problems.end(), f.has);
    const double share = static_cast<double>(n) / kSamples;
    std::printf("%-36s %6.1f%%\n", f.name, 100.0 * share);
    EXPECT_GE(share, 0.02) << f.name;
    EXPECT_LE(share, 0.98) << f.name << " (the plain case must stay reachable)";
  }
  const double rejection = static_cast<double>(rejected) / kSamples;
  const double sparse = static_cast<double>(low_coverage) / kSamples;
  std::printf("%-36s %6.1f%%\n%-36s %6.1f%%\n", "rejected (outside the space)", 100 * rejection,
              "kernel taps cover < 30% of big side", 100 * sparse);
  EXPECT_LT(rejection, 0.10);
  EXPECT_LT(sparse, 0.10) << "too many cases would be mostly zeros (mistrusted)";
}

// ---- Shrinking ----------------------------------------------------------------------------------

// The plain problem every shrink should reach for "groups > 1": the smallest grouped convolution.
ConvProblem SmallestGrouped() {
  ConvProblem p;
  p.rank = 1;
  p.groups = 2;
  p.in_channels = 2;
  p.out_channels = 2;
  return p;
}

TEST(ProblemGen, GroupedFailureShrinksToTheSmallestGroupedProblem) {
  const auto fails = [](const ConvProblem& p) { return p.groups > 1; };
  for (uint64_t seed = 1; seed <= 12; ++seed) {
    rc::Shrinkable<ConvProblem> start = FirstFailing(GenProblem(), seed, fails);
    int steps = 0;
    const ConvProblem min = Minimize(start, fails, &steps);
    EXPECT_EQ(min, SmallestGrouped())
        << "seed " << seed << " after " << steps << " steps: rank " << min.rank << " g"
        << min.groups << " ic" << min.in_channels << " oc" << min.out_channels << " mb" << min.batch
        << " i" << min.input[0] << " k" << min.kernel[0];
    EXPECT_TRUE(Validate(min).ok());
  }
}

TEST(ProblemGen, OutputPaddingFailureShrinksToOneStepOfOutputPadding) {
  const auto fails = [](const ConvProblem& p) {
    return p.transposed && AnyDim(p, [&](int i) { return p.output_padding[i] > 0; });
  };
  for (uint64_t seed = 1; seed <= 12; ++seed) {
    int steps = 0;
    const ConvProblem min = Minimize(FirstFailing(GenProblem(), seed, fails), fails, &steps);
    SCOPED_TRACE("seed " + std::to_string(seed));
    EXPECT_EQ(min.rank, 1);
    EXPECT_TRUE(min.transposed);
    EXPECT_EQ(min.output_padding[0], 1);
    EXPECT_EQ(std::max(min.stride[0], min.dilation[0]), 2);
    EXPECT_EQ(min.kernel[0], 1);
    EXPECT_EQ(min.input[0], 1);
    EXPECT_EQ(min.pad_begin[0] + min.pad_end[0], 0);
    EXPECT_EQ(min.in_channels * min.out_channels * min.groups * min.batch, 1);
    EXPECT_EQ(min.data_layout, DataLayout::kChannelsFirst);
    EXPECT_EQ(min.weight_layout, WeightLayout::kIO);
    EXPECT_FALSE(min.bias);
  }
}

TEST(ProblemGen, AnyFailureShrinksToThePlainestProblem) {
  // A property that fails everywhere: the minimum is rank 1, everything 1, no extras.
  int steps = 0;
  const ConvProblem min = Minimize(
      FirstFailing(GenProblem(), 5, [](const ConvProblem&) { return true; }),
      [](const ConvProblem&) { return true; }, &steps);
  ConvProblem plain;
  plain.rank = 1;
  EXPECT_EQ(min, plain) << "after " << steps << " steps";
}

// ---- Spellings --------------------------------------------------------------------------------

TEST(SpellingGen, DrawsWhatTheMaskAllowsEachWayPlainAboutHalfTheTime) {
  Spelling unwritten;
  unwritten.pads = PadsSpelling::kSameLower;
  unwritten.bias = BiasSpelling::kFused;
  const rc::Gen<Spelling> gen = GenSpelling(SpellingMask::AllBut(unwritten));
  rc::Random random(20261128);
  constexpr int kDraws = 4000;
  std::map<std::string, int> drawn;
  for (int i = 0; i < kDraws; ++i) {
    const Spelling s = gen(random.split(), rc::kNominalSize).value();
    for (const SpellingField& f : SpellingFields())
      ++drawn[std::string(f.name) + "=" + f.values[static_cast<size_t>(f.get(s))]];
  }
  EXPECT_EQ(drawn.count("pads=same_lower"), 0u);
  EXPECT_EQ(drawn.count("bias=fused"), 0u);
  for (const SpellingField& f : SpellingFields()) {
    const int plain = drawn[std::string(f.name) + "=" + f.values[0]];
    EXPECT_NEAR(plain, kDraws / 2, kDraws / 10) << f.name;
    for (size_t v = 1; v < f.values.size(); ++v)
      if (f.get(unwritten) != static_cast<int>(v)) {
        EXPECT_GT(drawn[std::string(f.name) + "=" + f.values[v]], kDraws / 10) << f.values[v];
      }
  }
  // Only plain when nothing else is allowed.
  const rc::Gen<Spelling> plain_only = GenSpelling(SpellingMask::PlainOnly());
  for (int i = 0; i < 100; ++i)
    EXPECT_TRUE(plain_only(random.split(), rc::kNominalSize).value().plain());
}

TEST(SpellingGen, AWishShrinksToThePlainSpelling) {
  rc::Random random(5);
  rc::Shrinkable<Spelling> s = GenSpelling()(random.split(), rc::kNominalSize);
  while (s.value().plain()) s = GenSpelling()(random.split(), rc::kNominalSize);
  for (int steps = 0; steps < 100; ++steps) {  // always failing: take the first shrink
    rc::Maybe<rc::Shrinkable<Spelling>> next = s.shrinks().next();
    if (!next) break;
    s = std::move(*next);
  }
  EXPECT_TRUE(s.value().plain()) << SpellingText(s.value());
}

}  // namespace
}  // namespace convparity
