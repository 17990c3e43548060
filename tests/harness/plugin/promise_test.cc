// A SUT's declaration of what it can run (core/capabilities.h) is a promise: a campaign draws
// inside it and a few cases just outside, and a stack that computes a case outside it, or declines
// one inside it, is a finding (the verdict broken_promise), shrunk and bucketed like any other.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "core/descriptor.h"
#include "core/prng.h"
#include "harness/engine/campaign.h"
#include "harness/engine/campaign_cases.h"
#include "harness/engine/case_runner.h"
#include "harness/engine/check_case.h"
#include "harness/suts/sut_registry.h"
#include "plugin_paths.h"

namespace convparity {
namespace {

const std::string kComputesOutside =
    std::string("plugin:") + CONVPARITY_PROMISE_PLUGIN_COMPUTES_OUTSIDE;
const std::string kDeclinesInside =
    std::string("plugin:") + CONVPARITY_PROMISE_PLUGIN_DECLINES_INSIDE;
const std::string kKeeps = std::string("plugin:") + CONVPARITY_PROMISE_PLUGIN_KEEPS;

CaseOutcome Check(const std::string& sut, const std::string& descriptor) {
  Result<ParsedDescriptor> parsed = ParseDescriptor(descriptor);
  EXPECT_TRUE(parsed.ok()) << parsed.status().message();
  Result<std::unique_ptr<Sut>> made = MakeSut(sut);
  EXPECT_TRUE(made.ok()) << made.status().message();
  return CheckCase(ConvCase{parsed->problem, parsed->direction.value_or(Direction::kForward), sut,
                            Fill::kExact, 3},
                   **made);
}

TEST(Promises, AResultOutsideTheDeclarationOrADeclineInsideItIsBroken) {
  const char* kRank3 = "bwd_weight:3d_ic2_oc3_i4x3x3_k2x1x2";
  const char* kTransposed = "fwd:t2d_ic2_oc2_i3x4_k3x3_s2x2_op1x0";
  CaseOutcome out = Check(kComputesOutside, kRank3);
  EXPECT_EQ(out.verdict, Verdict::kBrokenPromise) << out.reason;
  EXPECT_NE(out.reason.find("computed a case outside its declaration: rank 3 is not among 1, 2"),
            std::string::npos)
      << out.reason;
  out = Check(kDeclinesInside, kTransposed);
  EXPECT_EQ(out.verdict, Verdict::kBrokenPromise) << out.reason;
  EXPECT_NE(out.reason.find("declined a case inside its declaration"), std::string::npos)
      << out.reason;
  // Kept: a decline outside is a skip, a result inside is judged.
  EXPECT_EQ(Check(kKeeps, kRank3).verdict, Verdict::kSkipped);
  EXPECT_EQ(Check(kKeeps, kTransposed).verdict, Verdict::kPassed);
  EXPECT_EQ(Check(kComputesOutside, kTransposed).verdict, Verdict::kPassed);
  EXPECT_EQ(Check(kDeclinesInside, kRank3).verdict, Verdict::kPassed);
}

CampaignOptions Campaign(const std::string& sut) {
  CampaignOptions o;
  o.seed = 4;
  o.max_cases = 240;
  o.max_macs = 20000;
  o.isolation = Isolation::kNone;
  o.quiet = true;
  o.suts = {sut};
  return o;
}

// A campaign finds the broken promise, shrinks it to a case that still breaks it, and buckets it.
// Returns the cases drawn outside the declaration.
int64_t ExpectFound(const std::string& sut, const std::string& says, bool rank3, bool transposed) {
  std::vector<Finding> reported;
  CampaignHooks hooks;
  hooks.on_new_bucket = [&](const Finding& f) { reported.push_back(f); };
  Result<CampaignSummary> s = RunCampaign(Campaign(sut), hooks);
  EXPECT_TRUE(s.ok()) << s.status().message();
  EXPECT_FALSE(reported.empty()) << sut;
  for (const Finding& f : reported) {  // a bucket per direction and features
    const std::string minimized = CaseDescriptor(f.minimized.problem, f.minimized.direction);
    EXPECT_EQ(f.outcome.verdict, Verdict::kBrokenPromise) << minimized;
    EXPECT_NE(f.outcome.reason.find(says), std::string::npos) << f.outcome.reason;
    EXPECT_EQ(f.minimized.problem.rank == 3, rank3) << minimized;
    EXPECT_EQ(f.minimized.problem.transposed, transposed) << minimized;
  }
  return s.ok() ? s->outside : -1;
}

TEST(Promises, ACampaignReportsAStackThatComputesWhatItDeclaredItCannot) {
  EXPECT_GT(ExpectFound(kComputesOutside, "computed a case outside its declaration", true, false),
            0);
}

TEST(Promises, ACampaignReportsAStackThatDeclinesWhatItDeclaredItCan) {
  // It declares every case: none is outside.
  EXPECT_EQ(ExpectFound(kDeclinesInside, "declined a case inside its declaration", false, true), 0);
}

TEST(Promises, ACampaignOfAStackThatKeepsItsWordDeclinesOnlyTheCasesDrawnOutside) {
  Result<CampaignSummary> s = RunCampaign(Campaign(kKeeps), {});
  ASSERT_TRUE(s.ok()) << s.status().message();
  EXPECT_TRUE(s->buckets.empty());
  int64_t declined = 0;
  for (const auto& [reason, n] : s->skip_reasons)
    if (reason.find("own rule") != std::string::npos) declined += n;
  EXPECT_EQ(declined, s->outside);
  EXPECT_GT(s->outside, 0);
  EXPECT_LT(s->outside, s->cases / 5);
}

// Inside the union of the declarations: a direction none runs is not drawn; about one case in
// kOutsideEvery is drawn just outside, in a direction they run.
TEST(Promises, CasesAreDrawnInsideTheDeclarationsButAShareJustOutside) {
  Result<Capabilities> declared = CapabilitiesFromJson(nlohmann::json::parse(
      R"([{"directions": ["fwd"], "ranks": [1, 2], "kinds": ["ordinary"]},
          {"directions": ["fwd"], "ranks": [2], "groups": ["plain"]}])"));
  ASSERT_TRUE(declared.ok()) << declared.status().message();
  const CampaignOptions o = Campaign("direct");
  Result<CampaignSpace> made = MakeCampaignSpace(o, o.suts);
  ASSERT_TRUE(made.ok()) << made.status().message();
  CampaignSpace space = *made;  // "direct" declares nothing: the test declares for it
  const ConvCase undeclared = DrawCase(o, space, 5).Case();
  space.declarations = *declared;
  space.directions = space.outside_directions = {Direction::kForward};
  space.runs = {true, false, false};
  int outside = 0;
  const int kCases = 1200;
  for (int64_t i = 0; i < kCases; ++i) {
    const DrawnCase drawn = DrawCase(o, space, i);
    const ConvProblem& p = drawn.problem.value();
    const std::string descriptor = CaseDescriptor(p, drawn.direction);
    EXPECT_EQ(drawn.direction, Direction::kForward) << descriptor;
    const bool inside =
        (p.rank <= 2 && !p.transposed) || (p.rank == 2 && GroupKindOf(p) == GroupKind::kPlain);
    EXPECT_EQ(drawn.outside, !inside) << descriptor;
    if (drawn.outside) {
      ++outside;
      EXPECT_TRUE(JustOutside(*declared, "conv", drawn.direction, p)) << descriptor;
    }
  }
  EXPECT_GT(outside, kCases / kOutsideEvery / 2);
  EXPECT_LT(outside, 2 * kCases / kOutsideEvery);
  // Without a declaration, case i is what it was before declarations existed: its first draw.
  EXPECT_TRUE(undeclared == *CampaignCase(o, 5));
  EXPECT_TRUE(undeclared.problem ==
              space.gen(rc::Random(MixSeed(o.seed, 5)), rc::kNominalSize).value());
}

// A SUT's declaration makes the campaign's space: its directions, each narrowed to what its regions
// run, so that a case drawn inside needs no redraw; a direction whose region holds every problem
// has nothing just outside.
TEST(Promises, TheSpaceIsMadeFromWhatTheSutsDeclare) {
  CampaignOptions o = Campaign(kKeeps);  // ranks 1 and 2, every direction
  Result<CampaignSpace> space = MakeCampaignSpace(o, o.suts);
  ASSERT_TRUE(space.ok()) << space.status().message();
  EXPECT_TRUE(space->declarations.declared);
  EXPECT_EQ(space->directions, AllDirections());
  EXPECT_EQ(space->outside_directions, AllDirections());
  for (Direction d : AllDirections())
    for (uint64_t k = 0; k < 200; ++k)
      EXPECT_LE(space->inside[static_cast<size_t>(d)](rc::Random(k), rc::kNominalSize).value().rank,
                2);
  o.suts = {kDeclinesInside};  // declares every case
  space = MakeCampaignSpace(o, o.suts);
  ASSERT_TRUE(space.ok()) << space.status().message();
  EXPECT_EQ(space->directions, AllDirections());
  EXPECT_TRUE(space->outside_directions.empty());
  // With a SUT that declares nothing beside it, the union declares nothing: every case anywhere.
  o.suts = {kKeeps, "direct"};
  space = MakeCampaignSpace(o, o.suts);
  ASSERT_TRUE(space.ok()) << space.status().message();
  EXPECT_FALSE(space->declarations.declared);
  EXPECT_TRUE(space->outside_directions.empty());
}

// The SUT host's forked children carry what the SUT declared back to the worker.
TEST(Promises, ABrokenPromiseIsTheSameInAChildForkedForTheCase) {
  WorkerPolicy policy;
  policy.fork_per_case = true;
  std::unique_ptr<CaseRunner> runner = MakeIsolatedRunner(CONVPARITY_EXE, 30, {}, policy);
  Result<ParsedDescriptor> parsed = ParseDescriptor("fwd:3d_ic1_oc2_i3x2x2_k2x1x1");
  ASSERT_TRUE(parsed.ok()) << parsed.status().message();
  const ConvCase c{parsed->problem, Direction::kForward, "", Fill::kExact, 3};
  const std::vector<CaseOutcome> out = runner->Check(c, {kComputesOutside, kKeeps});
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(out[0].verdict, Verdict::kBrokenPromise) << out[0].reason;
  EXPECT_NE(out[0].reason.find("computed a case outside its declaration"), std::string::npos)
      << out[0].reason;
  EXPECT_EQ(out[1].verdict, Verdict::kSkipped) << out[1].reason;
}

}  // namespace
}  // namespace convparity
