// A bucket names what went wrong before where (issue 24): a failed verdict's symptom follows the
// verdict, and a loss of precision is the symptom and the direction alone.
#include <gtest/gtest.h>

#include "core/descriptor.h"
#include "core/features.h"

namespace convparity {
namespace {

ConvCase Case(const char* descriptor, const char* sut = "plugin:/x/libk.so#v") {
  Result<ParsedDescriptor> d = ParseDescriptor(descriptor);
  EXPECT_TRUE(d.ok()) << descriptor;
  return ConvCase{d->problem, d->direction.value_or(Direction::kForward), sut, Fill::kExact, 1};
}

TEST(BucketSignature, AFailedVerdictNamesItsSymptomThenTheFeatures) {
  const ConvCase c = Case("bwd_data:t1d_g2_ic4_oc2_i5_k3_s2_op1");
  EXPECT_EQ(BucketSignature(c, Verdict::kFailed, Symptom::kWrong),
            "plugin:/x/libk.so#v/bwd_data/failed/wrong/t1d.grouped.stride>1.output_padding>0");
}

TEST(BucketSignature, ALossOfPrecisionIsOneBucketPerDirectionWhateverTheProblem) {
  for (const char* d : {"fwd:1d_ic1_oc1_i1_k1", "fwd:3d_g4_ic8_oc4_i5x5x5_k3x3x3_d2x1x1_ndhwc",
                        "fwd:t2d_ic3_oc2_i4x4_k2x2_s2x2_b"}) {
    ConvCase c = Case(d);
    EXPECT_EQ(BucketSignature(c, Verdict::kFailed, Symptom::kPrecision),
              "plugin:/x/libk.so#v/fwd/failed/precision")
        << d;
    c.graph = &ChainForm();
    EXPECT_EQ(BucketSignature(c, Verdict::kFailed, Symptom::kPrecision),
              "plugin:/x/libk.so#v/fwd/failed/precision")
        << d;
  }
  EXPECT_EQ(BucketSignature(Case("bwd_weight:2d_ic1_oc1_i3x3_k2x2"), Verdict::kFailed,
                            Symptom::kPrecision),
            "plugin:/x/libk.so#v/bwd_weight/failed/precision");
}

// The other verdicts are their own symptom; a failure whose symptom was not told keeps the form
// buckets had before symptoms.
TEST(BucketSignature, OtherVerdictsAndUntoldSymptomsHaveNoSymptomPart) {
  const ConvCase c = Case("fwd:2d_g2_ic4_oc2_i5x5_k3x3", "known-bug:pytorch-19912");
  EXPECT_EQ(BucketSignature(c, Verdict::kCrashed, Symptom::kNone),
            "known-bug:pytorch-19912/fwd/crashed/2d.grouped");
  EXPECT_EQ(BucketSignature(c, Verdict::kUnwritten, Symptom::kNone),
            "known-bug:pytorch-19912/fwd/unwritten/2d.grouped");
  EXPECT_EQ(BucketSignature(c, Verdict::kFailed, Symptom::kNone),
            "known-bug:pytorch-19912/fwd/failed/2d.grouped");
  // A symptom given with another verdict is not one of its parts.
  EXPECT_EQ(BucketSignature(c, Verdict::kHung, Symptom::kPrecision),
            "known-bug:pytorch-19912/fwd/hung/2d.grouped");
}

TEST(Symptom, EveryNameParsesBack) {
  for (int i = 0; i <= static_cast<int>(kLastSymptom); ++i) {
    const Symptom s = static_cast<Symptom>(i);
    Result<Symptom> back = ParseSymptom(SymptomName(s));
    ASSERT_TRUE(back.ok()) << SymptomName(s);
    EXPECT_EQ(*back, s);
  }
  Result<Symptom> bad = ParseSymptom("rounding");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("'rounding'"), std::string::npos);
}

}  // namespace
}  // namespace convparity
