#include <gtest/gtest.h>

#include <string>

#include "core/conv_case.h"
#include "core/descriptor.h"
#include "core/features.h"
#include "core/spelling.h"
#include "harness/engine/shrink_structural.h"

namespace convparity {
namespace {

TEST(SpellingShrink, IsPartOfTheBucketAndShrinksTowardPlainKeepingAutoPads) {
  ConvCase c;
  c.sut = "opencv-dnn";
  c.problem = ParseDescriptor("2d_ic2_oc4_i7x6_k3x3_s2_pb1x0_pe1x1_b")->problem;
  c.spelling = *ParseSpellingText("pads=same_upper,bias=add");
  ConvCase plain = c;
  plain.spelling = Spelling{};
  EXPECT_NE(BucketSignature(c, Verdict::kFailed, Symptom::kNone),
            BucketSignature(plain, Verdict::kFailed, Symptom::kNone));
  bool each_field_to_plain[2] = {false, false}, smaller_input_kept_same = false;
  for (const ConvCase& r : CaseReductions(c)) {
    EXPECT_TRUE(CheckSpelling(r.spelling, r.problem).ok()) << CaseTitle(r);
    if (r.problem == c.problem && SpellingText(r.spelling) == "bias=add")
      each_field_to_plain[0] = true;
    if (r.problem == c.problem && SpellingText(r.spelling) == "pads=same_upper")
      each_field_to_plain[1] = true;
    if (r.spelling == c.spelling && r.problem.input[1] < c.problem.input[1])
      smaller_input_kept_same = true;  // its pads follow the input, as SAME's do
  }
  EXPECT_TRUE(each_field_to_plain[0]);
  EXPECT_TRUE(each_field_to_plain[1]);
  EXPECT_TRUE(smaller_input_kept_same);
}

}  // namespace
}  // namespace convparity
