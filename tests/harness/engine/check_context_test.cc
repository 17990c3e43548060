// The check context: its limits and the user's SUT names hold wherever a case runs, in this process
// and in a worker process (which gets them on its command line, never falling back to defaults);
// their text forms read back and refuse anything else.
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

CheckContext MappedName() {
  CheckContext context;
  context.suts.map["mine"] = "direct";  // what --sut-map mine=direct says
  return context;
}

TEST(CheckContext, ItsSutNamesHoldInThisProcessAndInAWorker) {
  const ConvCase c = SmallCase();
  std::unique_ptr<CaseRunner> local = MakeInProcessRunner(MappedName());
  std::unique_ptr<CaseRunner> isolated = MakeIsolatedRunner(CONVPARITY_EXE, 10, MappedName());
  for (CaseRunner* runner : {local.get(), isolated.get()}) {
    const std::vector<CaseOutcome> out = runner->Check(c, {"mine"});
    ASSERT_EQ(out.size(), 1u);
    EXPECT_EQ(out[0].verdict, Verdict::kPassed) << out[0].reason;
  }
  // Without the mapping the name means nothing: a worker that fell back to the default
  // configuration would say so.
  std::unique_ptr<CaseRunner> worker = MakeIsolatedRunner(CONVPARITY_EXE, 10);
  const CaseOutcome unknown = worker->Check(c, {"mine"})[0];
  EXPECT_EQ(unknown.verdict, Verdict::kInvalid);
  EXPECT_NE(unknown.reason.find("unknown system under test 'mine'"), std::string::npos)
      << unknown.reason;
}

TEST(CheckContext, SutConfigArgumentReadsBackAndRefusesAnythingElse) {
  SutConfig config;
  config.map["mine"] = "exec:node 'my adapter.js' --x=\"y\"";
  config.map["theirs"] = "plugin:/opt/lib/libconv.so";
  config.case_timeout_seconds = 2.5;
  Result<SutConfig> back = ParseSutConfigArgument(SutConfigArgument(config));
  ASSERT_TRUE(back.ok()) << back.status().message();
  EXPECT_EQ(back->map, config.map);
  EXPECT_EQ(back->case_timeout_seconds, 2.5);
  for (const char* bad : {"", "{}", "[]", R"({"map": {}})", R"({"map": {}, "timeout": 0})",
                          R"({"map": {"a": 1}, "timeout": 1})", R"({"map": [], "timeout": 1})",
                          R"({"map": {}, "timeout": 1, "x": 2})"})
    EXPECT_FALSE(ParseSutConfigArgument(bad).ok()) << bad;
}

}  // namespace
}  // namespace convparity
