// convert_layout + fold_constants on a ResNet-50-like chain: the convolutions of oneDNN's benchdnn
// list shapes_resnet_50 (../shared/benchdnn/conv/, read by harness/io/benchdnn_import.h), chained
// one after the other with constant weights. The structural promise of the pair (ARCHITECTURE.md,
// Transforms): exactly two runtime layout_transforms remain (the input's and the output's), and the
// chain's output is bitwise the same before and after. tvm-layout-fold's fold_constants leaves one
// weight layout_transform per conv in the runtime graph instead (BUGS.md). In random mode the
// transformed chain and its transformed gradient are judged against the float64 graph oracle
// (oracles/graph_oracle.h) on the original chain, with the Σ√K bound.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "core/graph.h"
#include "core/prng.h"
#include "harness/engine/judge.h"
#include "harness/io/benchdnn_import.h"
#include "kernels/graph/interpreter.h"
#include "kernels/graph/passes.h"
#include "oracles/case_reference.h"
#include "oracles/graph_oracle.h"

namespace convparity {
namespace {

namespace fs = std::filesystem;

// ctest sets CONVPARITY_SHARED; a test binary run by hand finds the folder beside the sources.
fs::path SharedDir() {
  if (const char* env = std::getenv("CONVPARITY_SHARED")) return env;
  return fs::path(__FILE__).parent_path() / "../../../shared";
}

// The convolutions of shapes_resnet_50 in file order (commented-out repeats are not problems).
std::vector<ConvProblem> ResNet50Convs() {
  const fs::path file = SharedDir() / "benchdnn" / "conv" / "shapes_resnet_50";
  Result<BenchdnnImport> parsed = ImportBenchdnnFile(file.string());
  EXPECT_TRUE(parsed.ok()) << file << ": " << parsed.status().message();
  std::vector<ConvProblem> out;
  if (!parsed.ok()) return out;
  EXPECT_EQ(parsed->tally.SkippedTotal(), 0);
  for (const BenchdnnProblem& b : parsed->problems) out.push_back(b.problem);
  return out;
}

// Deterministic values in {-1, 0, 1}.
HostTensor Ternary(Shape shape, uint64_t salt) {
  HostTensor t{shape, std::vector<float>(static_cast<size_t>(NumElements(shape)), 0.0f)};
  for (size_t i = 0; i < t.values.size(); ++i)
    t.values[i] = static_cast<float>(static_cast<int>((i * 5 + salt) % 3) - 1);
  return t;
}

// Exact fill: every output channel's weight has exactly two non-zeros, ±1, and the bias is in
// {-1, 0, 1}, so a layer at most doubles the largest magnitude and adds one: after L layers on an
// input in {-1, 0, 1} every value and every partial sum is an integer below 2^(L+1) ≤ 2^24 for
// L ≤ 23. The result is then exact in float32 whatever the order of the sums.
HostTensor ExactWeight(Shape shape, uint64_t salt) {
  HostTensor t{shape, std::vector<float>(static_cast<size_t>(NumElements(shape)), 0.0f)};
  const int64_t per_out = NumElements(shape) / shape[0];
  for (int64_t o = 0; o < shape[0]; ++o) {
    const int64_t a = static_cast<int64_t>((o * 7 + salt) % static_cast<uint64_t>(per_out));
    const int64_t b = (a + 1 + o % std::max<int64_t>(per_out - 1, 1)) % per_out;
    t.values[static_cast<size_t>(o * per_out + a)] = (o + salt) % 2 ? 1.0f : -1.0f;
    if (b != a) t.values[static_cast<size_t>(o * per_out + b)] = (o + salt) % 3 ? 1.0f : -1.0f;
  }
  return t;
}

// Real values for random mode: uniform in [0, 1) times `scale` (TOLERANCE.md's positive
// distribution). NOTE: with signed weights twenty layers of cancellation make A, the chain on
// absolute values, exceed |y| by twelve orders of magnitude, and a bound proportional to A says
// nothing (pinned below); positive weights keep A close to |y| (A = y for a positive input too),
// so the bound stays as tight as for one convolution.
HostTensor Real(Shape shape, uint64_t salt, float scale = 1.0f) {
  HostTensor t{shape, std::vector<float>(static_cast<size_t>(NumElements(shape)))};
  Prng rng(MixSeed(0xC4A1Bull, salt));
  for (float& v : t.values) v = rng.UnitFloat() * scale;
  return t;
}

// Real weights scaled by 2 / fan-in, so that a layer keeps the mean of its input and twenty layers
// neither overflow nor vanish.
HostTensor RealWeight(Shape shape, uint64_t salt) {
  const int64_t fan_in = NumElements(shape) / shape[0];
  return Real(shape, salt, 2.0f / static_cast<float>(fan_in));
}

HostTensor RealBias(Shape shape, uint64_t salt) { return Real(shape, salt + 1000, 0.1f); }

using ConstMaker = std::function<HostTensor(Shape, uint64_t)>;

// The chain, scaled down so that it runs in milliseconds. Consecutive lines of the list do not
// chain (the network's pooling and residual branches are left out), so the chain adapts them
// deterministically:
//  - batch 1, an input of 3 × 56 × 56 (the list's 224 / 4);
//  - every conv's input channels are the previous conv's output channels; its output channels are
//    the list's / 16 (64 → 4 … 2048 → 128);
//  - every conv's spatial input is the previous output; kernel, stride, dilation and begin padding
//    are the list's, the end padding equals the begin padding (the list's end padding was computed
//    for its own input size: a 1×1 stride-2 conv on 56 has end padding −1);
//  - constant weights in OIHW and a constant bias, as benchdnn's default has (exact fill above, or
//    real values for random mode).
// Spatial sizes: 56 → 28 (conv1, 7×7 stride 2) → 14 → 7 → 4 → 2 (each stride-2 1×1 conv).
struct Chain {
  Graph graph;
  int convs = 0;
  Shape input;
};

Chain ResNetChain(const std::vector<ConvProblem>& convs, const ConstMaker& weight = ExactWeight,
                  const ConstMaker& bias = Ternary) {
  Chain c;
  c.input = {1, 3, 56, 56};
  const int x = c.graph.AddVar("x", c.input);
  int y = x;
  int64_t channels = 3;
  for (const ConvProblem& p : convs) {
    const int64_t out = std::max<int64_t>(p.out_channels / 16, 1);
    ConvAttrs a = ConvAttrsOf(p);
    a.groups = 1;
    a.pad_end = p.pad_begin;
    const std::string n = std::to_string(c.convs);
    Shape w_shape{out, channels};
    for (int i = 0; i < p.rank; ++i) w_shape.push_back(p.kernel[i]);
    const uint64_t salt = static_cast<uint64_t>(c.convs);
    const int w = c.graph.AddConst("w" + n, weight(w_shape, salt));
    const int b = c.graph.AddConst("b" + n, bias({out}, salt));
    y = c.graph.AddOp(OpKind::kConv, {y, w, b}, a);
    channels = out;
    ++c.convs;
  }
  c.graph.outputs = {y};
  EXPECT_TRUE(InferShapes(c.graph).ok()) << InferShapes(c.graph).message();
  return c;
}

bool SameBits(const std::vector<HostTensor>& a, const std::vector<HostTensor>& b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i)
    if (a[i].shape != b[i].shape ||
        std::memcmp(a[i].values.data(), b[i].values.data(), a[i].values.size() * sizeof(float)))
      return false;
  return true;
}

// Runs `passes` in order, each promise checked; returns the runtime layout_transforms left.
int LayoutTransformsAfter(const Graph& start, const std::vector<std::string>& passes, Graph& g,
                          bool expect_promises_kept) {
  g = start;
  for (const std::string& name : passes) {
    const PassInfo* pass = FindPass(name);
    EXPECT_NE(pass, nullptr) << name;
    if (!pass) return -1;
    const Graph before = g;
    const Status ran = pass->run(g);
    EXPECT_TRUE(ran.ok()) << name << ": " << ran.message();
    EXPECT_TRUE(InferShapes(g).ok()) << name;
    const Status kept = pass->check_promise(before, g);
    if (expect_promises_kept) {
      EXPECT_TRUE(kept.ok()) << name << ": " << kept.message();
    }
  }
  return g.CountOps(OpKind::kLayoutTransform);
}

TEST(ResNetChain, ConvertLayoutAndFoldConstantsLeaveTwoRuntimeLayoutTransformsAndTheSameBits) {
  const std::vector<ConvProblem> convs = ResNet50Convs();
  ASSERT_EQ(convs.size(), 20u) << "shapes_resnet_50 lists 20 distinct convolutions";
  const Chain chain = ResNetChain(convs);
  ASSERT_EQ(chain.graph.CountOps(OpKind::kConv), 20);
  ASSERT_EQ(chain.graph.CountOps(OpKind::kLayoutTransform), 0);
  const GraphBindings input{{"x", Ternary(chain.input, 1)}};
  Result<std::vector<HostTensor>> want = Interpret(chain.graph, input);
  ASSERT_TRUE(want.ok()) << want.status().message();

  Graph converted;
  const int after_convert = LayoutTransformsAfter(chain.graph, {"convert_layout"}, converted, true);
  Graph folded;
  const int after_fold =
      LayoutTransformsAfter(chain.graph, {"convert_layout", "fold_constants"}, folded, true);
  EXPECT_EQ(after_fold, 2);
  Result<std::vector<HostTensor>> got = Interpret(folded, input);
  ASSERT_TRUE(got.ok()) << got.status().message();
  EXPECT_TRUE(SameBits(*want, *got));

  Graph buggy;
  const int after_buggy = LayoutTransformsAfter(
      chain.graph, {"convert_layout", "fold_constants@tvm-layout-fold"}, buggy, false);
  EXPECT_EQ(after_buggy, 2 + chain.convs) << "tvm-layout-fold: one weight transform per conv";
  EXPECT_FALSE(FindPass("fold_constants@tvm-layout-fold")->check_promise(converted, buggy).ok());
  Result<std::vector<HostTensor>> got_buggy = Interpret(buggy, input);
  ASSERT_TRUE(got_buggy.ok()) << got_buggy.status().message();
  EXPECT_TRUE(SameBits(*want, *got_buggy)) << "the bug is structural: the values are right";

  std::printf(
      "[resnet-chain] %d convs (output %s): runtime layout_transforms after convert_layout %d, "
      "+fold_constants %d, +fold_constants@tvm-layout-fold %d; bitwise equal: %s\n",
      chain.convs,
      [&] {
        std::string s;
        for (int64_t d : want->front().shape) s += (s.empty() ? "" : "x") + std::to_string(d);
        return s;
      }()
          .c_str(),
      after_convert, after_fold, after_buggy, SameBits(*want, *got) ? "yes" : "no");
}

// ---- Random mode against the float64 graph oracle (oracles/graph_oracle.h) ----------------------
// The runtime graphs (the chain, and its gradient with respect to x by our gradient pass, each
// after the passes) run on our interpreter in float32; the references are the oracle's on the
// ORIGINAL chain, judged with the bound c·u·Σ√K·A of twenty reductions in a row: K = ⌈(Σ√K)²⌉.

// Signed real values, uniform in [-1, 1) times `scale` (TOLERANCE.md's uniform distribution).
HostTensor Signed(Shape shape, uint64_t salt, float scale = 1.0f) {
  HostTensor t{shape, std::vector<float>(static_cast<size_t>(NumElements(shape)))};
  Prng rng(MixSeed(0x5165Dull, salt));
  for (float& v : t.values) v = (2.0f * rng.UnitFloat() - 1.0f) * scale;
  return t;
}

// Signed real weights of variance 1 / fan-in (a layer keeps its input's variance).
HostTensor SignedWeight(Shape shape, uint64_t salt) {
  const int64_t fan_in = NumElements(shape) / shape[0];
  return Signed(shape, salt, std::sqrt(3.0f / static_cast<float>(fan_in)));
}

HostTensor SignedBias(Shape shape, uint64_t salt) { return Signed(shape, salt + 1000, 0.1f); }

// NOTE: the chain's input and output are channels-first (convert_layout transforms back), so memory
// order is logical order, as Judge wants.
Judgement JudgeAgainst(const GraphOracleOutput& ref, const HostTensor& got, Fill fill) {
  return Judge(ref.result.shape, ref.result.values, ref.magnitude.values, got, fill,
               BoundReductionLength(ref.root_reduction_sum));
}

// Median of A_i / |y_i|: how far the chain's terms cancel. The bound is proportional to A, so at a
// median of r it lets through errors about r times larger than a chain without cancellation would.
double MedianCancellation(const GraphOracleOutput& ref) {
  std::vector<double> r;
  for (size_t i = 0; i < ref.result.values.size(); ++i)
    r.push_back(ref.magnitude.values[i] / std::max(std::fabs(ref.result.values[i]), 1e-300));
  std::sort(r.begin(), r.end());
  return r.empty() ? 0.0 : r[r.size() / 2];
}

// One chain, its input and the gradient seed, with the oracle's references on the original graph.
struct ChainInRandomMode {
  ChainInRandomMode(Chain chain_in, HostTensor x_in, uint64_t dy_salt, bool signed_dy)
      : chain(std::move(chain_in)), x(std::move(x_in)) {
    const Shape out_shape = chain.graph.node(chain.graph.outputs[0]).shape;
    dy = signed_dy ? Signed(out_shape, dy_salt) : Real(out_shape, dy_salt);
    Result<GraphOracleOutput> y = ComputeGraph(chain.graph, {{"x", x}}, "", {}, true);
    EXPECT_TRUE(y.ok()) << y.status().message();
    if (y.ok()) y_ref = std::move(y).value();
    Result<GraphOracleOutput> dx = ComputeGraph(chain.graph, {{"x", x}}, "x", dy, true);
    EXPECT_TRUE(dx.ok()) << dx.status().message();
    if (dx.ok()) dx_ref = std::move(dx).value();
    Result<Graph> g = FindGradient("gradient")->run(chain.graph, {"x"});
    EXPECT_TRUE(g.ok()) << g.status().message();
    if (g.ok()) gradient = std::move(g).value();
    EXPECT_TRUE(InferShapes(gradient).ok());
  }

