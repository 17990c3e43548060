// The order in which the two shrinkers try their reductions is part of what a user sees: both are
// greedy (the first reduction that still fails is taken), so a failure that survives two different
// reductions ends at whichever was tried first, and the shrunk case in the corpus, the report and
// its bucket follow from that. Each order is pinned here, kind by kind, and shown to decide the
// shrunk case; a swap of two reductions in problem_shrink.cc or shrink_structural.cc fails a test.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "core/descriptor.h"
#include "generators/problem_shrink.h"
#include "harness/engine/shrink_search.h"
#include "harness/engine/shrink_structural.h"

namespace convparity {
namespace {

// Which reduction made `q` from `p`, told by the field it changed (a spatial field by its name and
// dimension); checked in an order in which a reduction's side effects (transposed off resets the
// weight layout and output_padding) do not hide it.
std::string KindOf(const ConvProblem& p, const ConvProblem& q) {
  if (q.rank != p.rank) return "drop_dimension";
  if (q.batch != p.batch) return "batch";
  if (q.groups != p.groups)
    return q.in_channels == p.in_channels && q.out_channels == p.out_channels
               ? "groups_keeping_channels"
               : "groups";
  if (q.in_channels != p.in_channels) return "in_channels_per_group";
  if (q.out_channels != p.out_channels) return "out_channels_per_group";
  if (q.transposed != p.transposed) return "transposed";
  for (int i = 0; i < p.rank; ++i) {
    for (auto [field, name] : {std::pair{&ConvProblem::input, "input"},
                               {&ConvProblem::kernel, "kernel"},
                               {&ConvProblem::stride, "stride"},
                               {&ConvProblem::dilation, "dilation"},
                               {&ConvProblem::pad_begin, "pad_begin"},
                               {&ConvProblem::pad_end, "pad_end"},
                               {&ConvProblem::output_padding, "output_padding"}}) {
      if ((q.*field)[i] != (p.*field)[i]) return std::string(name) + "[" + std::to_string(i) + "]";
    }
  }
  if (q.data_layout != p.data_layout) return "data_layout";
  if (q.weight_layout != p.weight_layout) return "weight_layout";
  if (q.bias != p.bias) return "bias";
  return "none";
}

// The kinds of `candidates` in the order they come, each run of one kind written once.
std::vector<std::string> KindsInOrder(const ConvProblem& p,
                                      const std::vector<ConvProblem>& candidates) {
  std::vector<std::string> kinds;
  for (const ConvProblem& q : candidates)
    if (kinds.empty() || kinds.back() != KindOf(p, q)) kinds.push_back(KindOf(p, q));
  return kinds;
}

// A problem that every reduction applies to: two dimensions, every size above its floor, every
// option away from the plainest.
ConvProblem EveryReductionApplies() {
  Result<ParsedDescriptor> d =
      ParseDescriptor("t2d_g2_mb3_ic4_oc6_i5x6_k3x2_s2x3_pb1x2_pe2x1_d2x2_op1x1_nhwc_hwio_b");
  EXPECT_TRUE(d.ok() && Validate(d->problem).ok());
  return d->problem;
}

// The sizes within the spatial reductions: per dimension, input, kernel, stride, dilation, each
// padding side, output_padding.
std::vector<std::string> SpatialKinds(int rank) {
  std::vector<std::string> out;
  for (int i = 0; i < rank; ++i)
    for (const char* name :
         {"input", "kernel", "stride", "dilation", "pad_begin", "pad_end", "output_padding"})
      out.push_back(std::string(name) + "[" + std::to_string(i) + "]");
  return out;
}

std::vector<std::string> Concat(std::vector<std::string> a, const std::vector<std::string>& b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}

// Fewer groups with the channel counts kept comes last in both: it is plainer, but it adds
// multiply-adds, so every reduction that takes work away is tried before it.
TEST(ShrinkOrder, TheShrinkTreeTriesStructureFirstThenSizesThenPlainerOptions) {
  const ConvProblem p = EveryReductionApplies();
  const std::vector<ConvProblem> candidates = SimplerProblems(p);
  const std::vector<std::string> expected = Concat(
      Concat(
          {"drop_dimension", "groups", "in_channels_per_group", "out_channels_per_group", "batch"},
          SpatialKinds(2)),
      {"data_layout", "weight_layout", "bias", "transposed", "groups_keeping_channels"});
  EXPECT_EQ(KindsInOrder(p, candidates), expected);
}

// The case's own options (graph form, algorithm, fill) follow the problem's reductions.
TEST(ShrinkOrder, TheOneMinimalPassTriesBatchBeforeGroupsAndTheFillLast) {
  ConvCase c{EveryReductionApplies(), Direction::kForward, "direct", Fill::kUniform, 1};
  c.graph = &ChainForm();
  c.algorithm = Algorithm::kWinograd;
  std::vector<std::string> kinds;
  for (const ConvCase& r : CaseReductions(c)) {
    const std::string kind = r.fill != c.fill             ? "fill"
                             : r.graph != c.graph         ? "graph"
                             : r.algorithm != c.algorithm ? "algorithm"
                                                          : KindOf(c.problem, r.problem);
    if (kinds.empty() || kinds.back() != kind) kinds.push_back(kind);
  }
  const std::vector<std::string> expected = Concat(
      Concat(
          {"drop_dimension", "batch", "groups", "in_channels_per_group", "out_channels_per_group"},
          SpatialKinds(2)),
      {"data_layout", "weight_layout", "bias", "transposed", "groups_keeping_channels", "graph",
       "algorithm", "fill"});
  EXPECT_EQ(kinds, expected);
}

// Groups go down with the channel counts kept only where both counts stay whole multiples: from 6
// groups of 12 and 18 channels, to 1 and 3; 5 (one less) divides neither.
TEST(ShrinkOrder, FewerGroupsKeepingTheChannelsGoToOneThenHalfWay) {
  const ConvProblem p = ParseDescriptor("1d_g6_ic12_oc18_i1_k1")->problem;
  std::vector<int64_t> groups;
  for (const ConvProblem& q : ReductionsOf(p, Reduction::kGroupsKeepingChannels)) {
    EXPECT_EQ(q.in_channels, 12);
    EXPECT_EQ(q.out_channels, 18);
    groups.push_back(q.groups);
  }
  EXPECT_EQ(groups, (std::vector<int64_t>{1, 3}));
}

// A failure that needs four input and four output channels, in any groups: fewer groups keeping
// the channels per group takes the channels with them, so before the reduction that keeps the
// channel counts a depthwise case could not shrink at all; now it ends dense.
TEST(ShrinkOrder, TheOneMinimalPassUngroupsACaseThatNeedsItsChannelCounts) {
  ConvCase c{ParseDescriptor("1d_g4_ic4_oc4_i3_k1")->problem, Direction::kForward, "direct",
             Fill::kExact, 1};
  StructuralShrinkResult r = ShrinkToOneMinimal(c, [](const ConvCase& r) {
    return r.problem.in_channels >= 4 && r.problem.out_channels >= 4;
  });
  EXPECT_FALSE(r.bound_hit);
  EXPECT_EQ(ProblemDescriptor(r.shrunk.problem), "1d_ic4_oc4_i1_k1");
}

// Within a kind, a size goes to its floor first, then half way, then one less: the largest step
// is tried first, which keeps the steps few, and a failure that holds at several smaller sizes
// ends at the first of them tried.
TEST(ShrinkOrder, ASizeTriesItsFloorThenHalfWayThenOneLess) {
  ConvProblem p = ParseDescriptor("1d_mb9_ic1_oc1_i1_k1")->problem;
  std::vector<int64_t> batches;
  for (const ConvProblem& q : ReductionsOf(p, Reduction::kBatch)) batches.push_back(q.batch);
  EXPECT_EQ(batches, (std::vector<int64_t>{1, 5, 8}));
}

// A failure that needs a batch above one or more than one input channel per group, and a bias:
// either of the batch and the channel reductions keeps it, so the shrunk case is whichever the
// shrinker tries first. The bias keeps the 1-minimal pass's coarse reductions (which all drop the
// batch and the channels, or the bias) from deciding before its single reductions do.
bool NeedsBatchOrChannelsAndBias(const ConvProblem& p) {
  return (p.batch > 1 || p.in_channels / p.groups > 1) && p.bias;
}

const char* kBatchAndChannels = "1d_mb2_ic2_oc1_i1_k1_b";

TEST(ShrinkOrder, TheShrinkTreeKeepsTheBatchBecauseItReducesChannelsFirst) {
  const ConvProblem p = ParseDescriptor(kBatchAndChannels)->problem;
  ASSERT_TRUE(NeedsBatchOrChannelsAndBias(p));
  SearchResult<ConvProblem> r;
  ShrinkInto<ConvProblem>(ShrinkableProblem(p), NeedsBatchOrChannelsAndBias, {}, r);
  ASSERT_TRUE(r.shrunk);
  EXPECT_EQ(ProblemDescriptor(*r.shrunk), "1d_mb2_ic1_oc1_i1_k1_b");
}

TEST(ShrinkOrder, TheOneMinimalPassKeepsTheChannelsBecauseItReducesTheBatchFirst) {
  ConvCase c{ParseDescriptor(kBatchAndChannels)->problem, Direction::kForward, "direct",
             Fill::kExact, 1};
  StructuralShrinkResult r = ShrinkToOneMinimal(
      c, [](const ConvCase& r) { return NeedsBatchOrChannelsAndBias(r.problem); });
  EXPECT_FALSE(r.bound_hit);
  EXPECT_EQ(ProblemDescriptor(r.shrunk.problem), "1d_ic2_oc1_i1_k1_b");
}

}  // namespace
}  // namespace convparity
