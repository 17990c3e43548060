#include "core/conv_problem.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "core/prng.h"
#include "core/tensor.h"

namespace convparity {
namespace {

ConvProblem Conv2d(int64_t ic, int64_t oc, int64_t i, int64_t k) {
  ConvProblem p;
  p.rank = 2;
  p.in_channels = ic;
  p.out_channels = oc;
  p.input = {i, i, 1};
  p.kernel = {k, k, 1};
  return p;
}

TEST(ShapeMath, OrdinaryOutputSizeFollowsPyTorch) {
  EXPECT_EQ(ConvOutputSize(9, 3, 2, 1, 1, 2), 4);  // (9+2-4-1)/2+1
  EXPECT_EQ(ConvOutputSize(5, 5, 1, 0, 0, 1), 1);
  EXPECT_EQ(ConvOutputSize(2, 3, 1, 0, 0, 1), 0);  // kernel larger than the padded input
  EXPECT_EQ(ConvOutputSize(7, 3, 1, 2, 0, 1), 7);  // asymmetric padding
}

TEST(ShapeMath, TransposedOutputSizeIsTheInverseUpToOutputPadding) {
  for (int64_t i = 1; i < 12; ++i)
    for (int64_t s = 1; s < 4; ++s)
      for (int64_t op = 0; op < s; ++op) {
        int64_t o = ConvTransposeOutputSize(i, 3, s, 1, 0, 1, op);
        if (o < 1) continue;
        EXPECT_EQ(ConvOutputSize(o, 3, s, 1, 0, 1), i) << "i=" << i << " s=" << s << " op=" << op;
      }
}

TEST(ConvProblem, WeightShapeSwapsChannelRolesWhenTransposed) {
  ConvProblem p = Conv2d(4, 6, 9, 3);
  p.groups = 2;
  EXPECT_EQ(p.weight_shape(), (Shape{6, 2, 3, 3}));
  p.transposed = true;
  EXPECT_EQ(p.weight_shape(), (Shape{4, 3, 3, 3}));
  EXPECT_EQ(p.output_shape(), (Shape{1, 6, 11, 11}));
}

TEST(ConvProblem, MacsCountSmallSideTimesTaps) {
  ConvProblem p = Conv2d(4, 6, 9, 3);
  EXPECT_EQ(p.macs(), 1 * 6 * 7 * 7 * 4 * 9);
  p.transposed = true;
  EXPECT_EQ(p.macs(), 1 * 4 * 9 * 9 * 6 * 9);
}

TEST(Validate, AcceptsALegalProblem) { EXPECT_TRUE(Validate(Conv2d(4, 6, 9, 3)).ok()); }

TEST(Validate, NamesWhatWasWrong) {
  ConvProblem p = Conv2d(4, 6, 9, 3);
  p.groups = 4;
  Status st = Validate(p);
  EXPECT_EQ(st.code(), StatusCode::kInvalid);
  EXPECT_NE(st.message().find("out_channels must be divisible by groups"), std::string::npos);

  p = Conv2d(4, 6, 2, 3);
  st = Validate(p);
  EXPECT_NE(st.message().find("Kernel size can't be greater than actual input size"),
            std::string::npos)
      << st.message();

  p = Conv2d(4, 6, 9, 3);
  p.output_padding = {1, 0, 0};
  EXPECT_NE(Validate(p).message().find("only for transposed"), std::string::npos);
}

TEST(Validate, OutputPaddingMustBeBelowStrideOrDilationAsInATen) {
  ConvProblem p = Conv2d(2, 2, 5, 3);
  p.transposed = true;
  p.output_padding = {1, 0, 0};
  EXPECT_FALSE(Validate(p).ok());  // stride 1, dilation 1
  p.dilation = {2, 1, 1};
  EXPECT_TRUE(Validate(p).ok());  // op < max(stride, dilation)
  p.stride = {2, 1, 1};
  p.output_padding = {2, 0, 0};
  EXPECT_FALSE(Validate(p).ok());
}

TEST(Validate, TransposedOutputMustBePositive) {
  ConvProblem p = Conv2d(2, 2, 1, 1);
  p.transposed = true;
  p.pad_begin = {1, 0, 0};
  EXPECT_NE(Validate(p).message().find("Output size is too small"), std::string::npos);
}

TEST(CheckLimits, RejectsTerabyteTensorsWithoutOverflow) {
  ConvProblem p = Conv2d(1 << 20, 1 << 20, 1 << 20, 1);
  Status st = CheckLimits(p, {});
  EXPECT_EQ(st.code(), StatusCode::kLimit);
  p = Conv2d(4, 4, 9, 3);
  p.batch = int64_t{1} << 29;
  EXPECT_EQ(CheckLimits(p, {}).code(), StatusCode::kLimit);
  p.batch = int64_t{1} << 40;  // beyond any runnable size: invalid before any shape math
  EXPECT_EQ(CheckLimits(p, {}).code(), StatusCode::kInvalid);
  p = Conv2d(4, 4, 9, 3);
  p.dilation = {int64_t{1} << 40, 1, 1};
  EXPECT_EQ(Validate(p).code(), StatusCode::kInvalid);
  EXPECT_TRUE(CheckLimits(Conv2d(4, 4, 9, 3), {}).ok());
}

TEST(ReductionLength, PerDirectionAsInTolerance) {
  ConvProblem p = Conv2d(4, 6, 9, 3);
  p.groups = 2;
  p.batch = 2;
  EXPECT_EQ(ReductionLength(p, Direction::kForward), 2 * 9);
  EXPECT_EQ(ReductionLength(p, Direction::kBackwardData), 3 * 9);
  EXPECT_EQ(ReductionLength(p, Direction::kBackwardWeight), 2 * 7 * 7);
  p.transposed = true;
  EXPECT_EQ(ReductionLength(p, Direction::kBackwardWeight), 2 * 9 * 9);
}

TEST(Layouts, NamesFollowRank) {
  EXPECT_EQ(DataLayoutName(DataLayout::kChannelsLast, 2), "nhwc");
  EXPECT_EQ(DataLayoutName(DataLayout::kChannelsFirst, 3), "ncdhw");
  EXPECT_EQ(WeightLayoutName(WeightLayout::kSpatialIO, 2), "hwio");
  EXPECT_EQ(WeightLayoutName(WeightLayout::kOSpatialI, 1), "owi");
}

TEST(Layouts, ChannelsLastStridesPutChannelsInnermost) {
  ConvProblem p = Conv2d(3, 4, 5, 3);
  p.data_layout = DataLayout::kChannelsLast;
  EXPECT_EQ(StridesFor(p.input_shape(), DataMemoryOrder(p)), (Shape{75, 1, 15, 3}));
}

TEST(Layouts, WeightLayoutsNameTheOperatorsOwnAxes) {
  ConvProblem p = Conv2d(3, 4, 5, 2);          // weight (O=4, I=3, 2, 2)
  p.weight_layout = WeightLayout::kSpatialIO;  // HWIO: O innermost
  EXPECT_EQ(StridesFor(p.weight_shape(), WeightMemoryOrder(p)), (Shape{1, 4, 24, 12}));
  p.transposed = true;  // weight (I=3, O=4, 2, 2); HWIO still puts O innermost
  EXPECT_EQ(StridesFor(p.weight_shape(), WeightMemoryOrder(p)), (Shape{4, 1, 24, 12}));
  p.weight_layout = WeightLayout::kIO;  // natural for transposed: contiguous
  EXPECT_EQ(StridesFor(p.weight_shape(), WeightMemoryOrder(p)),
            ContiguousStrides(p.weight_shape()));
}

TEST(Tensor, MemoryOrderRoundTrips) {
  HostTensor t{{2, 3, 4}, {}};
  for (int i = 0; i < 24; ++i) t.values.push_back(static_cast<float>(i));
  std::vector<int> order{2, 0, 1};
  std::vector<float> mem = ToMemoryOrder(t, order);
  EXPECT_EQ(mem[1], 4.0f);  // logical [0,1,0] is the next element along axis 1 in memory
  EXPECT_EQ(FromMemoryOrder(t.shape, mem, order).values, t.values);
}

// Every element lands at the offset its strides give, for every memory order of ranks 0–5 (the
// identity too, which is a plain copy) and extents of 1 and more; FromMemoryOrder reads it back.
TEST(Tensor, MemoryOrderPutsEveryElementAtItsStridedOffset) {
  Prng rng(5);
  for (size_t rank = 0; rank <= 5; ++rank) {
    std::vector<int> order(rank);
    for (size_t i = 0; i < rank; ++i) order[i] = static_cast<int>(i);
    do {
      for (int trial = 0; trial < 3; ++trial) {
        HostTensor t{Shape(rank), {}};
        for (int64_t& extent : t.shape) extent = rng.Between(1, 4);
        for (int64_t i = 0; i < NumElements(t.shape); ++i) t.values.push_back(1.0f + i);
        const Shape strides = StridesFor(t.shape, order);
        const std::vector<float> memory = ToMemoryOrder(t, order);
        ASSERT_EQ(memory.size(), t.values.size());
        ForEachIndex(t.shape, [&](const int64_t* idx, int64_t linear) {
          int64_t offset = 0;
          for (size_t d = 0; d < rank; ++d) offset += idx[d] * strides[d];
          ASSERT_EQ(memory[offset], t.values[linear]) << "rank " << rank << " at " << linear;
        });
        EXPECT_EQ(FromMemoryOrder(t.shape, memory, order).values, t.values);
      }
    } while (std::next_permutation(order.begin(), order.end()));
  }
}

TEST(Prng, IsBitIdenticalToItsGoldenSequence) {
  // SplitMix64 from seed 0: these constants pin the sequence across machines and compilers.
  Prng p(0);
  EXPECT_EQ(p.Next(), 0xE220A8397B1DCDAFull);
  EXPECT_EQ(p.Next(), 0x6E789E6AA1B965F4ull);
  Prng q(42);
  for (int i = 0; i < 1000; ++i) {
    float f = q.UnitFloat();
    ASSERT_GE(f, 0.0f);
    ASSERT_LT(f, 1.0f);
    ASSERT_EQ(f * 16777216.0f, std::floor(f * 16777216.0f));  // 24-bit grid: exact in float32
    int64_t b = q.Between(-3, 3);
    ASSERT_GE(b, -3);
    ASSERT_LE(b, 3);
  }
}

}  // namespace
}  // namespace convparity