  // The forward and gradient graphs after `passes` (promises checked when `expect_promises_kept`);
  // returns the runtime layout_transforms of each.
  std::pair<int, int> Transform(const std::vector<std::string>& passes, bool expect_promises_kept) {
    return {LayoutTransformsAfter(chain.graph, passes, forward, expect_promises_kept),
            LayoutTransformsAfter(gradient, passes, backward, expect_promises_kept)};
  }

  Judgement JudgeForward(const Graph& runtime, Fill fill) const {
    Result<std::vector<HostTensor>> y = Interpret(runtime, {{"x", x}});
    EXPECT_TRUE(y.ok()) << y.status().message();
    return y.ok() ? JudgeAgainst(y_ref, y->front(), fill) : Judgement{Verdict::kCrashed};
  }
  Judgement JudgeGradient(const Graph& runtime, Fill fill) const {
    Result<std::vector<HostTensor>> dx = Interpret(runtime, {{"x", x}, {"grad_output", dy}});
    EXPECT_TRUE(dx.ok()) << dx.status().message();
    return dx.ok() ? JudgeAgainst(dx_ref, dx->front(), fill) : Judgement{Verdict::kCrashed};
  }

  // `runtime` with one weight of its second conv-family node (its first non-zero) times `factor`:
  // 1.01 is a 1% error, 0 drops one term of that node's reductions.
  static Graph WithWeightScaled(Graph runtime, float factor) {
    int convs = 0;
    for (Node& n : runtime.nodes)
      if ((n.op == OpKind::kConv || n.op == OpKind::kConvTranspose) && ++convs == 2) {
        Node& w = runtime.node(n.inputs[1]);
        EXPECT_EQ(w.op, OpKind::kConst) << "fold_constants leaves the weight a constant";
        for (float& v : w.value.values)
          if (v != 0) {
            v *= factor;
            break;
          }
      }
    EXPECT_GE(convs, 2);
    return runtime;
  }

