// The check context: its limits hold wherever a case runs, in this process and in a worker process
// (which gets them on its command line); their text form reads back and refuses anything else.
#include "harness/engine/check_context.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "core/descriptor.h"
#include "harness/engine/case_runner.h"

namespace convparity {
namespace {

ConvCase SmallCase() {
  Result<ParsedDescriptor> parsed = ParseDescriptor("fwd:2d_ic2_oc2_i5x5_k3x3");
  EXPECT_TRUE(parsed.ok()) << parsed.status().message();
  return ConvCase{parsed->problem, Direction::kForward, "direct", Fill::kExact, 7};
}

CheckContext TinyMacs() {
  CheckContext context;
  context.limits.max_macs = 10;  // the case has 2·2·9·9 = 324 multiply-adds
  return context;
}

TEST(CheckContext, ItsLimitsHoldInThisProcessAndInAWorker) {
  const ConvCase c = SmallCase();
  std::unique_ptr<CaseRunner> local = MakeInProcessRunner(TinyMacs());
  std::unique_ptr<CaseRunner> isolated = MakeIsolatedRunner(CONVPARITY_EXE, 10, TinyMacs());
  for (CaseRunner* runner : {local.get(), isolated.get()}) {
    const std::vector<CaseOutcome> out = runner->Check(c, {"direct"});
    ASSERT_EQ(out.size(), 1u);
    EXPECT_EQ(out[0].verdict, Verdict::kInvalid) << out[0].reason;
    EXPECT_NE(out[0].reason.find("multiply-adds"), std::string::npos) << out[0].reason;
  }
  // The default context lets the same case run.
  std::unique_ptr<CaseRunner> worker = MakeIsolatedRunner(CONVPARITY_EXE, 10);
  EXPECT_EQ(worker->Check(c, {"direct"})[0].verdict, Verdict::kPassed);
}

TEST(CheckContext, LimitsArgumentReadsBackAndRefusesAnythingElse) {
  Limits limits;
  limits.max_tensor_elements = 123;
  limits.max_macs = 4567;
  limits.max_extent = 89;
  Result<Limits> back = ParseLimitsArgument(LimitsArgument(limits));
  ASSERT_TRUE(back.ok()) << back.status().message();
  EXPECT_EQ(back->max_tensor_elements, 123);
  EXPECT_EQ(back->max_macs, 4567);
  EXPECT_EQ(back->max_extent, 89);
  for (const char* bad : {"", "1,2", "1,2,3,4", "1,2,3x", "0,2,3", "-1,2,3", "a,b,c"})
    EXPECT_FALSE(ParseLimitsArgument(bad).ok()) << bad;
}

}  // namespace
}  // namespace convparity
