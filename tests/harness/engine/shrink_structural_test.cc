// The structural pass's promise: every case it returns without hitting a bound is 1-minimal, no
// single reduction toward the plainest case keeps the verdict. Shown on every kernel known bug and
// on the planted bugs that are safe in this process, from cases a campaign draws; and each
// minimal case is checked against reductions this test writes itself (each size one less, each
// option off), not only against the list the pass walked.
#include "harness/engine/shrink_structural.h"

#include <gtest/gtest.h>

#include "core/descriptor.h"
#include "harness/engine/campaign.h"
#include "harness/engine/case_runner.h"
#include "kernels/known_bugs/known_bugs.h"
#include "plugin_paths.h"

namespace convparity {
namespace {

// Each integer field one less (to its floor), each option off: written apart from CaseReductions.
std::vector<ConvProblem> OneLess(const ConvProblem& p) {
  std::vector<ConvProblem> out;
  auto add = [&](ConvProblem q) {
    for (int i = 0; i < kMaxSpatialRank; ++i)
      if (q.transposed)
        q.output_padding[i] =
            std::min(q.output_padding[i], std::max(q.stride[i], q.dilation[i]) - 1);
    if (Validate(q).ok() && !(q == p)) out.push_back(q);
  };
  ConvProblem q = p;
  if (p.batch > 1) --q.batch, add(q);
  q = p;
  if (p.in_channels / p.groups > 1) q.in_channels -= p.groups, add(q);
  q = p;
  if (p.out_channels / p.groups > 1) q.out_channels -= p.groups, add(q);
  for (int i = 0; i < p.rank; ++i) {
    for (Dims ConvProblem::*field : {&ConvProblem::input, &ConvProblem::kernel,
                                     &ConvProblem::stride, &ConvProblem::dilation}) {
      q = p;
      if ((q.*field)[i] > 1) --(q.*field)[i], add(q);
    }
    for (Dims ConvProblem::*field :
         {&ConvProblem::pad_begin, &ConvProblem::pad_end, &ConvProblem::output_padding}) {
      q = p;
      if ((q.*field)[i] > 0) --(q.*field)[i], add(q);
    }
  }
  q = p;
  q.bias = false;
  add(q);
  q = p;
  q.data_layout = DataLayout::kChannelsFirst;
  add(q);
  q = p;
  q.weight_layout = p.natural_weight_layout();
  add(q);
  return out;
}

struct Shrunk {
  ConvCase original, minimal;
  StructuralShrinkResult result;
};

// The first discrepancy among a campaign's first `cases` cases for `sut`, shrunk.
std::optional<Shrunk> FindAndShrink(const std::string& sut, CaseRunner& runner, int cases) {
  CampaignOptions o;
  o.seed = 5;
  o.max_macs = 20000;
  o.suts = {sut};
  for (int64_t i = 0; i < cases; ++i) {
    ConvCase c = CampaignCase(o, i);
    c.sut = sut;
    const CaseOutcome seen = runner.Check(c, {sut})[0];
    if (!IsDiscrepancy(seen.verdict)) continue;
    auto holds = [&](const ConvCase& candidate) {
      return runner.Check(candidate, {sut})[0].verdict == seen.verdict;
    };
    StructuralShrinkResult r = ShrinkToOneMinimal(c, holds);
    return Shrunk{c, r.shrunk, r};
  }
  return std::nullopt;
}

TEST(StructuralShrink, EveryReportedCaseOfKnownAndPlantedBugsIsOneMinimal) {
  std::unique_ptr<CaseRunner> runner = MakeInProcessRunner();
  std::vector<std::string> suts;
  for (const std::string& id : KnownBugIds(KnownBugKind::kKernel))
    suts.push_back("known-bug:" + id);
  for (const char* variant : {"everywhere", "narrow", "unwritten"})
    suts.push_back(std::string("plugin:") + CONVPARITY_PLANTED_PLUGIN + "#" + variant);
  int shrunk = 0;
  for (const std::string& sut : suts) {
    std::optional<Shrunk> s = FindAndShrink(sut, *runner, 400);
    if (!s) continue;  // a bug the first cases do not reach (nightly searches cover those)
    ++shrunk;
    const Verdict verdict = runner->Check(s->minimal, {sut})[0].verdict;
    EXPECT_TRUE(IsDiscrepancy(verdict)) << sut;
    EXPECT_FALSE(s->result.bound_hit) << sut;
    EXPECT_LE(s->minimal.problem.macs(), s->original.problem.macs()) << sut;
    const std::string where = sut + ": " + CaseDescriptor(s->minimal.problem, s->minimal.direction);
    for (const ConvCase& r : CaseReductions(s->minimal))
      EXPECT_NE(runner->Check(r, {sut})[0].verdict, verdict)
          << where << " still fails reduced to " << CaseDescriptor(r.problem, r.direction) << " "
          << FillName(r.fill);
    for (const ConvProblem& p : OneLess(s->minimal.problem)) {
      ConvCase r = s->minimal;
      r.problem = p;
      EXPECT_NE(runner->Check(r, {sut})[0].verdict, verdict)
          << where << " still fails as " << ProblemDescriptor(p);
    }
  }
  EXPECT_GE(shrunk, 8) << "too few bugs found to prove anything";
}

TEST(StructuralShrink, SaysWhenABoundEndedIt) {
  std::unique_ptr<CaseRunner> runner = MakeInProcessRunner();
  const std::string sut = std::string("plugin:") + CONVPARITY_PLANTED_PLUGIN + "#everywhere";
  Result<ParsedDescriptor> d = ParseDescriptor("fwd:2d_mb3_ic5_oc4_i9x7_k3x3_s2x1_p1x1_nhwc");
  ASSERT_TRUE(d.ok());
  ConvCase c{d->problem, Direction::kForward, sut, Fill::kUniform, 3};
  int64_t calls = 0;
  auto holds = [&](const ConvCase& candidate) {
    ++calls;
    return IsDiscrepancy(runner->Check(candidate, {sut})[0].verdict);
  };
  StructuralShrinkBounds bounds;
  bounds.max_calls = 1;
  StructuralShrinkResult r = ShrinkToOneMinimal(c, holds, bounds);
  EXPECT_TRUE(r.bound_hit);
  EXPECT_EQ(r.calls, 1);
  EXPECT_EQ(calls, 1);
  r = ShrinkToOneMinimal(c, holds);
  EXPECT_FALSE(r.bound_hit);
  EXPECT_EQ(ProblemDescriptor(r.shrunk.problem), "1d_ic1_oc1_i1_k1");
  EXPECT_EQ(r.shrunk.fill, Fill::kExact);
}

}  // namespace
}  // namespace convparity
