// ATen's own float32 paths (torch-f32, torch-f32-slow, torch-f32-cl) agree with its float64 path
// within the random-mode error bound (TOLERANCE.md), in all three directions, over generated
// problems and all three random distributions. CI runs a fixed seed (RC_PARAMS in
// tests/CMakeLists.txt); for a longer run:
//   RC_PARAMS="max_success=5000" ./parity_tests --gtest_filter='TorchF32*'
#include <gtest/gtest.h>
#include <rapidcheck.h>
#include <rapidcheck/gtest.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <string>

#include "core/descriptor.h"
#include "generators/problem_gen.h"
#include "harness/engine/check_case.h"
#include "harness/io/benchdnn_import.h"
#include "oracles/torch_f32_sut.h"

namespace convparity {
namespace {

std::unique_ptr<ConvSut> MustMake(const std::string& name) {
  std::unique_ptr<ConvSut> sut = MakeTorchF32Sut(name);
  if (!sut) throw std::runtime_error("no torch-f32 variant " + name);
  return sut;
}

// One generated problem, one random distribution, one seed: the variant must pass.
void ExpectParity(const std::string& variant, Direction d) {
  const ConvProblem p = *GenProblem();
  const uint64_t seed = *rc::gen::arbitrary<uint64_t>();
  const Fill fill = *rc::gen::element(Fill::kUniform, Fill::kPositive, Fill::kWide);
  std::unique_ptr<Sut> sut = MustMake(variant);
  const CaseOutcome out = CheckCase(ConvCase{p, d, variant, fill, seed}, *sut);
  RC_CLASSIFY(out.verdict == Verdict::kMistrusted, "mistrusted");
  RC_TAG(TorchF32Backend(variant, p));
  if (out.verdict != Verdict::kPassed && out.verdict != Verdict::kMistrusted)
    RC_FAIL(std::string(FillName(fill)) + " fill, backend " + TorchF32Backend(variant, p) + ": " +
            VerdictName(out.verdict) + ": " + out.reason);
}

RC_GTEST_PROP(TorchF32, DefaultPathForwardIsWithinBound, ()) {
  ExpectParity("torch-f32", Direction::kForward);
}
RC_GTEST_PROP(TorchF32, DefaultPathBackwardDataIsWithinBound, ()) {
  ExpectParity("torch-f32", Direction::kBackwardData);
}
RC_GTEST_PROP(TorchF32, DefaultPathBackwardWeightIsWithinBound, ()) {
  ExpectParity("torch-f32", Direction::kBackwardWeight);
}
RC_GTEST_PROP(TorchF32, SlowPathForwardIsWithinBound, ()) {
  ExpectParity("torch-f32-slow", Direction::kForward);
}
RC_GTEST_PROP(TorchF32, SlowPathBackwardDataIsWithinBound, ()) {
  ExpectParity("torch-f32-slow", Direction::kBackwardData);
}
RC_GTEST_PROP(TorchF32, SlowPathBackwardWeightIsWithinBound, ()) {
  ExpectParity("torch-f32-slow", Direction::kBackwardWeight);
}
RC_GTEST_PROP(TorchF32, ChannelsLastForwardIsWithinBound, ()) {
  ExpectParity("torch-f32-cl", Direction::kForward);
}
RC_GTEST_PROP(TorchF32, ChannelsLastBackwardDataIsWithinBound, ()) {
  ExpectParity("torch-f32-cl", Direction::kBackwardData);
}
RC_GTEST_PROP(TorchF32, ChannelsLastBackwardWeightIsWithinBound, ()) {
  ExpectParity("torch-f32-cl", Direction::kBackwardWeight);
}

TEST(TorchF32, NamesAreListedAndUnknownNamesGiveNull) {
  for (const std::string& name : TorchF32SutNames()) {
    std::unique_ptr<Sut> sut = MakeTorchF32Sut(name);
    ASSERT_NE(sut, nullptr) << name;
    EXPECT_EQ(sut->name(), name);
  }
  EXPECT_EQ(TorchF32SutNames().size(), 3u);
  EXPECT_EQ(MakeTorchF32Sut("torch-f64"), nullptr);
  EXPECT_EQ(MakeTorchF32Sut(""), nullptr);
}

TEST(TorchF32, MissingBuffersAndInvalidProblemsAreErrorsNotCrashes) {
  ConvProblem p;
  p.in_channels = 2, p.out_channels = 2, p.input = {4, 4, 1}, p.kernel = {3, 3, 1};
  std::vector<float> x(NumElements(p.input_shape()), 1.0f), y(NumElements(p.output_shape()));
  ConvBuffers buffers;
  buffers.input = x.data();
  buffers.result = y.data();  // no weight
  for (const std::string& name : TorchF32SutNames()) {
    const Status st = MustMake(name)->Run(p, Direction::kForward, buffers);
    EXPECT_EQ(st.code(), StatusCode::kInvalid) << name << ": " << st.message();
    ConvProblem bad = p;
    bad.groups = 3;
    EXPECT_EQ(MustMake(name)->Run(bad, Direction::kForward, buffers).code(), StatusCode::kInvalid);
  }
}

// The variants must reach different ATen kernels, or the three names test one path three times.
TEST(TorchF32, VariantsReachDifferentBackends) {
  ConvProblem p;
  p.rank = 2, p.batch = 2, p.in_channels = 4, p.out_channels = 4;
  p.input = {8, 8, 1}, p.kernel = {3, 3, 1};
  const std::string fast = TorchF32Backend("torch-f32", p);
  const std::string slow = TorchF32Backend("torch-f32-slow", p);
  const std::string cl = TorchF32Backend("torch-f32-cl", p);
  EXPECT_EQ(slow, "Slow2d");
  // Debian's libtorch is built with oneDNN, which ATen picks for this batched float32 problem.
  EXPECT_EQ(fast, "Mkldnn");
  EXPECT_EQ(cl, "Mkldnn, channels-last");
  // The oneDNN flag is restored after the slow variant.
  EXPECT_EQ(TorchF32Backend("torch-f32", p), fast);
}

// The result is written in the problem's memory layout, whatever ATen returned: channels-last
// data and a non-natural weight layout are checked like the plain ones.
TEST(TorchF32, WritesResultsInTheProblemsLayouts) {
  ConvProblem p;
  p.rank = 2, p.transposed = true, p.batch = 2, p.groups = 2;
  p.in_channels = 4, p.out_channels = 6, p.input = {5, 4, 1}, p.kernel = {3, 2, 1};
  p.stride = {2, 1, 1}, p.pad_begin = {1, 0, 0}, p.pad_end = {0, 1, 0},
  p.output_padding = {1, 0, 0};
  p.data_layout = DataLayout::kChannelsLast, p.weight_layout = WeightLayout::kOSpatialI;
  p.bias = true;
  ASSERT_TRUE(Validate(p).ok()) << Validate(p).message();
  for (const std::string& name : TorchF32SutNames())
    for (Direction d : AllDirections()) {
      std::unique_ptr<Sut> sut = MustMake(name);
      const CaseOutcome out = CheckCase(ConvCase{p, d, name, Fill::kUniform, 5}, *sut);
      EXPECT_EQ(out.verdict, Verdict::kPassed)
          << name << " " << DirectionName(d) << ": " << out.reason;
    }
}

// Real networks' shapes: every shared benchdnn problem (oneDNN's own test lists), scaled down to
// 2·10^5 MACs, in all three directions through all three variants. The fill rotates through the
// three random distributions.
TEST(TorchF32, BenchdnnShapesScaledDownAreWithinBound) {
  namespace fs = std::filesystem;
  const char* env = std::getenv("CONVPARITY_SHARED");
  const fs::path shared =
      env ? fs::path(env) : fs::path(__FILE__).parent_path() / "../../../shared";
  std::vector<BenchdnnProblem> problems;
  for (const char* kind : {"conv", "deconv"}) {
    if (!fs::is_directory(shared / "benchdnn" / kind)) continue;
    for (const auto& entry : fs::directory_iterator(shared / "benchdnn" / kind)) {
      Result<BenchdnnImport> r = ImportBenchdnnFile(entry.path().string());
      ASSERT_TRUE(r.ok()) << r.status().message();
      problems.insert(problems.end(), r->problems.begin(), r->problems.end());
    }
  }
  ASSERT_GT(problems.size(), 600u) << "shared benchdnn lists not found under " << shared;
  const Fill fills[] = {Fill::kUniform, Fill::kPositive, Fill::kWide};
  int checked = 0;
  for (size_t i = 0; i < problems.size(); ++i) {
    const ConvProblem p = ScaleDown(problems[i].problem, {2, 16, 200000});
    if (p.macs() > 200000) continue;  // a kernel bigger than the budget (3d_conv_large_shape)
    for (Direction d : AllDirections()) {
      const PreparedCase prep = PrepareCase(ConvCase{p, d, "", fills[i % 3], i});
      ASSERT_FALSE(prep.ended) << prep.ended->reason;
      for (const std::string& name : TorchF32SutNames()) {
        const CaseOutcome out = RunPrepared(prep, *MustMake(name));
        EXPECT_TRUE(out.verdict == Verdict::kPassed || out.verdict == Verdict::kMistrusted)
            << name << " " << CaseDescriptor(p, d) << " (" << problems[i].source << ":"
            << problems[i].line << ", " << TorchF32Backend(name, p) << "): " << out.reason;
        ++checked;
      }
    }
  }
  std::printf("benchdnn shapes through torch-f32*: %d checks\n", checked);
}

// cases/s of CheckCase (fill, float64 oracle with magnitudes, torch-f32, judge) on forward and
// transposed forward problems of at most 2·10^5 MACs, one thread, random mode.
TEST(TorchF32, ThroughputOfRandomModeForwardChecks) {
  ProblemSpace space;
  space.max_macs = 200000;
  const rc::Gen<ConvProblem> gen = GenProblem(space);
  rc::Random random(20261122);
  std::unique_ptr<Sut> sut = MustMake("torch-f32");
  constexpr int kCases = 2000;
  int passed = 0, transposed = 0;
  int64_t macs = 0;
  double oracle = 0, in_sut = 0;
  const auto start = std::chrono::steady_clock::now();
  for (int i = 0; i < kCases; ++i) {
    const ConvProblem p = gen(random.split(), 100).value();
    const CaseOutcome out =
        CheckCase(ConvCase{p, Direction::kForward, "torch-f32", Fill::kUniform, uint64_t(i)}, *sut);
    passed += out.verdict == Verdict::kPassed || out.verdict == Verdict::kMistrusted;
    transposed += p.transposed;
    macs += p.macs();
    oracle += out.timing.oracle;
    in_sut += out.timing.sut;
  }
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::printf(
      "torch-f32 random-mode fwd: %d cases (%d transposed, mean %.0f MACs) in %.2f s = %.0f "
      "cases/s, one thread (oracle %.0f%%, torch-f32 %.0f%%)\n",
      kCases, transposed, double(macs) / kCases, seconds, kCases / seconds, 100 * oracle / seconds,
      100 * in_sut / seconds);
  EXPECT_EQ(passed, kCases);
}

}  // namespace
}  // namespace convparity
