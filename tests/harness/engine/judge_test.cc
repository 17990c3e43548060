#include "harness/engine/judge.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <memory>
#include <optional>

#include "core/descriptor.h"
#include "core/prng.h"
#include "harness/engine/check_case.h"
#include "harness/suts/sut_registry.h"
#include "kernels/direct_conv.h"
#include "oracles/case_reference.h"

namespace convparity {
namespace {

HostTensor Got(std::vector<float> v) {
  return HostTensor{{1, 1, static_cast<int64_t>(v.size())}, v};
}
const Shape kShape{1, 1, 4};

TEST(Judge, ExactModeAcceptsOnlyTheRoundedReference) {
  std::vector<double> ref{1, -2, 0, 7};
  EXPECT_EQ(Judge(kShape, ref, {}, Got({1, -2, -0.0f, 7}), Fill::kExact, 9).verdict,
            Verdict::kPassed);
  Judgement j = Judge(kShape, ref, {}, Got({1, -2, 0, 6}), Fill::kExact, 9);
  EXPECT_EQ(j.verdict, Verdict::kFailed);
  EXPECT_EQ(j.mismatches, 1);
  ASSERT_TRUE(j.first && j.worst);
  EXPECT_EQ(j.first->index, (Shape{0, 0, 3}));
  EXPECT_EQ(j.worst->expected, 7);
  EXPECT_EQ(j.worst->got, 6);
}

// `direct` with its first result element moved by one ulp, as a Winograd kernel's rounding would.
class OneUlpOff : public ConvSut {
 public:
  std::string name() const override { return "one-ulp-off"; }
  Status Run(const ConvProblem& p, Direction d, const ConvBuffers& buffers) override {
    CP_RETURN_IF_ERROR(direct_.Run(p, d, buffers));
    buffers.result[0] = std::nextafter(buffers.result[0], INFINITY);
    return Status::Ok();
  }

