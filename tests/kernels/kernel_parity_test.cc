// Our direct kernels agree with the float64 oracle in all three directions, in exact and random mode,
// over generated problems. CI runs a fixed seed (RC_PARAMS in tests/CMakeLists.txt); set RC_PARAMS for a
// longer run, e.g. RC_PARAMS="max_success=20000" ./build/tests/parity_tests --gtest_filter='DirectParity*'.
#include <gtest/gtest.h>
#include <rapidcheck.h>
#include <rapidcheck/gtest.h>

#include "generators/problem_gen.h"
#include "harness/engine/check_case.h"
#include "kernels/direct_conv.h"

namespace convparity {
namespace {

// Checks one generated problem in exact mode and in one random distribution.
void ExpectParity(Direction d) {
  const ConvProblem p = *GenProblem();
  const uint64_t seed = *rc::gen::arbitrary<uint64_t>();
  const Fill random = *rc::gen::element(Fill::kUniform, Fill::kPositive, Fill::kWide);
  DirectConv direct;
  for (Fill fill : {Fill::kExact, random}) {
    ConvCase c{p, d, "direct", fill, seed};
    CaseOutcome out = CheckCase(c, direct);
    RC_CLASSIFY(out.verdict == Verdict::kMistrusted, "mistrusted");
    RC_CLASSIFY(out.verdict == Verdict::kSkipped, "skipped");
    if (IsDiscrepancy(out.verdict) || out.verdict == Verdict::kInvalid)
      RC_FAIL(std::string(FillName(fill)) + " fill: " + VerdictName(out.verdict) + ": " + out.reason);
  }
}

RC_GTEST_PROP(DirectParity, ForwardAgreesWithOracleInExactAndRandomMode, ()) {
  ExpectParity(Direction::kForward);
}
RC_GTEST_PROP(DirectParity, BackwardDataAgreesWithOracleInExactAndRandomMode, ()) {
  ExpectParity(Direction::kBackwardData);
}
RC_GTEST_PROP(DirectParity, BackwardWeightAgreesWithOracleInExactAndRandomMode, ()) {
  ExpectParity(Direction::kBackwardWeight);
}

}  // namespace
}  // namespace convparity
