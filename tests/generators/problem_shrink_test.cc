#include "generators/problem_shrink.h"

#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include "core/descriptor.h"
#include "generators/problem_gen.h"
#include "harness/engine/shrink_search.h"

namespace convparity {
namespace {

RC_GTEST_PROP(ProblemShrink, EverySimplerProblemIsValidAndDifferent, ()) {
  const ConvProblem p = *GenProblem();
  for (const ConvProblem& q : SimplerProblems(p)) {
    RC_ASSERT(Validate(q).ok());
    RC_ASSERT(q != p);
  }
}

TEST(ProblemShrink, AGroupedFailureShrinksToTheSmallestGroupedProblem) {
  ParsedDescriptor big = *ParseDescriptor(
      "t3d_g4_mb3_ic8_oc12_i5x6x7_k3x2x5_s2x1x3_pb1x0x2_pe0x1x0_d2x1x1_op1x0x0_ndhwc_dhwio_b");
  ASSERT_TRUE(Validate(big.problem).ok());
  SearchResult<ConvProblem> r;
  ShrinkInto<ConvProblem>(ShrinkableProblem(big.problem),
                          [](const ConvProblem& p) { return p.groups > 1; }, {}, r);
  ASSERT_TRUE(r.shrunk);
  EXPECT_EQ(ProblemDescriptor(*r.shrunk), "1d_g2_ic2_oc2_i1_k1");
  EXPECT_TRUE(r.shrink_complete);
  EXPECT_EQ(r.steps.size(), static_cast<size_t>(r.shrink_steps));
}

TEST(ProblemShrink, OutputPaddingFailureKeepsTheTransposedConvolution) {
  ParsedDescriptor big = *ParseDescriptor("t2d_g2_ic4_oc6_i9x9_k3x3_s2x2_p1x1_d2x2_op1x0_nhwc_hwio");
  SearchResult<ConvProblem> r;
  ShrinkInto<ConvProblem>(
      ShrinkableProblem(big.problem),
      [](const ConvProblem& p) { return p.transposed && p.output_padding[0] > 0; }, {}, r);
  // Either of the two one-dimensional minima: output_padding 1 needs stride 2 or dilation 2.
  const std::string shrunk = ProblemDescriptor(*r.shrunk);
  EXPECT_TRUE(shrunk == "t1d_ic1_oc1_i1_k1_s2_op1" || shrunk == "t1d_ic1_oc1_i1_k1_d2_op1") << shrunk;
}

}  // namespace
}  // namespace convparity
