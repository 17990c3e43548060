#include "harness/engine/judge.h"

#include <gtest/gtest.h>

#include <cmath>
#include <memory>

#include "core/descriptor.h"
#include "harness/engine/check_case.h"
#include "harness/suts/sut_registry.h"

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
    CP_RETURN_IF_ERROR(direct_->Run(p, d, buffers));
    buffers.result[0] = std::nextafter(buffers.result[0], INFINITY);
    return Status::Ok();
  }

 private:
  std::unique_ptr<ConvSut> direct_ = std::move(MakeSut("direct")).value();
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

}  // namespace
}  // namespace convparity
