// convert_layout + fold_constants on a ResNet-50-like chain: the convolutions of oneDNN's benchdnn
// list shapes_resnet_50 (../shared/benchdnn/conv/, read by harness/benchdnn_import.h), chained one
// after the other with constant weights. The structural promise of the pair (ARCHITECTURE.md,
// Transforms): exactly two runtime layout_transforms remain (the input's and the output's), and the
// chain's output is bitwise the same before and after. tvm-layout-fold's fold_constants leaves one
// weight layout_transform per conv in the runtime graph instead (BUGS.md).
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <string>
#include <vector>

#include "core/graph.h"
#include "harness/benchdnn_import.h"
#include "kernels/graph/interpreter.h"
#include "kernels/graph/passes.h"

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
  std::vector<std::string> skipped;
  Result<std::vector<BenchdnnProblem>> parsed = ImportBenchdnnFile(file.string(), &skipped);
  EXPECT_TRUE(parsed.ok()) << file << ": " << parsed.status().message();
  EXPECT_TRUE(skipped.empty()) << skipped.front();
  std::vector<ConvProblem> out;
  if (parsed.ok())
    for (const BenchdnnProblem& b : *parsed) out.push_back(b.problem);
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

// The chain, scaled down so that it runs in milliseconds. Consecutive lines of the list do not
// chain (the network's pooling and residual branches are left out), so the chain adapts them
// deterministically:
//  - batch 1, an input of 3 × 56 × 56 (the list's 224 / 4);
//  - every conv's input channels are the previous conv's output channels; its output channels are
//    the list's / 16 (64 → 4 … 2048 → 128);
//  - every conv's spatial input is the previous output; kernel, stride, dilation and begin padding
//    are the list's, the end padding equals the begin padding (the list's end padding was computed
//    for its own input size: a 1×1 stride-2 conv on 56 has end padding −1);
//  - constant weights in OIHW (exact fill above) and a constant bias, as benchdnn's default has.
// Spatial sizes: 56 → 28 (conv1, 7×7 stride 2) → 14 → 7 → 4 → 2 (each stride-2 1×1 conv).
struct Chain {
  Graph graph;
  int convs = 0;
  Shape input;
};

Chain ResNetChain(const std::vector<ConvProblem>& convs) {
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
    const int w = c.graph.AddConst("w" + n, ExactWeight(w_shape, salt));
    const int b = c.graph.AddConst("b" + n, Ternary({out}, salt));
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
int LayoutTransformsAfter(const Chain& chain, const std::vector<std::string>& passes, Graph& g,
                          bool expect_promises_kept) {
  g = chain.graph;
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
  const int after_convert = LayoutTransformsAfter(chain, {"convert_layout"}, converted, true);
  Graph folded;
  const int after_fold =
      LayoutTransformsAfter(chain, {"convert_layout", "fold_constants"}, folded, true);
  EXPECT_EQ(after_fold, 2);
  Result<std::vector<HostTensor>> got = Interpret(folded, input);
  ASSERT_TRUE(got.ok()) << got.status().message();
  EXPECT_TRUE(SameBits(*want, *got));

  Graph buggy;
  const int after_buggy = LayoutTransformsAfter(
      chain, {"convert_layout", "fold_constants@tvm-layout-fold"}, buggy, false);
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

}  // namespace
}  // namespace convparity
