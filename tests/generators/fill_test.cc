#include "generators/fill.h"

#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <set>
#include <utility>
#include <vector>

#include "core/graph.h"
#include "generators/problem_gen.h"

namespace convparity {
namespace {

uint32_t Bits(float v) {
  uint32_t b;
  std::memcpy(&b, &v, sizeof b);
  return b;
}

// FNV-1a over the shapes and the float bit patterns: a fingerprint of the exact data.
uint64_t Fingerprint(const std::vector<const HostTensor*>& tensors) {
  uint64_t h = 0xCBF29CE484222325ull;
  auto mix = [&](uint64_t v) {
    for (int i = 0; i < 8; ++i) {
      h ^= (v >> (8 * i)) & 0xFF;
      h *= 0x100000001B3ull;
    }
  };
  for (const HostTensor* t : tensors) {
    mix(t->shape.size());
    for (int64_t s : t->shape) mix(static_cast<uint64_t>(s));
    for (float v : t->values) mix(Bits(v));
  }
  return h;
}

// Of the problem's vars.
uint64_t Fingerprint(const CaseInputs& in) {
  return Fingerprint(
      {&in.Get(kInputVar), &in.Get(kWeightVar), &in.Get(kBiasVar), &in.Get(kGradOutputVar)});
}

std::vector<const HostTensor*> Filled(const CaseInputs& in) {
  std::vector<const HostTensor*> out;
  for (const HostTensor* t :
       {&in.Get(kInputVar), &in.Get(kWeightVar), &in.Get(kBiasVar), &in.Get(kGradOutputVar)})
    if (!t->values.empty()) out.push_back(t);
  return out;
}

// A problem with some of everything: grouped, strided, dilated, padded asymmetrically, bias.
ConvProblem Busy2d() {
  ConvProblem p;
  p.rank = 2;
  p.batch = 2;
  p.in_channels = 4;
  p.out_channels = 6;
  p.groups = 2;
  p.input = {7, 6, 1};
  p.kernel = {3, 2, 1};
  p.stride = {2, 1, 1};
  p.pad_begin = {1, 0, 0};
  p.pad_end = {0, 1, 0};
  p.dilation = {1, 2, 1};
  p.bias = true;
  return p;
}

ConvProblem Transposed1d() {
  ConvProblem p;
  p.rank = 1;
  p.transposed = true;
  p.in_channels = 3;
  p.out_channels = 2;
  p.input = {5, 1, 1};
  p.kernel = {4, 1, 1};
  p.stride = {3, 1, 1};
  p.output_padding = {2, 0, 0};
  p.weight_layout = WeightLayout::kIO;
  return p;
}

ConvProblem Depthwise3d() {
  ConvProblem p;
  p.rank = 3;
  p.batch = 3;
  p.in_channels = 3;
  p.groups = 3;
  p.out_channels = 6;
  p.input = {4, 3, 5};
  p.kernel = {2, 1, 3};
  p.pad_begin = {0, 0, 1};
  p.pad_end = {0, 0, 1};
  return p;
}

TEST(Fill, SameArgumentsGiveIdenticalBits) {
  for (Fill f : {Fill::kExact, Fill::kUniform, Fill::kPositive, Fill::kWide}) {
    for (Direction d : AllDirections()) {
      const CaseInputs a = FillInputs(Busy2d(), d, f, 17);
      const CaseInputs b = FillInputs(Busy2d(), d, f, 17);
      EXPECT_EQ(Fingerprint(a), Fingerprint(b));
      EXPECT_NE(Fingerprint(a), Fingerprint(FillInputs(Busy2d(), d, f, 18)));
    }
  }
}

// Cross-machine determinism: fingerprints computed once (g++ 12, x86-64) and frozen. If one
// changes, every stored case's data changed: that is a breaking change, not a test to update.
TEST(Fill, GoldenFingerprints) {
  struct Golden {
    ConvProblem problem;
    Direction direction;
    Fill fill;
    uint64_t seed;
    uint64_t fingerprint;
  };
  const Golden goldens[] = {
      {Busy2d(), Direction::kForward, Fill::kExact, 1, 0x5c0b06e27046a400ull},
      {Busy2d(), Direction::kBackwardWeight, Fill::kPositive, 0xFFFFFFFFFFFFFFFFull,
       0x51116feac1f7a6d8ull},
      {Transposed1d(), Direction::kBackwardData, Fill::kUniform, 42, 0x20e03af60145fed6ull},
      {Depthwise3d(), Direction::kBackwardWeight, Fill::kWide, 7, 0x70eef5577b0c7cffull},
  };
  for (const Golden& g : goldens) {
    const uint64_t got = Fingerprint(FillInputs(g.problem, g.direction, g.fill, g.seed));
    EXPECT_EQ(got, g.fingerprint) << FillName(g.fill) << " " << DirectionName(g.direction)
                                  << " seed " << g.seed << ": got 0x" << std::hex << got;
  }
  // The chain's own %w2, on its stream 5, exact (±2) and wide.
  for (auto [fill, fingerprint] :
       {std::pair{Fill::kExact, 0x689279c15d9b2f25ull}, {Fill::kWide, 0x0f96864a02ad6cb5ull}}) {
    const CaseInputs chain = FillInputs(Busy2d(), Direction::kForward, fill, 3, ChainForm());
    const uint64_t got = Fingerprint({&chain.Get("w2")});
    EXPECT_EQ(got, fingerprint) << "chain %w2, " << FillName(fill) << ": got 0x" << std::hex << got;
  }
  // A few literal values, readable when a fingerprint breaks.
  const CaseInputs exact = FillInputs(Busy2d(), Direction::kForward, Fill::kExact, 1);
  EXPECT_EQ(exact.Get(kInputVar).values[0], 3.0f);
  EXPECT_EQ(exact.Get(kInputVar).values[1], 4.0f);
  EXPECT_EQ(exact.Get(kInputVar).values[2], -2.0f);
  EXPECT_EQ(exact.Get(kInputVar).values[3], 3.0f);
  const CaseInputs wide = FillInputs(Depthwise3d(), Direction::kBackwardWeight, Fill::kWide, 7);
  EXPECT_EQ(wide.Get(kInputVar).values[0], 0x1.b84258p-8f);
  EXPECT_EQ(wide.Get(kInputVar).values[1], -0x1.e5738cp+2f);
  EXPECT_EQ(wide.Get(kGradOutputVar).values[0], 0x1.8dcc34p+1f);
}

TEST(Fill, LayoutsDoNotChangeValues) {
  for (ConvProblem p : {Busy2d(), Transposed1d(), Depthwise3d()}) {
    for (Direction d : AllDirections()) {
      for (Fill f : {Fill::kExact, Fill::kWide}) {
        const uint64_t reference = Fingerprint(FillInputs(p, d, f, 5));
        for (DataLayout dl : {DataLayout::kChannelsFirst, DataLayout::kChannelsLast}) {
          for (WeightLayout wl : {WeightLayout::kOI, WeightLayout::kIO, WeightLayout::kSpatialIO,
                                  WeightLayout::kOSpatialI}) {
            p.data_layout = dl;
            p.weight_layout = wl;
            EXPECT_EQ(Fingerprint(FillInputs(p, d, f, 5)), reference);
          }
        }
      }
    }
  }
}

TEST(Fill, OnlyTheTensorsTheDirectionReadsAreFilledWithTheirShapes) {
  ConvProblem p = Busy2d();
  CaseInputs fwd = FillInputs(p, Direction::kForward, Fill::kUniform, 3);
  EXPECT_EQ(fwd.Get(kInputVar).shape, p.input_shape());
  EXPECT_EQ(fwd.Get(kWeightVar).shape, p.weight_shape());
  EXPECT_EQ(fwd.Get(kBiasVar).shape, p.bias_shape());
  EXPECT_EQ(fwd.Get(kInputVar).values.size(), static_cast<size_t>(NumElements(p.input_shape())));
  EXPECT_EQ(fwd.Get(kBiasVar).values.size(), 6u);
  EXPECT_TRUE(fwd.Get(kGradOutputVar).values.empty());

  CaseInputs dgrad = FillInputs(p, Direction::kBackwardData, Fill::kUniform, 3);
  EXPECT_EQ(dgrad.Get(kGradOutputVar).shape, p.output_shape());
  EXPECT_EQ(dgrad.Get(kGradOutputVar).values.size(),
            static_cast<size_t>(NumElements(p.output_shape())));
  EXPECT_EQ(dgrad.Get(kWeightVar).shape, p.weight_shape());
  EXPECT_TRUE(dgrad.Get(kInputVar).values.empty());
  EXPECT_TRUE(dgrad.Get(kBiasVar).values.empty());

  CaseInputs wgrad = FillInputs(p, Direction::kBackwardWeight, Fill::kUniform, 3);
  EXPECT_EQ(wgrad.Get(kInputVar).shape, p.input_shape());
  EXPECT_EQ(wgrad.Get(kGradOutputVar).shape, p.output_shape());
  EXPECT_TRUE(wgrad.Get(kWeightVar).values.empty());
  EXPECT_TRUE(wgrad.Get(kBiasVar).values.empty());

  p.bias = false;
  EXPECT_TRUE(FillInputs(p, Direction::kForward, Fill::kUniform, 3).Get(kBiasVar).values.empty());
  // Each tensor has its own stream: the input of fwd and of bwd_weight are the same values.
  EXPECT_EQ(fwd.Get(kInputVar).values, wgrad.Get(kInputVar).values);
}

// ---- Exact mode ---------------------------------------------------------------------------------

// A constant's property is checked when it compiles: every integer up to the bound is a float32.
static_assert(kExactSumLimit <= (int64_t{1} << 24),
              "exact sums must stay within float32's integers");

RC_GTEST_PROP(Fill, ExactRangeKeepsEveryPartialSumBelow2To24AndIsAsWideAsAllowed, ()) {
  const ConvProblem p = *GenProblem();
  const Direction d = *rc::gen::elementOf(AllDirections());
  const ExactRange r = ChooseExactRange(p, d);
  const int64_t k = ReductionLength(p, d);
  const int64_t bias = d == Direction::kForward && p.bias ? r.data_range : 0;
  RC_ASSERT(r.exact);  // the default MAC cap keeps every reduction short enough
  RC_ASSERT(r.data_range >= 1 && r.data_range <= kMaxExactRange);
  RC_ASSERT(r.weight_range >= 1 && r.weight_range <= kMaxExactRange);
  RC_ASSERT(r.bias_range == bias);
  RC_ASSERT(r.density == 1.0);
  RC_ASSERT(k * r.data_range * r.weight_range + r.bias_range <= kExactSumLimit);
  // What the bound is for: the largest partial sums come out exactly in float32. Their worst case:
  // one product 1·1 (odd, so no sum is a multiple of a power of two that float32 could round to),
  // then every other product at its largest, all of one sign.
  const int64_t largest = r.data_range * r.weight_range;
  float worst = 1.0f + static_cast<float>(r.bias_range);
  for (int64_t i = 1; i < k; ++i) worst += static_cast<float>(largest);
  RC_ASSERT(static_cast<double>(worst) ==
            static_cast<double>(1 + (k - 1) * largest + r.bias_range));
  // Not needlessly narrow: the next range up would break the bound.
  const int64_t up = r.data_range + 1;
  RC_ASSERT(r.data_range == kMaxExactRange || k * up * up + (bias ? up : 0) > kExactSumLimit);

  const CaseInputs in = FillInputs(p, d, Fill::kExact, *rc::gen::arbitrary<uint64_t>());
  for (const HostTensor* t : Filled(in)) {
    const int64_t range = t == &in.Get(kBiasVar) ? r.bias_range
                          : (t == &in.Get(kWeightVar) ||
                             (d == Direction::kBackwardWeight && t == &in.Get(kGradOutputVar)))
                              ? r.weight_range
                              : r.data_range;
    for (float v : t->values) {
      RC_ASSERT(v == std::trunc(v));
      RC_ASSERT(v != 0.0f);
      RC_ASSERT(std::fabs(v) <= static_cast<float>(range));
    }
  }
}

// A chain: the first convolution's worst case times the residual block's factor 2·K2 + 1 (its %w2
// is ±2) stays under the limit, and %w2 is filled with the residual convolution's weight shape.
RC_GTEST_PROP(Fill, ChainExactRangeLeavesRoomForTheResidualBlock, ()) {
  const ConvProblem p = *GenProblem();
  const Direction d = *rc::gen::elementOf(AllDirections());
  const ExactRange r = ChooseExactRange(p, d, ChainForm());
  const ConvProblem q = ResidualConv(p);
  const int64_t k2 = std::max(ReductionLength(q, Direction::kForward),
                              ReductionLength(q, Direction::kBackwardData));
  RC_PRE(r.exact);
  RC_ASSERT((ReductionLength(p, d) * r.data_range * r.weight_range + r.bias_range) * (2 * k2 + 1) <=
            kExactSumLimit);
  RC_ASSERT(r.data_range <= ChooseExactRange(p, d).data_range);
  const CaseInputs in = FillInputs(p, d, Fill::kExact, 9, ChainForm());
  RC_ASSERT(in.vars.size() == CaseVars(ConvForm(), p, d).size() + 1);
  const HostTensor& w2 = in.vars.at("w2");
  RC_ASSERT(w2.shape == q.weight_shape());
  for (float v : w2.values) RC_ASSERT(v == 2.0f || v == -2.0f);
  // The convolution's own tensors are those of the same case without the chain when the ranges
  // agree (streams are per tensor).
  if (r.data_range == ChooseExactRange(p, d).data_range)
    RC_ASSERT(FillInputs(p, d, Fill::kExact, 9).Get(kWeightVar).values ==
              in.Get(kWeightVar).values);
  RC_ASSERT(FillInputs(p, d, Fill::kExact, 9).vars.count("w2") == 0);
}

TEST(Fill, RangeShrinksAsTheReductionGrowsAndGivesUpPastTheLimit) {
  // bwd_weight sums over batch × output positions: K = N · W for a 1-D, 1-tap problem.
  ConvProblem p;
  p.rank = 1;
  auto range_for = [&](int64_t batch, int64_t width) {
    p.batch = batch;
    p.input = {width, 1, 1};
    return ChooseExactRange(p, Direction::kBackwardWeight);
  };
  EXPECT_EQ(range_for(1, 100).data_range, 4);
  EXPECT_EQ(range_for(1, kExactSumLimit / 16).data_range, 4);
  EXPECT_EQ(range_for(1, kExactSumLimit / 16 + 1).data_range, 3);
  EXPECT_EQ(range_for(1, kExactSumLimit / 4 + 1).data_range, 1);
  EXPECT_TRUE(range_for(1, kExactSumLimit).exact);
  const ExactRange too_long = range_for(4, kExactSumLimit);
  EXPECT_FALSE(too_long.exact);
  // Bias adds one term of its own range in fwd only.
  ConvProblem b;
  b.rank = 1;
  b.bias = true;
  b.in_channels = kExactSumLimit / 16;  // K·16 = limit exactly: no room for a bias of 4
  EXPECT_EQ(ChooseExactRange(b, Direction::kForward).data_range, 3);
  EXPECT_EQ(ChooseExactRange(b, Direction::kForward).bias_range, 3);
  EXPECT_EQ(ChooseExactRange(b, Direction::kBackwardData).bias_range, 0);
}

TEST(Fill, WorstCaseExactSumIsExactInFloat32InAnyOrder) {
  // The extreme the bound allows: K terms of R·R, all one sign, plus the bias, summed in float32
  // forward and backward, equal the integer result.
  ConvProblem p;
  p.rank = 1;
  p.bias = true;
  p.in_channels = (kExactSumLimit - 4) / 16;
  const ExactRange r = ChooseExactRange(p, Direction::kForward);
  ASSERT_TRUE(r.exact);
  const int64_t k = p.in_channels;
  const float term = static_cast<float>(r.data_range * r.weight_range);
  float forward = static_cast<float>(r.bias_range), backward = 0.0f;
  for (int64_t i = 0; i < k; ++i) forward += term;
  for (int64_t i = 0; i < k; ++i) backward += term;
  backward += static_cast<float>(r.bias_range);
  const int64_t exact = k * r.data_range * r.weight_range + r.bias_range;
  EXPECT_EQ(static_cast<int64_t>(forward), exact);
  EXPECT_EQ(static_cast<int64_t>(backward), exact);
}

TEST(Fill, ExactValuesCoverEveryMagnitudeAndBothSigns) {
  const CaseInputs in = FillInputs(Busy2d(), Direction::kBackwardWeight, Fill::kExact, 11);
  std::set<float> seen(in.Get(kInputVar).values.begin(), in.Get(kInputVar).values.end());
  EXPECT_EQ(seen, (std::set<float>{-4, -3, -2, -1, 1, 2, 3, 4}));
}

// ---- Random family ------------------------------------------------------------------------------

ConvProblem Large1d() {
  ConvProblem p;
  p.rank = 1;
  p.batch = 4;
  p.in_channels = 16;
  p.out_channels = 16;
  p.input = {1000, 1, 1};
  p.kernel = {5, 1, 1};
  return p;
}

std::vector<float> Values(Fill f) {
  const CaseInputs in = FillInputs(Large1d(), Direction::kForward, f, 123);
  std::vector<float> v = in.Get(kInputVar).values;
  v.insert(v.end(), in.Get(kWeightVar).values.begin(), in.Get(kWeightVar).values.end());
  return v;
}

double Mean(const std::vector<float>& v) {
  double s = 0;
  for (float x : v) s += x;
  return s / v.size();
}

TEST(Fill, UniformIsInMinusOneToOneOnThe2ToMinus23Grid) {
  const std::vector<float> v = Values(Fill::kUniform);
  ASSERT_GT(v.size(), 60000u);
  float lo = 1, hi = -1;
  for (float x : v) {
    ASSERT_GE(x, -1.0f);
    ASSERT_LT(x, 1.0f);
    const double scaled = static_cast<double>(x) * 8388608.0;
    ASSERT_EQ(scaled, std::trunc(scaled)) << x;
    lo = std::min(lo, x);
    hi = std::max(hi, x);
  }
  EXPECT_LT(lo, -0.999f);
  EXPECT_GT(hi, 0.999f);
  EXPECT_NEAR(Mean(v), 0.0, 0.01);
}

TEST(Fill, PositiveIsInZeroToOneOnThe2ToMinus24Grid) {
  const std::vector<float> v = Values(Fill::kPositive);
  for (float x : v) {
    ASSERT_GE(x, 0.0f);
    ASSERT_LT(x, 1.0f);
    const double scaled = static_cast<double>(x) * 16777216.0;
    ASSERT_EQ(scaled, std::trunc(scaled)) << x;
  }
  EXPECT_NEAR(Mean(v), 0.5, 0.01);
}

static_assert(512.0 * 512.0 * (1 << 24) < 3.4e38,
              "wide values below 2^9: products summed 2^24 times stay within float32");

TEST(Fill, WideSpansExponentsMinus8To8WithFullSignificands) {
  const std::vector<float> v = Values(Fill::kWide);
  std::set<int> exponents;
  int negative = 0, odd_significand = 0;
  for (float x : v) {
    ASSERT_TRUE(std::isnormal(x)) << x;
    const float a = std::fabs(x);
    ASSERT_GE(a, std::ldexp(1.0f, -8));
    ASSERT_LT(a, std::ldexp(1.0f, 9));
    int e = 0;
    const float m = std::frexp(a, &e);  // a = m · 2^e, m in [0.5, 1)
    exponents.insert(e - 1);
    if (static_cast<int64_t>(std::ldexp(m, 24)) & 1) ++odd_significand;  // lowest bit used
    if (x < 0) ++negative;
  }
  std::set<int> expected;
  for (int e = -8; e <= 8; ++e) expected.insert(e);
  EXPECT_EQ(exponents, expected);
  EXPECT_NEAR(static_cast<double>(negative) / v.size(), 0.5, 0.02);
  EXPECT_NEAR(static_cast<double>(odd_significand) / v.size(), 0.5, 0.02);
  // No overflow: the range checked above, |x| < 2^9, keeps a product summed over a reduction far
  // longer than any case's finite (the static_assert below).
}

}  // namespace
}  // namespace convparity
