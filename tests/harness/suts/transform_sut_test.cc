// Transform pipelines as systems under test (harness/suts/transform_sut.h): every correct pass
// keeps the meaning of the graph it rewrites, checked against the float64 oracle in all three
// directions and in exact and random mode; broken promises and the historical transform bugs are
// caught.
#include "harness/suts/transform_sut.h"

#include <gtest/gtest.h>
#include <rapidcheck.h>
#include <rapidcheck/gtest.h>

#include <algorithm>
#include <cstdio>

#include "core/descriptor.h"
#include "generators/problem_gen.h"
#include "harness/engine/campaign.h"
#include "harness/engine/case_schedule.h"
#include "harness/engine/check_case.h"
#include "harness/suts/sut_registry.h"
#include "kernels/graph/passes.h"
#include "kernels/known_bugs/known_bugs.h"
#include "reports/report_json.h"

namespace convparity {
namespace {

std::vector<std::string> CorrectPasses() {
  std::vector<std::string> names;
  for (const PassInfo& p : AllPasses())
    if (p.name.find('@') == std::string::npos) names.push_back(p.name);
  return names;
}

std::unique_ptr<Sut> Make(const std::string& name) {
  Result<std::unique_ptr<Sut>> sut = MakeSut(name);
  if (!sut.ok()) {
    ADD_FAILURE() << sut.status().message();
    return nullptr;
  }
  return std::move(sut).value();
}

// Checks one generated problem (as a chain: its residual block) through `sut_name` in exact mode
// and one random distribution.
void ExpectParity(const std::string& sut_name, Direction d, const GraphForm* form = &ConvForm()) {
  ProblemSpace space;
  // Transforms multiply the work (split_groups, legalize, transpose_to_conv); a chain adds its
  // residual convolution.
  space.max_macs = form == &ChainForm() ? 20000 : 50000;
  const ConvProblem p = *GenProblem(space);
  const uint64_t seed = *rc::gen::arbitrary<uint64_t>();
  Result<std::unique_ptr<Sut>> sut = MakeSut(sut_name);
  RC_ASSERT(sut.ok());
  RC_CLASSIFY(p.transposed, "transposed");
  RC_CLASSIFY(p.groups > 1, "grouped");
  RC_CLASSIFY(p.depthwise() && p.depth_multiplier() > 1, "multiplier>1");
  for (Fill fill : {Fill::kExact, Fill::kUniform}) {
    ConvCase c{p, d, sut_name, fill, seed};
    c.graph = form;
    CaseOutcome out = CheckCase(c, **sut);
    if (IsDiscrepancy(out.verdict) || out.verdict == Verdict::kInvalid)
      RC_FAIL(sut_name + " " + form->name + " " + CaseDescriptor(p, d) + " " + FillName(fill) +
              " fill: " + VerdictName(out.verdict) + ": " + out.reason);
  }
}

// A generated problem through a drawn correct pass: over the CI's runs every pass sees about a
// seventh of them.
void ExpectParityOfADrawnPass(Direction d, const GraphForm* form = &ConvForm()) {
  const std::string pass = *rc::gen::elementOf(CorrectPasses());
  RC_TAG(pass);
  ExpectParity("transform:" + pass, d, form);
}

RC_GTEST_PROP(TransformSut, EveryCorrectPassAgreesWithTheOracleForward, ()) {
  ExpectParityOfADrawnPass(Direction::kForward);
}
RC_GTEST_PROP(TransformSut, EveryCorrectPassAgreesWithTheOracleBackwardData, ()) {
  ExpectParityOfADrawnPass(Direction::kBackwardData);
}
RC_GTEST_PROP(TransformSut, EveryCorrectPassAgreesWithTheOracleBackwardWeight, ()) {
  ExpectParityOfADrawnPass(Direction::kBackwardWeight);
}

// Chains: the residual block of a generated problem, checked against the graph oracle.
RC_GTEST_PROP(TransformSut, ChainsThroughEveryCorrectPassAgreeWithTheOracleForward, ()) {
  ExpectParityOfADrawnPass(Direction::kForward, &ChainForm());
}
RC_GTEST_PROP(TransformSut, ChainsThroughEveryCorrectPassAgreeWithTheOracleBackwardData, ()) {
  ExpectParityOfADrawnPass(Direction::kBackwardData, &ChainForm());
}
RC_GTEST_PROP(TransformSut, ChainsThroughEveryCorrectPassAgreeWithTheOracleBackwardWeight, ()) {
  ExpectParityOfADrawnPass(Direction::kBackwardWeight, &ChainForm());
}

// And each pass, named, on problems that give it work, in every direction and both fill modes.
class EveryPass : public ::testing::TestWithParam<std::string> {};

TEST_P(EveryPass, AgreesWithTheOracleOnProblemsThatGiveItWork) {
  const std::string sut_name = "transform:" + GetParam();
  std::unique_ptr<Sut> sut = Make(sut_name);
  ASSERT_TRUE(sut);
  for (const char* descriptor :
       {"1d_g2_mb2_ic4_oc6_i9_k3_s2_pb1_d2_b", "t1d_g2_ic4_oc2_i5_k3_s2_pb1_op1_nwc",
        "2d_g3_ic3_oc6_i7x6_k3x2_s2x1_pb1x0_pe0x1_nhwc_hwio_b",
        "t2d_g2_ic4_oc6_i4x5_k3x3_s2x2_op1x0_iohw", "2d_g2_ic2_oc4_i5x5_k3x3_d2x1",
        "t3d_ic2_oc3_i3x3x2_k2x2x2_s2x1x1_ncdhw"}) {
    Result<ParsedDescriptor> parsed = ParseDescriptor(descriptor);
    ASSERT_TRUE(parsed.ok()) << descriptor << ": " << parsed.status().message();
    ASSERT_TRUE(Validate(parsed->problem).ok())
        << descriptor << ": " << Validate(parsed->problem).message();
    for (Direction d : AllDirections())
      for (Fill fill : {Fill::kExact, Fill::kUniform})
        for (const GraphForm* form : {&ConvForm(), &ChainForm()}) {
          ConvCase c{parsed->problem, d, sut_name, fill, 3};
          c.graph = form;
          CaseOutcome out = CheckCase(c, *sut);
          EXPECT_TRUE(out.verdict == Verdict::kPassed || out.verdict == Verdict::kMistrusted)
              << sut_name << " " << form->name << " " << CaseDescriptor(c.problem, d) << " "
              << FillName(fill) << ": " << VerdictName(out.verdict) << ": " << out.reason;
        }
  }
}

INSTANTIATE_TEST_SUITE_P(TransformSut, EveryPass, ::testing::ValuesIn(CorrectPasses()),
                         [](const auto& info) { return info.param; });

RC_GTEST_PROP(TransformSut, RandomPipelinesOfCorrectPassesAgreeWithTheOracle, ()) {
  const std::string sut =
      RandomTransformSut(*rc::gen::arbitrary<uint64_t>(), *rc::gen::inRange<int64_t>(0, 1000));
  RC_TAG(sut);
  ExpectParity(sut, *rc::gen::elementOf(AllDirections()));
}

RC_GTEST_PROP(TransformSut, RandomPipelinesOnChainsAgreeWithTheOracle, ()) {
  const std::string sut =
      RandomTransformSut(*rc::gen::arbitrary<uint64_t>(), *rc::gen::inRange<int64_t>(0, 1000));
  RC_TAG(sut);
  ExpectParity(sut, *rc::gen::elementOf(AllDirections()), &ChainForm());
}

RC_GTEST_PROP(TransformSut, AnExplicitGradientFirstIsTheImpliedOne, ()) {
  ExpectParity("transform:gradient,legalize", Direction::kBackwardWeight);
}

Result<ConvCase> TriggerCase(const KnownBugInfo& bug) {
  Result<ParsedDescriptor> d = ParseDescriptor(bug.trigger);
  if (!d.ok()) return d.status();
  return ConvCase{d->problem, d->direction.value_or(Direction::kForward), "known-bug:" + bug.id,
                  Fill::kExact, 1};
}

TEST(TransformSut, EveryTransformBugDiffersOnItsTriggerAndItsCorrectPassDoesNot) {
  for (const KnownBugInfo& bug : KnownBugsOfKind(KnownBugKind::kTransform)) {
    Result<ConvCase> c = TriggerCase(bug);
    ASSERT_TRUE(c.ok()) << bug.id << ": " << c.status().message();
    std::unique_ptr<Sut> buggy = Make("known-bug:" + bug.id);
    ASSERT_TRUE(buggy);
    CaseOutcome out = CheckCase(*c, *buggy);
    EXPECT_TRUE(IsDiscrepancy(out.verdict))
        << bug.id << " on " << bug.trigger << ": " << VerdictName(out.verdict) << " " << out.reason;
    ConvCase chain = *c;  // the bug shows inside a residual block too
    chain.graph = &ChainForm();
    CaseOutcome in_chain = CheckCase(chain, *buggy);
    EXPECT_TRUE(IsDiscrepancy(in_chain.verdict))
        << bug.id << " on the chain of " << bug.trigger << ": " << VerdictName(in_chain.verdict)
        << " " << in_chain.reason;
    // The same pipeline without the bug passes.
    std::string fixed = "transform:" + bug.pipeline;
    fixed.erase(fixed.find('@'), fixed.find_first_of(",", fixed.find('@')) - fixed.find('@'));
    std::unique_ptr<Sut> correct = Make(fixed);
    ASSERT_TRUE(correct) << fixed;
    c.value().sut = fixed;
    CaseOutcome good = CheckCase(*c, *correct);
    EXPECT_EQ(good.verdict, Verdict::kPassed) << fixed << ": " << good.reason;
    chain.sut = fixed;
    EXPECT_EQ(CheckCase(chain, *correct).verdict, Verdict::kPassed) << fixed << " on the chain";
  }
}

// A campaign against each transform bug (in process, a few hundred cases of its direction) finds it
// and shrinks it to a small case that still shows it, with the graphs in the finding.
class TransformBugCampaign : public ::testing::TestWithParam<std::string> {};

TEST_P(TransformBugCampaign, FindsTheBugAndShrinksItToASmallCase) {
  const KnownBugInfo& bug = *FindKnownBug(GetParam());
  Result<ConvCase> trigger = TriggerCase(bug);
  ASSERT_TRUE(trigger.ok());
  CampaignOptions o;
  o.suts = {"known-bug:" + bug.id};
  o.directions = {trigger->direction};
  if (bug.id == "tvm-6203") o.dims = {1};  // a 1-D bug: the other ranks cannot show it
  o.fills = {Fill::kExact};
  o.seed = 11;
  o.max_cases = 400;
  o.isolation = Isolation::kNone;
  o.quiet = true;
  o.shrink_seconds = 20;
  o.stop_after_buckets = 1;
  std::vector<Finding> found;
  CampaignHooks hooks;
  hooks.on_new_bucket = [&](const Finding& f) {
    found.push_back(f);
    AddTransformGraphs(found.back());
  };
  Result<CampaignSummary> summary = RunCampaign(o, hooks);
  ASSERT_TRUE(summary.ok()) << summary.status().message();
  ASSERT_FALSE(found.empty()) << bug.id << ": no discrepancy in " << o.max_cases << " cases";
  const Finding& f = found[0];
  EXPECT_TRUE(IsDiscrepancy(f.outcome.verdict)) << f.outcome.reason;
  EXPECT_LE(f.minimized.problem.macs(), 200)
      << CaseDescriptor(f.minimized.problem, f.minimized.direction);
  EXPECT_FALSE(f.graph_after.empty());
  std::printf("[transform-bug] %-16s %s: %s\n", bug.id.c_str(),
              CaseDescriptor(f.minimized.problem, f.minimized.direction).c_str(),
              VerdictName(f.outcome.verdict));
}

INSTANTIATE_TEST_SUITE_P(TransformSut, TransformBugCampaign,
                         ::testing::Values("tvm-9954", "tvm-6203", "tvm-10294", "tvm-layout-fold"),
                         [](const auto& info) {
                           std::string name = info.param;
                           for (char& ch : name)
                             if (ch == '-') ch = '_';
                           return name;
                         });

TEST(TransformSut, AWeightLayoutTransformLeftUnfoldedIsABrokenPromise) {
  Result<ConvCase> c = TriggerCase(*FindKnownBug("tvm-layout-fold"));
  ASSERT_TRUE(c.ok());
  std::unique_ptr<Sut> sut = Make("known-bug:tvm-layout-fold");
  ASSERT_TRUE(sut);
  CaseOutcome out = CheckCase(*c, *sut);
  EXPECT_EQ(out.verdict, Verdict::kBrokenPromise) << out.reason;
  EXPECT_STREQ(VerdictName(out.verdict), "broken_promise");
  EXPECT_TRUE(IsDiscrepancy(out.verdict));
  EXPECT_NE(out.reason.find("layout_transform"), std::string::npos) << out.reason;
}

TEST(TransformSut, UnknownPassesAndEmptyPipelinesAreInvalidNames) {
  for (const char* name : {"transform:legalise", "transform:", "transform:legalize,,split_groups",
                           "transform:legalize,gradient"}) {
    Result<std::unique_ptr<Sut>> sut = MakeSut(name);
    EXPECT_EQ(sut.status().code(), StatusCode::kInvalid) << name;
  }
  EXPECT_NE(MakeSut("transform:legalise").status().message().find("unknown pass 'legalise'"),
            std::string::npos);
}

TEST(TransformSut, TheDefaultCampaignCoversTransformPipelinesThatAllExist) {
  int transforms = 0;
  for (const std::string& name : OurSutNames())
    if (IsTransformSutName(name)) {
      ++transforms;
      EXPECT_TRUE(MakeSut(name).ok()) << name;
    }
  EXPECT_GE(transforms, 6);
  for (int64_t i = 0; i < 50; ++i) {
    const std::string random = RandomTransformSut(42, i);
    EXPECT_EQ(random, RandomTransformSut(42, i));  // a function of (seed, index) alone
    EXPECT_LE(std::count(random.begin(), random.end(), ','), 2) << random;
    EXPECT_TRUE(MakeSut(random).ok()) << random;
  }
}

TEST(TransformSut, ReportsOfTransformFindingsCarryTheGraphsBeforeAndAfter) {
  Result<ConvCase> c = TriggerCase(*FindKnownBug("tvm-9954"));
  ASSERT_TRUE(c.ok());
  std::unique_ptr<Sut> sut = Make(c->sut);
  CaseOutcome out = CheckCase(*c, *sut);
  Finding f{*c, out, *c, out, {}, ""};
  AddTransformGraphs(f);
  EXPECT_EQ(f.transform_pipeline, (std::vector<std::string>{"gradient", "legalize@tvm-9954"}));
  EXPECT_NE(f.graph_before.find("= conv(%x, %w"), std::string::npos) << f.graph_before;
  EXPECT_EQ(f.graph_after.find("conv_backward_weight"), std::string::npos) << f.graph_after;
  EXPECT_NE(f.graph_after.find("tile("), std::string::npos) << f.graph_after;
  ASSERT_TRUE(f.minimized.transform.has_value());
  EXPECT_EQ(f.minimized.transform->graph, f.graph_before);
  nlohmann::json report = ReportJson(f, ToolInfo{"0", "0", "cpu"}, "case.json");
  EXPECT_EQ(report["transform"]["graph_after"], f.graph_after);
  // Any other SUT's finding is left alone.
  Finding direct{*c, out, *c, out, {}, ""};
  direct.minimized.sut = "direct";
  AddTransformGraphs(direct);
  EXPECT_TRUE(direct.graph_before.empty());
  EXPECT_FALSE(direct.minimized.transform.has_value());
}

TEST(TransformSut, ChainCasesGoOnlyToSutsThatRunGraphs) {
  Result<ParsedDescriptor> d = ParseDescriptor("2d_g2_ic4_oc4_i5x5_k3x3_s2x2");
  ASSERT_TRUE(d.ok());
  ConvCase c{d->problem, Direction::kForward, "direct", Fill::kExact, 5};
  c.graph = &ChainForm();
  std::unique_ptr<Sut> direct = Make("direct");
  ASSERT_TRUE(direct);
  CaseOutcome out = CheckCase(c, *direct);
  EXPECT_EQ(out.verdict, Verdict::kSkipped) << out.reason;
  EXPECT_NE(out.reason.find("runs single convolutions"), std::string::npos) << out.reason;
  EXPECT_TRUE(RunsGraphs("transform:legalize"));
  EXPECT_TRUE(RunsGraphs("known-bug:tvm-9954"));
  EXPECT_FALSE(RunsGraphs("known-bug:tvm-3264"));  // a kernel bug
  EXPECT_FALSE(RunsGraphs("direct"));
  // A campaign sends every kGraphEvery-th case as a chain, to its graph SUTs only.
  const std::vector<std::string> suts{"direct", "transform:legalize"};
  const SutConfig none;
  int chains = 0;
  for (int64_t i = 0; i < 4 * kGraphEvery; ++i)
    if (&CampaignGraphForm(d->problem, suts, none, 1 << 20, i) == &ChainForm()) ++chains;
  EXPECT_EQ(chains, 4);
  EXPECT_EQ(&CampaignGraphForm(d->problem, {"direct"}, none, 1 << 20, kGraphEvery - 1),
            &ConvForm());
  EXPECT_EQ(&CampaignGraphForm(d->problem, suts, none, d->problem.macs(), kGraphEvery - 1),
            &ConvForm());  // the block would go over the MACs cap
  EXPECT_EQ(CampaignCaseSuts(suts, none, false, 1, 3, ChainForm()),
            (std::vector<std::string>{"transform:legalize"}));
  EXPECT_EQ(CampaignCaseSuts(suts, none, false, 1, 3, ConvForm()), suts);
}

// A pipeline behind a logical name (--sut-map mine=transform:legalize) runs graphs as the pipeline
// named directly does: a campaign gives it the same chain cases (issue 22: it got none).
TEST(TransformSut, APipelineBehindAMappedNameGetsChainCasesLikeOneNamedDirectly) {
  SutConfig mapped;
  ASSERT_TRUE(mapped.AddMapping("mine=transform:legalize").ok());
  EXPECT_TRUE(RunsGraphs("mine", mapped));
  EXPECT_FALSE(RunsGraphs("mine"));  // without the mapping, no SUT of that name runs graphs
  CampaignOptions o;
  o.suts = {"transform:legalize"};
  o.seed = 7;
  CampaignOptions named = o;
  named.suts = {"mine"};
  named.check.suts = mapped;
  int chains = 0;
  for (int64_t i = 0; i < 8 * kGraphEvery; ++i) {
    const ConvCase direct = *CampaignCase(o, i), behind_a_name = *CampaignCase(named, i);
    EXPECT_EQ(behind_a_name.graph, direct.graph) << "case " << i;
    chains += direct.graph == &ChainForm();
    EXPECT_EQ(CampaignCaseSuts(named.suts, mapped, false, o.seed, i, *direct.graph), named.suts);
  }
  EXPECT_GT(chains, 0);
}

TEST(TransformSut, ChainFindingsCarryTheBlockInTheirGraphsAndSnippet) {
  Result<ConvCase> trigger = TriggerCase(*FindKnownBug("tvm-9954"));
  ASSERT_TRUE(trigger.ok());
  ConvCase c = *trigger;
  c.graph = &ChainForm();
  std::unique_ptr<Sut> sut = Make(c.sut);
  CaseOutcome out = CheckCase(c, *sut);
  ASSERT_TRUE(IsDiscrepancy(out.verdict)) << out.reason;
  Finding f{c, out, c, out, {}, ""};
  AddTransformGraphs(f);
  EXPECT_NE(f.graph_before.find("%w2"), std::string::npos) << f.graph_before;
  EXPECT_NE(f.graph_before.find("add("), std::string::npos) << f.graph_before;
  EXPECT_NE(BucketSignature(f.minimized, out.verdict, out.judgement.symptom).find("/chain."),
            std::string::npos);
  nlohmann::json report = ReportJson(f, ToolInfo{"0", "0", "cpu"}, "case.json");
  EXPECT_EQ(report["case"]["graph"], "chain") << report.dump(1);
  EXPECT_TRUE(report["repro"]["descriptor_command"].is_null());
  EXPECT_NE(report["python"].get<std::string>().find("y = y + y2"), std::string::npos);
}

}  // namespace
}  // namespace convparity
