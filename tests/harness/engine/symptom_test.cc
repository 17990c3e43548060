// What went wrong in a failed result (symptom.h): each symptom on results made for it, the order in
// which they are told, and the symptoms CheckCase gives the planted bugs' results.
#include "harness/engine/symptom.h"

#include <gtest/gtest.h>

#include <memory>

#include "core/descriptor.h"
#include "harness/engine/case_runner.h"
#include "plugin_paths.h"

namespace convparity {
namespace {

const Shape kShape{1, 1, 4};

HostTensor Got(std::vector<float> v) { return HostTensor{kShape, std::move(v)}; }

Symptom Exact(const std::vector<double>& ref, const std::vector<double>& magnitude,
              std::vector<float> got, int64_t k) {
  return ClassifySymptom(kShape, ref, magnitude, Got(std::move(got)), Comparison::kBitwise, k);
}

TEST(Symptom, APassingResultHasNone) {
  EXPECT_EQ(Exact({1, 2, 3, 4}, {1, 2, 3, 4}, {1, 2, 3, 4}, 1), Symptom::kNone);
}

// An exact fill's sums are integers, which bfloat16 holds exactly up to 256: an error there is a
// whole wrong value, however small; beyond, it is within bfloat16's rounding of the sums.
TEST(Symptom, AnExactFillLosesPrecisionOnlyWhereItsSumsLeaveBfloat16sIntegers) {
  const std::vector<double> ref{5, 300, -3, 7};
  EXPECT_EQ(Exact(ref, {9, 400, 60, 9}, {5, 301, -3, 7}, 40), Symptom::kPrecision);
  EXPECT_EQ(Exact(ref, {9, 400, 60, 9}, {5, 301, -2, 7}, 40), Symptom::kWrong);
  EXPECT_EQ(Exact(ref, {9, 250, 60, 9}, {5, 301, -3, 7}, 40), Symptom::kWrong);
  // Beyond a few units of bfloat16: 4 · 2^-8 · √40 · 400 ≈ 39.5.
  EXPECT_EQ(Exact(ref, {9, 400, 60, 9}, {5, 340, -3, 7}, 40), Symptom::kWrong);
  // Without magnitudes nothing is a loss of precision.
  EXPECT_EQ(Exact(ref, {}, {5, 301, -3, 7}, 40), Symptom::kWrong);
}

TEST(Symptom, ARandomFillRoundedToBfloat16LosesPrecision) {
  const std::vector<double> ref{0.123456789, -0.987654321, 0.5, 0.333333333};
  const std::vector<double> magnitude{0.2, 1.1, 0.6, 0.4};
  // Each rounded to bfloat16's 8 significant bits.
  const std::vector<float> bf16{0.12353515625f, -0.98828125f, 0.5f, 0.333984375f};
  EXPECT_EQ(ClassifySymptom(kShape, ref, magnitude, Got(bf16), Comparison::kErrorBound, 1),
            Symptom::kPrecision);
  std::vector<float> off = bf16;
  off[2] = 1.5f;  // one whole unit off
  EXPECT_EQ(ClassifySymptom(kShape, ref, magnitude, Got(off), Comparison::kErrorBound, 1),
            Symptom::kWrong);
}

// Zeros and values in other places are whole wrong values: on a minimal case's few small
// integers they are coincidences as often as causes (symptom.h).
TEST(Symptom, ZerosMovedValuesAndNaNAreWholeWrongValues) {
  EXPECT_EQ(Exact({1, 2, 3, 4}, {1, 2, 3, 4}, {1, 0, -0.0f, 4}, 1), Symptom::kWrong);
  EXPECT_EQ(Exact({1, 2, 3, 4}, {1, 2, 3, 4}, {2, 1, 4, 3}, 1), Symptom::kWrong);
  EXPECT_EQ(Exact({1, 2, 300, 4}, {1, 2, 400, 4}, {1, 2, NAN, 4}, 40), Symptom::kWrong);
}

// The judge's plane bound (an inexact algorithm) decides which elements are wrong here too.
TEST(Symptom, AnInexactResultIsJudgedWithinItsPlanesBound) {
  const std::vector<double> ref{1, 2, 3, 4}, magnitude{1, 2, 3, 1000};
  // Within 16 · 2^-24 · 1000 of every element of the plane: not wrong at all.
  EXPECT_EQ(ClassifySymptom(kShape, ref, magnitude, Got({1.0001f, 2, 3, 4}),
                            Comparison::kPlaneErrorBound, 1),
            Symptom::kNone);
  EXPECT_EQ(
      ClassifySymptom(kShape, ref, magnitude, Got({1.0001f, 2, 3, 4}), Comparison::kErrorBound, 1),
      Symptom::kPrecision);
}

// CheckCase tells the symptom of every failure, computing an exact fill's magnitudes for it.
TEST(Symptom, CheckCaseTellsThePlantedBugsApart) {
  std::unique_ptr<CaseRunner> runner = MakeInProcessRunner();
  auto check = [&](const char* variant, const char* descriptor, Fill fill) {
    Result<ParsedDescriptor> d = ParseDescriptor(descriptor);
    EXPECT_TRUE(d.ok()) << descriptor;
    const std::string sut = std::string("plugin:") + CONVPARITY_PLANTED_PLUGIN + "#" + variant;
    ConvCase c{d->problem, d->direction.value_or(Direction::kForward), sut, fill, 1};
    const CaseOutcome out = runner->Check(c, {sut})[0];
    EXPECT_EQ(out.verdict, Verdict::kFailed) << variant << " " << descriptor << ": " << out.reason;
    return out.judgement.symptom;
  };
  EXPECT_EQ(check("bf16-accumulator", "fwd:1d_ic1_oc1_i1_k1", Fill::kUniform), Symptom::kPrecision);
  // Exact: the sums of 4096 terms of ±16 at most leave bfloat16's integers.
  EXPECT_EQ(check("bf16-accumulator", "fwd:1d_ic64_oc2_i64_k64", Fill::kExact),
            Symptom::kPrecision);
  EXPECT_EQ(check("bf16-accumulator", "bwd_weight:2d_mb4_ic2_oc2_i20x20_k2x2", Fill::kExact),
            Symptom::kPrecision);
  EXPECT_EQ(check("everywhere", "fwd:1d_ic1_oc1_i1_k1", Fill::kExact), Symptom::kWrong);
  EXPECT_EQ(check("everywhere", "bwd_data:2d_ic3_oc2_i5x5_k3x3", Fill::kExact), Symptom::kWrong);
  EXPECT_EQ(check("two-bugs", "fwd:1d_ic1_oc1_i3_k1_s2", Fill::kExact), Symptom::kWrong);
}

}  // namespace
}  // namespace convparity
