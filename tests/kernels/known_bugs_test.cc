// The known-bug reproductions (kernels/known_bugs) are wrong exactly where their originals were,
// and the harness finds each one and shrinks it to a small configuration that shows its essence:
//  - the registry names every bug and its trigger descriptor parses onto the wrong path;
//  - the trigger fails against the oracle with the bug and passes with DirectConv;
//  - off the wrong path a reproduction is bitwise DirectConv (no oracle needed);
//  - the property "direct parity" over GenProblem, run against the bug, fails within a few hundred
//    cases, and RapidCheck's shrink tree leads to a small case that still fails with the bug and
//    passes with DirectConv. Cases-to-failure and seconds are printed per seed, with medians.
// Seeds: CONVPARITY_BUG_SEEDS (default 3) seeds from 1 (bug_search.h).
#include "kernels/known_bugs/known_bugs.h"

#include <gtest/gtest.h>
#include <rapidcheck.h>
#include <rapidcheck/gtest.h>

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "core/descriptor.h"
#include "core/tensor.h"
#include "generators/fill.h"
#include "generators/problem_gen.h"
#include "harness/engine/check_case.h"
#include "harness/engine/judge.h"
#include "harness/engine/shrink_search.h"
#include "kernels/direct_conv.h"
#include "tests/harness/bug_search.h"

