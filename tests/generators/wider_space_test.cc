// The wider space of issue 16: kernels beyond 9 taps, channel counts at block sizes, a share of
// large cases, in the generator and in the byte decoder alike. Statistical over fixed seeds, so
// that a space that shrinks back fails here.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "core/defaults.h"
#include "core/descriptor.h"
#include "core/features.h"
#include "core/prng.h"
#include "generators/byte_decoder.h"
#include "generators/problem_gen.h"

namespace convparity {
namespace {

constexpr int kSamples = 4000;

std::vector<ConvProblem> Sample(const ProblemSpace& space, int n, uint64_t seed) {
  const rc::Gen<ConvProblem> gen = GenProblem(space);
  rc::Random random(seed);
  std::vector<ConvProblem> out;
  for (int i = 0; i < n; ++i) out.push_back(gen(random.split(), rc::kNominalSize).value());
  return out;
}

int64_t LargestKernel(const ConvProblem& p) {
  return *std::max_element(p.kernel.begin(), p.kernel.begin() + p.rank);
}

bool HasChannels(const ConvProblem& p, int64_t c) {
  return p.in_channels == c || p.out_channels == c || p.in_channels / p.groups == c ||
         p.out_channels / p.groups == c;
}

bool HasTag(const ConvProblem& p, const std::string& tag) {
  const std::vector<std::string> tags = FeatureTags(p);
  return std::find(tags.begin(), tags.end(), tag) != tags.end();
}

struct Counts {
  int kernel_over_16_1d = 0, kernel_over_32_1d = 0, kernel_over_9_2d = 0, kernel_over_9_3d = 0;
  int kernel_over_9 = 0, small_kernels = 0;
  int channels16 = 0, channels32 = 0, channels64 = 0, near_block = 0;
  int dense_wide = 0, dense_tail = 0;  // groups 1: C_in or C_out 32 / 64, and 17 / 33
  int large = 0;
};

Counts Count(const std::vector<ConvProblem>& problems, int64_t max_macs) {
  Counts n;
  for (const ConvProblem& p : problems) {
    const int64_t k = LargestKernel(p);
    n.kernel_over_16_1d += p.rank == 1 && k > 16;
    n.kernel_over_32_1d += p.rank == 1 && k > 32;
    n.kernel_over_9_2d += p.rank == 2 && k > 9;
    n.kernel_over_9_3d += p.rank == 3 && k > 9;
    n.kernel_over_9 += k > 9;
    n.small_kernels += k <= 3;
    n.channels16 += HasChannels(p, 16);
    n.channels32 += HasChannels(p, 32);
    n.channels64 += HasChannels(p, 64);
    n.near_block += HasTag(p, "channels_near_block");
    auto dense = [&](int64_t c) { return p.groups == 1 && HasChannels(p, c); };
    n.dense_wide += dense(32) || dense(64);
    n.dense_tail += dense(17) || dense(33);
    n.large += p.macs() > max_macs;
  }
  return n;
}

// Kernels beyond 9 in every rank (1-D beyond 16 and 32), channel counts 16/32/64, and large
// cases all occur; small kernels stay the bulk and large cases a small share; every problem stays
// under its rank's kernel cap and the large cap, and ordinary ones under max_macs (the share
// over it is the large share).
TEST(WiderSpace, LargeKernelsBlockChannelsAndLargeCasesOccurWithinTheCaps) {
  const ProblemSpace space;
  const std::vector<ConvProblem> problems = Sample(space, kSamples, 16);
  const Counts n = Count(problems, space.max_macs);
  std::printf("of %d: 1-D k>16 %d, 1-D k>32 %d, 2-D k>9 %d, 3-D k>9 %d, k>9 %d, k<=3 %d\n",
              kSamples, n.kernel_over_16_1d, n.kernel_over_32_1d, n.kernel_over_9_2d,
              n.kernel_over_9_3d, n.kernel_over_9, n.small_kernels);
  std::printf("channels 16: %d, 32: %d, 64: %d, near a block size: %d; large: %d\n", n.channels16,
              n.channels32, n.channels64, n.near_block, n.large);
  std::printf("groups 1 with 32 or 64 channels: %d, with 17 or 33: %d\n", n.dense_wide,
              n.dense_tail);
  EXPECT_GE(n.kernel_over_16_1d, 20);
  EXPECT_GE(n.kernel_over_32_1d, 5);
  EXPECT_GE(n.kernel_over_9_2d, 20);
  EXPECT_GE(n.kernel_over_9_3d, 10);
  EXPECT_LE(n.kernel_over_9, kSamples / 5) << "large kernels must stay rare";
  EXPECT_GE(n.small_kernels, kSamples / 3) << "the small-kernel bias must stay";
  EXPECT_GE(n.channels16, 100);
  EXPECT_GE(n.channels32, 40);
  EXPECT_GE(n.channels64, 10);
  EXPECT_GE(n.near_block, kSamples / 5);
  EXPECT_GE(n.dense_wide, 100);
  EXPECT_GE(n.dense_tail, 100);
  EXPECT_GE(n.large, kSamples / 50) << "about one case in twenty is large";
  EXPECT_LE(n.large, kSamples / 10);
  for (const ConvProblem& p : problems) {
    ASSERT_LE(LargestKernel(p), defaults::kMaxKernelOfRank[p.rank]) << ProblemDescriptor(p);
    ASSERT_LE(p.macs(), space.max_macs * defaults::kLargeCaseFactor) << ProblemDescriptor(p);
  }
}

// Large cases are large: many reach beyond 5× the cap (blocked and tiled paths need the size).
TEST(WiderSpace, LargeCasesReachWellBeyondTheCap) {
  const ProblemSpace space;
  int beyond5 = 0;
  for (const ConvProblem& p : Sample(space, kSamples, 17)) beyond5 += p.macs() > 5 * space.max_macs;
  EXPECT_GE(beyond5, kSamples / 200);
}

// A space without large cases keeps every problem under max_macs; a small max_kernel is a cap.
TEST(WiderSpace, TheCapsHoldWhenLargeCasesAreOffOrKernelsCapped) {
  ProblemSpace space;
  space.large_percent = 0;
  for (const ConvProblem& p : Sample(space, 2000, 18)) ASSERT_LE(p.macs(), space.max_macs);
  space = ProblemSpace{};
  space.large_factor = 1;
  for (const ConvProblem& p : Sample(space, 2000, 19)) ASSERT_LE(p.macs(), space.max_macs);
  space = ProblemSpace{};
  space.max_kernel = 9;
  for (const ConvProblem& p : Sample(space, 2000, 20)) ASSERT_LE(LargestKernel(p), 9);
  EXPECT_EQ(LargeMacs(ProblemSpace{}), defaults::kMaxMacs * defaults::kLargeCaseFactor);
  space = ProblemSpace{};
  space.max_macs = INT64_MAX / 2;
  EXPECT_EQ(LargeMacs(space), INT64_MAX);  // saturates
}

// The byte decoder reaches the same space from random bytes: the same bins occur, within its caps.
TEST(WiderSpace, TheByteDecoderReachesTheSameSpace) {
  ByteDecoderOptions o;
  Prng prng(16);
  std::vector<ConvProblem> problems;
  int large_flagged = 0;
  for (int i = 0; i < kSamples; ++i) {
    std::string bytes(96, '\0');
    for (char& ch : bytes) ch = static_cast<char>(prng.Next() & 0xff);
    problems.push_back(DecodeCase(bytes, o).problem);
    large_flagged += problems.back().macs() > o.max_macs;
  }
  const Counts n = Count(problems, o.max_macs);
  std::printf(
      "decoded: 1-D k>16 %d, 2-D k>9 %d, 3-D k>9 %d, channels 16/32/64 %d/%d/%d, large %d\n",
      n.kernel_over_16_1d, n.kernel_over_9_2d, n.kernel_over_9_3d, n.channels16, n.channels32,
      n.channels64, n.large);
  EXPECT_GE(n.kernel_over_16_1d, 20);
  EXPECT_GE(n.kernel_over_9_2d, 20);
  EXPECT_GE(n.kernel_over_9_3d, 10);
  EXPECT_GE(n.channels16, 10);
  EXPECT_GE(n.channels32, 10);
  EXPECT_GE(n.channels64, 5);
  EXPECT_GE(n.dense_wide, 20);
  EXPECT_GE(n.large, 20);
  for (const ConvProblem& p : problems) {
    ASSERT_LE(LargestKernel(p), defaults::kMaxKernelOfRank[p.rank]) << ProblemDescriptor(p);
    ASSERT_LE(p.macs(), LargeMacs(o)) << ProblemDescriptor(p);
  }
}

// Every generated case, large ones included, is one the byte format carries (fuzzer seeds).
TEST(WiderSpace, EveryGeneratedCaseEncodes) {
  ByteDecoderOptions o;
  o.max_tensor_elements = Limits{}.max_tensor_elements;
  int large = 0;
  for (const ConvProblem& p : Sample(ProblemSpace{}, 2000, 21)) {
    ConvCase c;
    c.problem = p;
    Result<std::string> bytes = EncodeCase(c, o);
    ASSERT_TRUE(bytes.ok()) << ProblemDescriptor(p) << ": " << bytes.status().message();
    large += p.macs() > o.max_macs;
  }
  EXPECT_GT(large, 0);
}

// The summary's coverage shows the new bins, which stay out of bucket signatures.
TEST(WiderSpace, FeatureTagsNameTheNewBins) {
  ConvProblem p;
  p.rank = 1;
  p.kernel = {17, 1, 1};
  p.input = {30, 1, 1};  // 16·33·17·14 = 125664 MACs
  p.in_channels = 16;
  p.out_channels = 33;
  EXPECT_TRUE(HasTag(p, "kernel>9"));
  EXPECT_TRUE(HasTag(p, "kernel>16"));
  EXPECT_TRUE(HasTag(p, "channels_near_block"));
  EXPECT_FALSE(HasTag(p, "large"));
  p.batch = 8;
  EXPECT_TRUE(HasTag(p, "large")) << p.macs();
  p.kernel[0] = 10;
  p.in_channels = p.out_channels = 6;
  EXPECT_TRUE(HasTag(p, "kernel>9"));
  EXPECT_FALSE(HasTag(p, "kernel>16"));
  EXPECT_FALSE(HasTag(p, "channels_near_block"));
  for (const char* tag : {"kernel>9", "kernel>16", "channels_near_block", "large"})
    EXPECT_NE(std::find(AllFeatureTagNames().begin(), AllFeatureTagNames().end(), tag),
              AllFeatureTagNames().end())
        << tag;
  ConvCase c;
  c.problem = p;
  EXPECT_EQ(BucketSignature(c, Verdict::kFailed, Symptom::kWrong).find("kernel>9"),
            std::string::npos);
}

}  // namespace
}  // namespace convparity