  Chain chain;
  HostTensor x, dy;
  GraphOracleOutput y_ref, dx_ref;
  Graph gradient, forward, backward;
};

// Positive values (TOLERANCE.md's positive distribution) keep A = y: the bound is then as tight as
// for one convolution and sees a 1% error in one weight of the second of twenty convs; in the
// gradient it sees a dropped term (a 1% error there is reported, not asserted).
TEST(ResNetChain, PositiveChainAndItsGradientWithinTheGraphOracleBoundAndWrongWeightsCaught) {
  ChainInRandomMode run(ResNetChain(ResNet50Convs(), RealWeight, RealBias), Real({1, 3, 56, 56}, 1),
                        2, false);
  const auto [forward_transforms, backward_transforms] =
      run.Transform({"convert_layout", "fold_constants"}, true);
  EXPECT_EQ(forward_transforms, 2);
  EXPECT_EQ(backward_transforms, 2) << "the gradient chain too: grad_output in, dx out";
  const Judgement jy = run.JudgeForward(run.forward, Fill::kPositive);
  EXPECT_EQ(jy.verdict, Verdict::kPassed) << jy.mismatches << " of " << jy.elements;
  const Judgement jdx = run.JudgeGradient(run.backward, Fill::kPositive);
  EXPECT_EQ(jdx.verdict, Verdict::kPassed) << jdx.mismatches << " of " << jdx.elements;
  EXPECT_LT(std::max(jy.max_bound_use, jdx.max_bound_use), 0.3) << "TOLERANCE.md: comfortable";

  const Judgement one_percent =
      run.JudgeForward(run.WithWeightScaled(run.forward, 1.01f), Fill::kPositive);
  EXPECT_EQ(one_percent.verdict, Verdict::kFailed);
  const Judgement dropped = run.JudgeForward(run.WithWeightScaled(run.forward, 0), Fill::kPositive);
  EXPECT_EQ(dropped.verdict, Verdict::kFailed);
  const Judgement one_percent_dx =
      run.JudgeGradient(run.WithWeightScaled(run.backward, 1.01f), Fill::kPositive);
  const Judgement dropped_dx =
      run.JudgeGradient(run.WithWeightScaled(run.backward, 0), Fill::kPositive);
  EXPECT_EQ(dropped_dx.verdict, Verdict::kFailed);

  std::printf(
      "[resnet-chain] random mode (positive) vs the graph oracle: forward %lld elements, max bound "
      "use %.3g (Σ√K %.0f, median A/|y| %.3g); gradient %lld elements, max bound use %.3g (Σ√K "
      "%.0f, median A/|dx| %.3g); runtime layout_transforms %d and %d; one weight 1%% off: bound "
      "use %.3g (gradient: %.3g), dropped: %.3g (gradient: %.3g)\n",
      static_cast<long long>(jy.elements), jy.max_bound_use, run.y_ref.root_reduction_sum,
      MedianCancellation(run.y_ref), static_cast<long long>(jdx.elements), jdx.max_bound_use,
      run.dx_ref.root_reduction_sum, MedianCancellation(run.dx_ref), forward_transforms,
      backward_transforms, one_percent.max_bound_use, one_percent_dx.max_bound_use,
      dropped.max_bound_use, dropped_dx.max_bound_use);
}

// Signed input and gradient seed (TOLERANCE.md's uniform distribution) through the same positive
// weights: the first layer cancels, the bound has more room (a 1% weight error hides in it) but
// still sees a dropped term.
TEST(ResNetChain, SignedInputChainAndItsGradientWithinTheGraphOracleBoundAndADroppedTermCaught) {
  ChainInRandomMode run(ResNetChain(ResNet50Convs(), RealWeight, RealBias),
                        Signed({1, 3, 56, 56}, 1), 2, true);
  run.Transform({"convert_layout", "fold_constants"}, true);
  const Judgement jy = run.JudgeForward(run.forward, Fill::kUniform);
  EXPECT_EQ(jy.verdict, Verdict::kPassed) << jy.mismatches << " of " << jy.elements;
  const Judgement jdx = run.JudgeGradient(run.backward, Fill::kUniform);
  EXPECT_EQ(jdx.verdict, Verdict::kPassed) << jdx.mismatches << " of " << jdx.elements;
  const Judgement one_percent =
      run.JudgeForward(run.WithWeightScaled(run.forward, 1.01f), Fill::kUniform);
  const Judgement dropped = run.JudgeForward(run.WithWeightScaled(run.forward, 0), Fill::kUniform);
  EXPECT_EQ(dropped.verdict, Verdict::kFailed);
  const Judgement dropped_dx =
      run.JudgeGradient(run.WithWeightScaled(run.backward, 0), Fill::kUniform);
  EXPECT_EQ(dropped_dx.verdict, Verdict::kFailed);

  // Why the chains' weights are positive: with signed weights as well, twenty layers of
  // cancellation put A ~10^12 above |y|, and the bound would pass anything.
  ChainInRandomMode both_signed(ResNetChain(ResNet50Convs(), SignedWeight, SignedBias),
                                Signed({1, 3, 56, 56}, 1), 2, true);
  EXPECT_GT(MedianCancellation(both_signed.y_ref), 1e6);

  std::printf(
      "[resnet-chain] random mode (signed input) vs the graph oracle: forward max bound use %.3g "
      "(Σ√K %.0f, median A/|y| %.3g); gradient %lld elements, max bound use %.3g (Σ√K %.0f, "
      "median A/|dx| %.3g); one weight 1%% off: bound use %.3g (hidden), dropped: %.3g (gradient: "
      "%.3g); signed weights too: median A/|y| %.3g\n",
      jy.max_bound_use, run.y_ref.root_reduction_sum, MedianCancellation(run.y_ref),
      static_cast<long long>(jdx.elements), jdx.max_bound_use, run.dx_ref.root_reduction_sum,
      MedianCancellation(run.dx_ref), one_percent.max_bound_use, dropped.max_bound_use,
      dropped_dx.max_bound_use, MedianCancellation(both_signed.y_ref));
}

// fold_constants@tvm-layout-fold on the real-valued chain and on its gradient: the values stay
// within the bound (the bug is structural: no oracle sees it); the broken promise catches it.
TEST(ResNetChain, TvmLayoutFoldKeepsTheValuesAndIsCaughtByItsPromiseOnTheChainAndItsGradient) {
  ChainInRandomMode run(ResNetChain(ResNet50Convs(), RealWeight, RealBias), Real({1, 3, 56, 56}, 1),
                        2, false);
  run.Transform({"convert_layout"}, true);
  const Graph converted_forward = run.forward, converted_backward = run.backward;
  const auto [forward_transforms, backward_transforms] =
      run.Transform({"convert_layout", "fold_constants@tvm-layout-fold"}, false);
  EXPECT_EQ(forward_transforms, 2 + run.chain.convs) << "one weight transform per conv";
  EXPECT_EQ(backward_transforms, 2 + run.chain.convs) << "one per conv_transpose of the gradient";
  const PassInfo* buggy = FindPass("fold_constants@tvm-layout-fold");
  ASSERT_NE(buggy, nullptr);
  EXPECT_FALSE(buggy->check_promise(converted_forward, run.forward).ok());
  EXPECT_FALSE(buggy->check_promise(converted_backward, run.backward).ok());
  const Judgement jy = run.JudgeForward(run.forward, Fill::kPositive);
  EXPECT_EQ(jy.verdict, Verdict::kPassed);
  const Judgement jdx = run.JudgeGradient(run.backward, Fill::kPositive);
  EXPECT_EQ(jdx.verdict, Verdict::kPassed);
  std::printf(
      "[resnet-chain] fold_constants@tvm-layout-fold: runtime layout_transforms %d (forward), %d "
      "(gradient), promise broken: %s; values vs the oracle: max bound use %.3g and %.3g\n",
      forward_transforms, backward_transforms,
      buggy->check_promise(converted_forward, run.forward).ok() ? "no" : "yes", jy.max_bound_use,
      jdx.max_bound_use);
}

}  // namespace
}  // namespace convparity