namespace convparity {
namespace {

const std::vector<std::string>& BriefIds() {
  static const std::vector<std::string> ids{
      "tvm-9465",        "tvm-7912",        "tvm-5758",      "tvm-conv3d-transpose-k7",
      "tvm-3264",        "pytorch-19912",   "pytorch-50042", "xnnpack-1951",
      "onednn-DNNL-796", "onnxruntime-9370"};
  return ids;
}

using bug_search::BugSearchSpace;
using bug_search::Check;
using bug_search::Describe;
using bug_search::DrawnCase;
using bug_search::GenCase;
using bug_search::Median;
using bug_search::SeedCount;

DrawnCase Trigger(const KnownBugInfo& info) {
  Result<ParsedDescriptor> parsed = ParseDescriptor(info.trigger);
  EXPECT_TRUE(parsed.ok()) << info.id << ": " << parsed.status().message();
  if (!parsed.ok()) return {};
  EXPECT_TRUE(parsed->direction.has_value()) << info.id << ": the trigger names no direction";
  return {parsed->problem, parsed->direction.value_or(Direction::kForward)};
}

bool PassesWithDirect(const DrawnCase& c) {
  DirectConv direct;
  const Verdict v = Check(c, direct, "direct").verdict;
  return v == Verdict::kPassed || v == Verdict::kMistrusted;
}

TEST(KnownBugRegistry, ListsEveryBugOfTheBriefWithDescriptionAndReference) {
  std::vector<std::string> ids = KnownBugIds(KnownBugKind::kKernel);
  for (const std::string& id : BriefIds())
    EXPECT_NE(std::find(ids.begin(), ids.end(), id), ids.end()) << id;
  for (const std::string& id : ids) {
    const KnownBugInfo* info = FindKnownBug(id);
    ASSERT_NE(info, nullptr) << id;
    EXPECT_EQ(info->id, id);
    EXPECT_GT(info->summary.size(), 20u) << id;
    EXPECT_GT(info->reference.size(), 10u) << id;
    std::unique_ptr<Sut> sut = MakeKnownBug(id);
    ASSERT_NE(sut, nullptr) << id;
    EXPECT_EQ(sut->name(), id);
  }
  EXPECT_EQ(FindKnownBug("tvm-0"), nullptr);
  EXPECT_EQ(MakeKnownBug("tvm-0"), nullptr);
}

TEST(KnownBugRegistry, TriggersAreOnTheWrongPath) {
  for (const std::string& id : KnownBugIds(KnownBugKind::kKernel)) {
    const KnownBugInfo& info = *FindKnownBug(id);
    const DrawnCase c = Trigger(info);
    EXPECT_TRUE(Validate(c.problem).ok()) << id << ": " << Validate(c.problem).message();
    EXPECT_TRUE(info.takes_wrong_path(c.problem, c.direction)) << id << ": " << info.trigger;
  }
}

TEST(KnownBugTrigger, FailsWithTheBugAndPassesWithDirect) {
  for (const std::string& id : KnownBugIds(KnownBugKind::kKernel)) {
    const KnownBugInfo& info = *FindKnownBug(id);
    const DrawnCase c = Trigger(info);
    std::unique_ptr<Sut> bug = MakeKnownBug(id);
    const CaseOutcome out = Check(c, *bug, "known-bug:" + id);
    EXPECT_TRUE(IsDiscrepancy(out.verdict))
        << id << " on " << info.trigger << ": " << VerdictName(out.verdict) << " " << out.reason;
    EXPECT_TRUE(PassesWithDirect(c)) << id << " on " << info.trigger;
  }
}

// Runs `sut` on the case's inputs (uniform fill, seed 7) and returns the result in logical order;
// elements it never wrote keep the poison.
HostTensor RunOnFilledInputs(const ConvProblem& p, Direction d, Sut& sut) {
  const SutRun run = RunSut(sut, p, d, FillInputs(p, d, Fill::kUniform, 7));
  EXPECT_TRUE(run.status.ok()) << sut.name() << ": " << run.status.message();
  return run.result;
}

bool SameBits(float a, float b) { return std::memcmp(&a, &b, sizeof a) == 0; }

// Off the wrong path the reproduction must be DirectConv bit for bit (same inputs, same sum order),
// so that a campaign never blames it for anything its original did right.
RC_GTEST_PROP(KnownBugOffTheWrongPath, IsBitwiseDirectConv, ()) {
  const std::string id = *rc::gen::elementOf(KnownBugIds(KnownBugKind::kKernel));
  const KnownBugInfo& info = *FindKnownBug(id);
  ProblemSpace space;
  space.max_macs = 20000;
  const ConvProblem p = *GenProblem(space);
  const Direction d = *rc::gen::elementOf(AllDirections());
  RC_PRE(!info.takes_wrong_path(p, d));
  DirectConv direct;
  std::unique_ptr<Sut> bug = MakeKnownBug(id);
  const HostTensor want = RunOnFilledInputs(p, d, direct);
  const HostTensor got = RunOnFilledInputs(p, d, *bug);
  for (size_t i = 0; i < want.values.size(); ++i)
    RC_ASSERT(SameBits(want.values[i], got.values[i]));
}

// ---- Finding and shrinking ------------------------------------------------------------------

BugSearchSpace SearchSpaceFor(const std::string& id) {
  BugSearchSpace s{ProblemSpace{}, {}, 64};
  ProblemSpace& sp = s.space;
  auto only_transposed = [&] { sp.ordinary = false; };
  auto only_ordinary = [&] { sp.transposed = false; };
  if (id == "tvm-9465") {
    only_ordinary();
    s.directions = {Direction::kBackwardData};
  } else if (id == "tvm-7912" || id == "tvm-5758" || id == "onnxruntime-9370") {
    only_transposed();
    s.directions = {Direction::kForward};
  } else if (id == "tvm-conv3d-transpose-k7") {
    only_transposed();
    sp.ranks = {3};
    s.directions = {Direction::kForward};
  } else if (id == "tvm-3264") {
    only_ordinary();
    s.directions = {Direction::kForward};
  } else if (id == "xnnpack-1951") {
    only_transposed();
    sp.ranks = {1, 2};
    s.directions = {Direction::kForward};
  } else if (id == "pytorch-19912") {
    only_ordinary();
    sp.ranks = {2};
    s.directions = {Direction::kForward};
  } else if (id == "pytorch-50042") {
    only_ordinary();
    s.directions = {Direction::kBackwardWeight};
  } else if (id == "onednn-DNNL-796") {
    only_ordinary();
    sp.ranks = {2, 3};
    s.directions = {Direction::kForward};
  } else {
    s.directions = AllDirections();
  }
  return s;
}

// Where, inside a result of the wrong path, the original's values were wrong (logical index of y or
// dw). Elsewhere on the wrong path a reproduction must still agree with DirectConv bit for bit.
using Region = std::function<bool(const ConvProblem&, const int64_t* index)>;

Region WrongRegion(const std::string& id) {
  if (id == "tvm-7912" || id == "tvm-5758")  // the output_padding tail of some dimension
    return [](const ConvProblem& p, const int64_t* idx) {
      for (int i = 0; i < p.rank; ++i)
        if (idx[2 + i] >= p.output()[i] - p.output_padding[i]) return true;
      return false;
    };
  if (id == "onednn-DNNL-796")  // rows wholly in the end padding of an unguarded kernel-row dim
    return [](const ConvProblem& p, const int64_t* idx) {
      for (int i = 0; i + 1 < p.rank; ++i)
        if ((p.kernel[i] - 1) * p.dilation[i] >= p.pad_begin[i] &&
            idx[2 + i] * p.stride[i] - p.pad_begin[i] >= p.input[i])
          return true;
      return false;
    };
  if (id == "pytorch-50042")  // channels 16–23 of every full 24-channel pass
    return [](const ConvProblem& p, const int64_t* idx) {
      return idx[0] % 24 >= 16 && idx[0] < p.groups / 24 * 24;
    };
  if (id == "tvm-3264")  // output channels whose two input-channel mappings differ
    return [](const ConvProblem& p, const int64_t* idx) {
      return idx[1] % p.in_channels != idx[1] / (p.out_channels / p.in_channels);
    };
  return nullptr;
}

class KnownBugRegion : public testing::TestWithParam<std::string> {};

TEST_P(KnownBugRegion, DiffersFromDirectOnlyWhereTheOriginalWasWrong) {
  const std::string id = GetParam();
  const KnownBugInfo& info = *FindKnownBug(id);
  const Region region = WrongRegion(id);
  const rc::Gen<DrawnCase> gen = GenCase(SearchSpaceFor(id));
  DirectConv direct;
  std::unique_ptr<Sut> bug = MakeKnownBug(id);
  rc::Random random(11);
  int checked = 0, showed = 0;
  for (int draw = 0; draw < 5000 && checked < 40; ++draw) {
    const DrawnCase c = gen(random.split(), 50).value();
    if (!info.takes_wrong_path(c.problem, c.direction)) continue;
    ++checked;
    const HostTensor want = RunOnFilledInputs(c.problem, c.direction, direct);
    const HostTensor got = RunOnFilledInputs(c.problem, c.direction, *bug);
    bool differs = false;
    ForEachIndex(want.shape, [&](const int64_t* idx, int64_t at) {
      if (SameBits(want.values[at], got.values[at])) return;
      differs = true;
      EXPECT_TRUE(region(c.problem, idx))
          << id << " differs outside its region in " << Describe(c) << " at element " << at;
    });
    showed += differs;
  }
  EXPECT_GE(checked, 20) << id << ": too few cases on the wrong path";
  EXPECT_GT(showed, 0) << id << ": the wrong path never changed a value";
}

INSTANTIATE_TEST_SUITE_P(KnownBugsWithARegion, KnownBugRegion,
                         testing::Values("tvm-7912", "tvm-5758", "onednn-DNNL-796", "pytorch-50042",
                                         "tvm-3264"),
                         [](const testing::TestParamInfo<std::string>& info) {
                           std::string name = info.param;
                           for (char& ch : name)
                             if (!std::isalnum(static_cast<unsigned char>(ch))) ch = '_';
                           return name;
                         });

class KnownBugSearch : public testing::TestWithParam<std::string> {};

TEST_P(KnownBugSearch, DirectParityPropertyFailsAndShrinksToASmallCase) {
  const std::string id = GetParam();
  const KnownBugInfo& info = *FindKnownBug(id);
  const BugSearchSpace space = SearchSpaceFor(id);
  std::unique_ptr<Sut> bug = MakeKnownBug(id);
  const std::string sut_name = "known-bug:" + id;
  // The property "direct parity", negated: a counterexample is a case the bug gets wrong.
  std::function<bool(const DrawnCase&)> fails = [&](const DrawnCase& c) {
    return IsDiscrepancy(Check(c, *bug, sut_name).verdict);
  };

  std::vector<int64_t> cases;
  std::vector<double> seconds, shrink_seconds;
  for (int seed = 1; seed <= SeedCount(); ++seed) {
    SearchOptions options;
    options.seed = static_cast<uint64_t>(seed);
    options.max_cases = 3000;
    options.max_seconds = 60;
    const SearchResult<DrawnCase> r = FindAndShrink(GenCase(space), fails, options);
    ASSERT_TRUE(r.found) << id << " seed " << seed << ": no failure in " << r.cases << " cases ("
                         << r.search_seconds << " s)";
    const DrawnCase& shrunk = *r.shrunk;
    EXPECT_TRUE(r.shrink_complete) << id << " seed " << seed << ": shrinking ran out of budget";
    EXPECT_TRUE(fails(shrunk)) << Describe(shrunk);
    EXPECT_TRUE(PassesWithDirect(shrunk)) << Describe(shrunk);
    EXPECT_TRUE(info.takes_wrong_path(shrunk.problem, shrunk.direction)) << Describe(shrunk);
    EXPECT_LE(shrunk.problem.macs(), space.max_shrunk_macs) << Describe(shrunk);
    std::printf(
        "[known-bug] %-24s seed %d: failure after %4lld cases, %6.3f s; shrunk in %3lld "
        "steps / %4lld tries, %6.3f s: %s  (first: %s)\n",
        id.c_str(), seed, static_cast<long long>(r.cases), r.search_seconds,
        static_cast<long long>(r.shrink_steps), static_cast<long long>(r.shrink_tries),
        r.shrink_seconds, Describe(shrunk).c_str(), Describe(*r.first).c_str());
    cases.push_back(r.cases);
    seconds.push_back(r.search_seconds);
    shrink_seconds.push_back(r.shrink_seconds);
  }
  std::printf(
      "[known-bug] %-24s median over %zu seeds: %lld cases, %.3f s to find, %.3f s to "
      "shrink\n",
      id.c_str(), cases.size(), static_cast<long long>(Median(cases)), Median(seconds),
      Median(shrink_seconds));
}

// The same search in a campaign's default space — every rank, both kinds, all three directions —
// found on every seed, with the figures of the design notes. Slow: not under ctest (its filter
// leaves *InTheDefaultSpace out); scripts/nightly_fuzz.sh runs it (CONVPARITY_BUG_MEASURE=1).
TEST_P(KnownBugSearch, FoundAndShrunkInTheDefaultSpace) {
  if (!std::getenv("CONVPARITY_BUG_MEASURE")) GTEST_SKIP() << "set CONVPARITY_BUG_MEASURE=1";
  const std::string id = GetParam();
  std::unique_ptr<Sut> bug = MakeKnownBug(id);
  bug_search::SearchTheDefaultSpace("[known-bug default space]", id, *bug, "known-bug:" + id,
                                    ProblemSpace{});
}

INSTANTIATE_TEST_SUITE_P(AllKnownBugs, KnownBugSearch,
                         testing::ValuesIn(KnownBugIds(KnownBugKind::kKernel)),
                         [](const testing::TestParamInfo<std::string>& info) {
                           std::string name = info.param;
                           for (char& ch : name)
                             if (!std::isalnum(static_cast<unsigned char>(ch))) ch = '_';
                           return name;
                         });

}  // namespace
}  // namespace convparity