 private:
  DirectConv direct_;
};

// The SUT does not say its result is inexact; the case's algorithm does (benchdnn's --alg=wino).
TEST(Judge, ACaseAskingForWinogradIsCheckedAgainstTheBoundOnExactFill) {
  ConvCase c;
  c.problem = ParseDescriptor("2d_ic4_oc4_i6x6_k3x3")->problem;
  c.fill = Fill::kExact;
  OneUlpOff sut;
  for (Direction d : AllDirections()) {
    c.direction = d;
    c.algorithm = Algorithm::kDirect;
    EXPECT_EQ(CheckCase(c, sut).verdict, Verdict::kFailed) << DirectionName(d);
    c.algorithm = Algorithm::kWinograd;
    const CaseOutcome bounded = CheckCase(c, sut);
    EXPECT_EQ(bounded.verdict, Verdict::kPassed) << DirectionName(d) << ": " << bounded.reason;
  }
}

TEST(Judge, RandomModeBoundScalesWithMagnitudeAndSqrtK) {
  ErrorBound bound;
  const double limit = bound.Of(100.0, 16);
  EXPECT_NEAR(limit, 4.0 * std::ldexp(1.0, -24) * 4 * 100.0, 1e-30 + 1e-12);
  std::vector<double> ref{10, 10, 10, 10}, mag{100, 100, 100, 100};
  const float near = static_cast<float>(10 + 0.5 * limit), far = static_cast<float>(10 + 4 * limit);
  Judgement ok = Judge(kShape, ref, mag, Got({10, near, 10, 10}), Fill::kUniform, 16);
  EXPECT_EQ(ok.verdict, Verdict::kPassed);
  EXPECT_GT(ok.max_bound_use, 0.0);
  EXPECT_LT(ok.max_bound_use, 1.0);
  Judgement bad = Judge(kShape, ref, mag, Got({10, 10, far, 10}), Fill::kUniform, 16);
  EXPECT_EQ(bad.verdict, Verdict::kFailed);
  EXPECT_GT(bad.max_bound_use, 1.0);
  EXPECT_EQ(bad.worst->index, (Shape{0, 0, 2}));
}

TEST(Judge, PoisonLeftInTheResultIsUnwrittenNotJustFailed) {
  std::vector<double> ref{1, 2, 3, 4};
  Judgement j = Judge(kShape, ref, {}, Got({1, PoisonValue(), 3, 4}), Fill::kExact, 1);
  EXPECT_EQ(j.verdict, Verdict::kUnwritten);
  EXPECT_EQ(j.unwritten, 1);
  // A NaN the SUT computed is a plain failure.
  EXPECT_EQ(Judge(kShape, ref, {}, Got({1, NAN, 3, 4}), Fill::kExact, 1).verdict, Verdict::kFailed);
  EXPECT_TRUE(IsPoison(PoisonValue()));
  EXPECT_FALSE(IsPoison(NAN));
}

TEST(Judge, ShapeMismatchIsItsOwnVerdict) {
  EXPECT_EQ(Judge(kShape, {1, 2, 3, 4}, {}, Got({1, 2, 3}), Fill::kExact, 1).verdict,
            Verdict::kShapeMismatch);
}

TEST(Judge, MostlyZeroReferenceIsMistrustedButFailuresStillFail) {
  std::vector<double> ref{0, 0, 0, 5};
  EXPECT_EQ(Judge(kShape, ref, {}, Got({0, 0, 0, 5}), Fill::kExact, 1).verdict,
            Verdict::kMistrusted);
  EXPECT_EQ(Judge(kShape, ref, {}, Got({0, 0, 0, 4}), Fill::kExact, 1).verdict, Verdict::kFailed);
  std::vector<double> some{0, 0, 1, 5};  // 50% zeros: trusted
  EXPECT_EQ(Judge(kShape, some, {}, Got({0, 0, 1, 5}), Fill::kExact, 1).verdict, Verdict::kPassed);
}

// Judge with a reach (judge.h ReachFn), counting how often it is asked.
Judgement JudgeReaching(const std::vector<double>& ref, const std::vector<float>& got,
                        const std::vector<double>& reached, int* asked) {
  return Judge(kShape, ref, {}, Got(got), Comparison::kBitwise, 1, ErrorBound{}, [&] {
    ++*asked;
    return reached;
  });
}

TEST(JudgeZeros, OnlyZerosWhereTheStructureReachesAreMistrusted) {
  const std::vector<double> ref{0, 0, 0, 5};
  int asked = 0;
  // Three zeros no term reaches: the one element reached is not zero.
  Judgement structural = JudgeReaching(ref, {0, 0, 0, 5}, {0, 0, 0, 2}, &asked);
  EXPECT_EQ(structural.verdict, Verdict::kPassed);
  EXPECT_EQ(structural.zero_share, 0.75);
  EXPECT_EQ(structural.data_zero_share, 0.0);
  // Every element reached: the zeros are the data's.
  Judgement data = JudgeReaching(ref, {0, 0, 0, 5}, {1, 3, 1, 2}, &asked);
  EXPECT_EQ(data.verdict, Verdict::kMistrusted);
  EXPECT_EQ(data.data_zero_share, 0.75);
  // Two reached, one of them zero: 50%, trusted.
  EXPECT_EQ(JudgeReaching(ref, {0, 0, 0, 5}, {0, 0, 1, 1}, &asked).verdict, Verdict::kPassed);
  // Nothing reached (padding-only windows everywhere): a correct result is all zeros, and passes.
  EXPECT_EQ(JudgeReaching({0, 0, 0, 0}, {0, 0, 0, 0}, {0, 0, 0, 0}, &asked).verdict,
            Verdict::kPassed);
  // Structural zeros still have to be written as zeros.
  EXPECT_EQ(JudgeReaching(ref, {0, 1, 0, 5}, {0, 0, 0, 2}, &asked).verdict, Verdict::kFailed);
  EXPECT_EQ(asked, 4);
  // An unknown reach (the oracle failed) counts every element as reached.
  EXPECT_EQ(JudgeReaching(ref, {0, 0, 0, 5}, {}, &asked).verdict, Verdict::kMistrusted);
}

TEST(JudgeZeros, TheReachIsAskedOnlyForAMostlyZeroReference) {
  int asked = 0;
  EXPECT_EQ(JudgeReaching({0, 0, 1, 5}, {0, 0, 1, 5}, {0, 0, 1, 1}, &asked).verdict,
            Verdict::kPassed);
  EXPECT_EQ(JudgeReaching({1, 2, 3, 4}, {1, 2, 3, 9}, {1, 1, 1, 1}, &asked).verdict,
            Verdict::kFailed);
  EXPECT_EQ(asked, 0);
}

ConvCase CaseOf(const std::string& descriptor, Fill fill) {
  Result<ParsedDescriptor> parsed = ParseDescriptor(descriptor);
  EXPECT_TRUE(parsed.ok()) << parsed.status().message();
  ConvCase c;
  c.problem = parsed->problem;
  c.direction = parsed->direction.value_or(Direction::kForward);
  c.fill = fill;
  c.seed = 3;
  return c;
}

// Problems whose result is mostly zero by their structure alone, checked on our kernel: passed,
// where the judge without a reach said mistrusted.
TEST(JudgeZeros, ACorrectResultOfMostlyStructuralZerosPasses) {
  std::unique_ptr<Sut> direct = std::move(MakeSut("direct")).value();
  for (const char* descriptor : {
           "bwd_data:2d_ic3_oc2_i8x8_k1x1_s2x2",         // the skipped positions: 75%
           "bwd_data:3d_ic2_oc2_i6x6x6_k1x1x1_s3x3x3",   // 96%
           "fwd:2d_ic2_oc3_i2x2_k1x1_p3x3",              // padding-only windows: 94%
           "bwd_weight:2d_ic2_oc2_i2x2_k7x7_p6x6_d2x2",  // taps that meet no input
           "fwd:t2d_ic2_oc2_i2x2_k1x1_s4x4",             // positions no tap reaches
           "fwd:t1d_ic1_oc1_i2_k1_s4_op3",               // and output padding's
       })
    for (Fill fill : {Fill::kExact, Fill::kUniform}) {
      const PreparedCase prep = PrepareCase(CaseOf(descriptor, fill));
      ASSERT_FALSE(prep.ended) << descriptor << ": " << prep.ended->reason;
      const CaseOutcome out = RunPrepared(prep, *direct);
      EXPECT_GT(out.judgement.zero_share, 0.7) << descriptor;
      EXPECT_EQ(out.verdict, Verdict::kPassed)
          << descriptor << " " << FillName(fill) << ": " << out.reason;
      // The reference itself, judged without a reach: mistrusted, as every one of them was.
      const RefTensor& ref = prep.reference.result;
      HostTensor rounded{ref.shape, std::vector<float>(ref.values.begin(), ref.values.end())};
      EXPECT_EQ(Judge(ref.shape, ref.values, {}, rounded, Comparison::kBitwise, 1).verdict,
                Verdict::kMistrusted)
          << descriptor;
    }
}

// Zeros the data puts where the structure reaches are still mistrusted: the same 1×1 stride-2
// backward-data with a grad_output that is zero but for one element.
TEST(JudgeZeros, ZerosOfTheDataAreStillMistrusted) {
  const PreparedCase prep = PrepareCase(CaseOf("bwd_data:2d_ic3_oc2_i8x8_k1x1_s2x2", Fill::kExact));
  ASSERT_FALSE(prep.ended);
  CaseInputs sparse = prep.inputs;
  std::vector<float>& dy = sparse.vars[kGradOutputVar].values;
  std::fill(dy.begin() + 1, dy.end(), 0.0f);
  Result<OracleOutput> ref = ComputeReference(prep.c.problem, ConvForm(), prep.c.direction, sparse,
                                              /*with_magnitude=*/false);
  ASSERT_TRUE(ref.ok()) << ref.status().message();
  const RefTensor& r = ref->result;
  HostTensor rounded{r.shape, std::vector<float>(r.values.begin(), r.values.end())};
  const Judgement j = Judge(r.shape, r.values, {}, rounded, Comparison::kBitwise, 1, ErrorBound{},
                            [&] { return ReachOf(prep); });
  EXPECT_EQ(j.verdict, Verdict::kMistrusted);
  EXPECT_GT(j.data_zero_share, 0.9);
  EXPECT_LT(j.data_zero_share, 1.0);
}

TEST(Judge, AnInexactResultIsBoundByTheLargestMagnitudeOfItsPlaneOnly) {
  // Two planes (1, 2, 2): element 0 has a tiny magnitude beside a large one, plane 1 has none.
  const Shape shape{1, 2, 2};
  const std::vector<double> ref{1, 1, 1, 1}, mag{1, 1000, 1, 1};
  const ErrorBound bound;
  const float off = static_cast<float>(1 + 8 * bound.unit_roundoff * 1000);
  auto judge = [&](std::vector<float> got, Comparison comparison) {
    return Judge(shape, ref, mag, HostTensor{shape, std::move(got)}, comparison, 1, bound);
  };
  // Beyond element 0's own bound, within its plane's.
  EXPECT_EQ(judge({off, 1, 1, 1}, Comparison::kErrorBound).verdict, Verdict::kFailed);
  const Judgement in_plane = judge({off, 1, 1, 1}, Comparison::kPlaneErrorBound);
  EXPECT_EQ(in_plane.verdict, Verdict::kPassed);
  ASSERT_TRUE(in_plane.worst);
  EXPECT_DOUBLE_EQ(in_plane.worst->bound,
                   bound.c_inexact * bound.unit_roundoff * 1000 + bound.floor);
  // Plane 1 has no large magnitude to hide the same error behind.
  EXPECT_EQ(judge({1, 1, off, 1}, Comparison::kPlaneErrorBound).verdict, Verdict::kFailed);
  // The fills' comparisons, and an inexact result's whatever the fill.
  EXPECT_EQ(ComparisonFor(Fill::kExact, false), Comparison::kBitwise);
  EXPECT_EQ(ComparisonFor(Fill::kWide, false), Comparison::kErrorBound);
  EXPECT_EQ(ComparisonFor(Fill::kExact, true), Comparison::kPlaneErrorBound);
  EXPECT_EQ(ComparisonFor(Fill::kUniform, true), Comparison::kPlaneErrorBound);
}

// The judgement by its definition, element by element, as plainly as it can be written: the fast
// loop of Judge must give the same fields, bit for bit, in every way of comparing.
Judgement JudgeByDefinition(const Shape& shape, const std::vector<double>& reference,
                            const std::vector<double>& magnitude, const HostTensor& got,
                            Comparison comparison, int64_t k) {
  ErrorBound bound, inexact;
  inexact.c = bound.c_inexact;
  const bool exact = comparison == Comparison::kBitwise;
  const int64_t plane = shape[2];
  Judgement j;
  j.elements = static_cast<int64_t>(reference.size());
  int64_t zeros = 0;
  double worst_score = -1;
  for (size_t i = 0; i < reference.size(); ++i) {
    const double expected = exact ? static_cast<float>(reference[i]) : reference[i];
    double error = std::fabs(static_cast<double>(got.values[i]) - expected);
    if (std::isnan(error)) error = INFINITY;
    double plane_max = 0;
    for (size_t e = i - i % plane; e < i - i % plane + plane; ++e)
      plane_max = std::max(plane_max, magnitude[e]);
    const double limit = exact                                        ? 0.0
                         : comparison == Comparison::kPlaneErrorBound ? inexact.Of(plane_max, k)
                                                                      : bound.Of(magnitude[i], k);
    const double use = error == 0 ? 0.0 : (limit > 0 ? error / limit : INFINITY);
    zeros += reference[i] == 0.0;
    j.unwritten += IsPoison(got.values[i]);
    j.max_abs_error = std::max(j.max_abs_error, error);
    j.max_bound_use = std::max(j.max_bound_use, use);
    if (expected != 0) j.max_rel_error = std::max(j.max_rel_error, error / std::fabs(expected));
    const int64_t l = static_cast<int64_t>(i);
    const Shape index{l / (plane * shape[1]), l / plane % shape[1], l % plane};
    if (!(error <= limit)) {
      ++j.mismatches;
      if (!j.first) j.first = ElementReport{index, expected, got.values[i], error, limit};
    }
    if ((exact ? error : use) > worst_score) {
      worst_score = exact ? error : use;
      j.worst = ElementReport{index, expected, got.values[i], error, limit};
    }
  }
  j.zero_share = static_cast<double>(zeros) / static_cast<double>(reference.size());
  return j;
}

uint64_t Bits(double v) {
  uint64_t b;
  std::memcpy(&b, &v, sizeof b);
  return b;
}

void ExpectSameElement(const std::optional<ElementReport>& a,
                       const std::optional<ElementReport>& b) {
  ASSERT_EQ(a.has_value(), b.has_value());
  if (!a) return;
  EXPECT_EQ(a->index, b->index);
  for (auto [x, y] : {std::pair{a->expected, b->expected},
                      {a->got, b->got},
                      {a->error, b->error},
                      {a->bound, b->bound}})
    EXPECT_EQ(Bits(x), Bits(y));
}

TEST(Judge, GivesWhatTheDefinitionGivesBitForBit) {
  Prng rng(11);
  const Comparison comparisons[] = {Comparison::kBitwise, Comparison::kErrorBound,
                                    Comparison::kPlaneErrorBound};
  for (int trial = 0; trial < 3000; ++trial) {
    const Shape shape{rng.Between(1, 2), rng.Between(1, 3), rng.Between(1, 8)};
    const size_t n = static_cast<size_t>(NumElements(shape));
    const Comparison comparison = comparisons[rng.Below(3)];
    const int64_t k = static_cast<int64_t>(rng.Below(300));
    std::vector<double> reference(n), magnitude(n);
    HostTensor got{shape, std::vector<float>(n)};
    for (size_t i = 0; i < n; ++i) {
      // Integers and reals, zeros, and results that are right, nearly right, wrong, NaN, infinite
      // or never written.
      reference[i] = rng.Below(4) == 0 ? 0.0
                     : rng.Below(2)    ? static_cast<double>(rng.Between(-9, 9))
                                       : rng.UnitFloat() - 0.5;
      magnitude[i] = std::fabs(reference[i]) + rng.UnitFloat();
      const float right = static_cast<float>(reference[i]);
      switch (rng.Below(8)) {
        case 0:
          got.values[i] = right + static_cast<float>(rng.Between(-2, 2));
          break;
        case 1:
          got.values[i] = std::nextafter(right, 2.0f);
          break;
        case 2:
          got.values[i] = NAN;
          break;
        case 3:
          got.values[i] = rng.Below(2) ? INFINITY : -INFINITY;
          break;
        case 4:
          got.values[i] = PoisonValue();
          break;
        default:
          got.values[i] = right;
          break;
      }
    }
    const Judgement fast = Judge(shape, reference, magnitude, got, comparison, k);
    const Judgement plain = JudgeByDefinition(shape, reference, magnitude, got, comparison, k);
    EXPECT_EQ(fast.mismatches, plain.mismatches);
    EXPECT_EQ(fast.unwritten, plain.unwritten);
    for (auto [x, y] : {std::pair{fast.max_abs_error, plain.max_abs_error},
                        {fast.max_bound_use, plain.max_bound_use},
                        {fast.max_rel_error, plain.max_rel_error},
                        {fast.zero_share, plain.zero_share}})
      EXPECT_EQ(Bits(x), Bits(y)) << "trial " << trial;
    ExpectSameElement(fast.first, plain.first);
    ExpectSameElement(fast.worst, plain.worst);
    if (testing::Test::HasFailure()) return;
  }
}

}  // namespace
}  // namespace convparity
