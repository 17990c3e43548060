// The summation orders are part of what our kernels promise (kernels/sum_order.h): the tolerance
// tests rely on correct kernels adding in genuinely different orders. The kernels add as the terms
// arrive, without collecting them; these tests hold them to the definition, bit for bit: collect
// every term of an element, then add the collection in the order's way.
#include "kernels/sum_order.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <string>
#include <type_traits>
#include <vector>

#include "core/descriptor.h"
#include "core/prng.h"
#include "core/tensor.h"
#include "generators/fill.h"
#include "generators/problem_gen.h"
#include "kernels/conv_loops.h"
#include "kernels/direct_conv.h"

namespace convparity {
namespace {

const SumOrder kAllOrders[] = {SumOrder::kSequential, SumOrder::kReverse,  SumOrder::kPairwise,
                               SumOrder::kBlocked,    SumOrder::kBfloat16, SumOrder::kDropOneTerm};

// ---- The definition: the whole sequence [init, t1, …, tn] first, then the order's additions ----

float PairwiseOf(const float* t, size_t n) {
  if (n <= 2) return n == 0 ? 0.0f : (n == 1 ? t[0] : t[0] + t[1]);
  const size_t half = n / 2;
  return PairwiseOf(t, half) + PairwiseOf(t + half, n - half);
}

float Bf16(float v) {
  uint32_t bits;
  std::memcpy(&bits, &v, sizeof bits);
  bits += 0x7FFF + ((bits >> 16) & 1);
  bits &= 0xFFFF0000u;
  std::memcpy(&v, &bits, sizeof v);
  return v;
}

float SumCollected(SumOrder order, const std::vector<float>& s) {
  const size_t n = s.size();
  float acc = 0;
  switch (order) {
    case SumOrder::kSequential:
      acc = s[0];
      for (size_t i = 1; i < n; ++i) acc += s[i];
      return acc;
    case SumOrder::kReverse:
      for (size_t i = n; i > 0; --i) acc += s[i - 1];
      return acc;
    case SumOrder::kPairwise:
      return PairwiseOf(s.data(), n);
    case SumOrder::kBlocked: {
      float lanes[8] = {0, 0, 0, 0, 0, 0, 0, 0};
      for (size_t i = 0; i < n; ++i) lanes[i % 8] += s[i];
      return ((lanes[0] + lanes[4]) + (lanes[1] + lanes[5])) +
             ((lanes[2] + lanes[6]) + (lanes[3] + lanes[7]));
    }
    case SumOrder::kBfloat16:
      for (size_t i = 0; i < n; ++i) acc = Bf16(acc + s[i]);
      return acc;
    case SumOrder::kDropOneTerm:
      for (size_t i = 0; i + (n >= 2 ? 1 : 0) < n; ++i) acc += s[i];
      return acc;
  }
  return NAN;
}

uint32_t Bits(float v) {
  uint32_t b;
  std::memcpy(&b, &v, sizeof b);
  return b;
}

// Values of mixed magnitudes and signs, so that every order rounds differently.
std::vector<float> Sequence(size_t n, uint64_t seed) {
  Prng rng(seed);
  std::vector<float> s(n);
  for (float& v : s) {
    const float m = rng.UnitFloat();
    v = (rng.Next() & 1 ? m : -m) * static_cast<float>(1u << rng.Below(12));
  }
  return s;
}

float SumStreamed(SumOrder order, const std::vector<float>& s) {
  return WithSum(order, [&](auto& sum) {
    sum.Start(s[0], s.size() - 1);
    if constexpr (std::decay_t<decltype(sum)>::kReverse)
      for (size_t i = s.size() - 1; i >= 1; --i) sum.Add(s[i]);
    else
      for (size_t i = 1; i < s.size(); ++i) sum.Add(s[i]);
    return sum.Finish();
  });
}

TEST(SumOrder, EveryAccumulatorAddsAsItsOrderDefinesBitForBit) {
  for (SumOrder order : kAllOrders)
    for (size_t n = 1; n <= 300; ++n) {
      const std::vector<float> s = Sequence(n, n);
      ASSERT_EQ(Bits(SumStreamed(order, s)), Bits(SumCollected(order, s)))
          << SumOrderName(order) << " over " << n << " values";
    }
}

TEST(SumOrder, OneAccumulatorServesManyElementsOfDifferentLengths) {
  // The pairwise plan is cached per length: elements of alternating lengths reuse it.
  PairwiseSum sum;
  for (size_t round = 0; round < 3; ++round)
    for (size_t n : {1, 2, 3, 17, 1000, 3, 64, 1}) {
      const std::vector<float> s = Sequence(n, 7 * n + round);
      sum.Start(s[0], n - 1);
      for (size_t i = 1; i < n; ++i) sum.Add(s[i]);
      ASSERT_EQ(Bits(sum.Finish()), Bits(SumCollected(SumOrder::kPairwise, s))) << n;
    }
}

TEST(SumOrder, TheCorrectOrdersRoundDifferently) {
  // Otherwise the tolerance tests would show one order four times.
  const SumOrder correct[] = {SumOrder::kSequential, SumOrder::kReverse, SumOrder::kPairwise,
                              SumOrder::kBlocked};
  for (SumOrder a : correct)
    for (SumOrder b : correct) {
      if (a == b) continue;
      int differ = 0;
      for (uint64_t seed = 0; seed < 100; ++seed) {
        const std::vector<float> s = Sequence(40, seed);
        differ += SumStreamed(a, s) != SumStreamed(b, s);
      }
      EXPECT_GT(differ, 20) << SumOrderName(a) << " vs " << SumOrderName(b);
    }
}

// ---- The gathers against the definition: each element's terms collected, then added ----------

// The terms of every element of one direction's result, collected in the documented order
// (conv_loops.h: channel or batch outermost, then the kernel or output positions, dimension 0
// first), over memory-order buffers, then summed. Written the plain way: every tap, tested.
class CollectingDirect {
 public:
  CollectingDirect(const ConvProblem& p, Direction d, const ConvBuffers& b, SumOrder order)
      : s_(MakeLoopSpec(p)), ops_(OperandsFor(p, d, b)), order_(order) {
    if (d == Direction::kBackwardWeight)
      W();
    else if ((d == Direction::kForward) != p.transposed)
      Y();
    else
      X();
  }

 private:
  static int64_t At(const Operand& t, int64_t outer, int64_t inner, const Dims& pos) {
    return outer * t.outer_stride + inner * t.inner_stride + pos[0] * t.spatial_stride[0] +
           pos[1] * t.spatial_stride[1] + pos[2] * t.spatial_stride[2];
  }
  template <typename F>
  static void Box(const Dims& e, F&& f) {
    for (int64_t a = 0; a < e[0]; ++a)
      for (int64_t b = 0; b < e[1]; ++b)
        for (int64_t c = 0; c < e[2]; ++c) f(Dims{a, b, c});
  }
  bool XOf(const Dims& yo, const Dims& k, Dims& xi) const {
    for (int i = 0; i < 3; ++i) {
      xi[i] = yo[i] * s_.stride[i] - s_.pad[i] + k[i] * s_.dilation[i];
      if (xi[i] < 0 || xi[i] >= s_.x_size[i]) return false;
    }
    return true;
  }
  bool YOf(const Dims& xi, const Dims& k, Dims& yo) const {
    for (int i = 0; i < 3; ++i) {
      const int64_t num = xi[i] + s_.pad[i] - k[i] * s_.dilation[i];
      if (num < 0 || num % s_.stride[i] != 0) return false;
      yo[i] = num / s_.stride[i];
      if (yo[i] >= s_.y_size[i]) return false;
    }
    return true;
  }
  void Y() {
    const Operand &x = ops_.x, &w = ops_.w, &y = ops_.y;
    for (int64_t n = 0; n < s_.batch; ++n)
      for (int64_t cy = 0; cy < s_.groups * s_.cy_per_group; ++cy) {
        const int64_t g = cy / s_.cy_per_group;
        Box(s_.y_size, [&](const Dims& yo) {
          std::vector<float> terms{ops_.bias ? ops_.bias[cy] : 0.0f};
          for (int64_t ic = 0; ic < s_.cx_per_group; ++ic)
            Box(s_.kernel, [&](const Dims& k) {
              Dims xi;
              if (XOf(yo, k, xi))
                terms.push_back(x.data[At(x, n, g * s_.cx_per_group + ic, xi)] *
                                w.data[At(w, cy, ic, k)]);
            });
          y.data[At(y, n, cy, yo)] = SumCollected(order_, terms);
        });
      }
  }
  void X() {
    const Operand &x = ops_.x, &w = ops_.w, &y = ops_.y;
    for (int64_t n = 0; n < s_.batch; ++n)
      for (int64_t cx = 0; cx < s_.groups * s_.cx_per_group; ++cx) {
        const int64_t g = cx / s_.cx_per_group, ic = cx % s_.cx_per_group;
        Box(s_.x_size, [&](const Dims& xi) {
          std::vector<float> terms{ops_.bias ? ops_.bias[cx] : 0.0f};
          for (int64_t oc = 0; oc < s_.cy_per_group; ++oc)
            Box(s_.kernel, [&](const Dims& k) {
              Dims yo;
              const int64_t cy = g * s_.cy_per_group + oc;
              if (YOf(xi, k, yo))
                terms.push_back(y.data[At(y, n, cy, yo)] * w.data[At(w, cy, ic, k)]);
            });
          x.data[At(x, n, cx, xi)] = SumCollected(order_, terms);
        });
      }
  }
  void W() {
    const Operand &x = ops_.x, &w = ops_.w, &y = ops_.y;
    for (int64_t cy = 0; cy < s_.groups * s_.cy_per_group; ++cy)
      for (int64_t ic = 0; ic < s_.cx_per_group; ++ic) {
        const int64_t cx = cy / s_.cy_per_group * s_.cx_per_group + ic;
        Box(s_.kernel, [&](const Dims& k) {
          std::vector<float> terms{0.0f};
          for (int64_t n = 0; n < s_.batch; ++n)
            Box(s_.y_size, [&](const Dims& yo) {
              Dims xi;
              if (XOf(yo, k, xi))
                terms.push_back(x.data[At(x, n, cx, xi)] * y.data[At(y, n, cy, yo)]);
            });
          w.data[At(w, cy, ic, k)] = SumCollected(order_, terms);
        });
      }
  }

  ConvLoopSpec s_;
  DirectOperands ops_;
  SumOrder order_;
};

// The direction's inputs in memory order and a poisoned result buffer.
struct Buffers {
  std::vector<float> x, w, b, dy, result;
  ConvBuffers Bind() {
    auto ptr = [](std::vector<float>& v) { return v.empty() ? nullptr : v.data(); };
    ConvBuffers out;
    out.input = ptr(x);
    out.weight = ptr(w);
    out.bias = ptr(b);
    out.grad_output = ptr(dy);
    out.result = result.data();
    return out;
  }
};

Buffers BuffersFor(const ConvProblem& p, Direction d, uint64_t seed) {
  const CaseInputs in = FillInputs(p, d, Fill::kWide, seed);
  Buffers b{ToMemoryOrder(in.Get(kInputVar), DataMemoryOrder(p)),
            ToMemoryOrder(in.Get(kWeightVar), WeightMemoryOrder(p)), in.Get(kBiasVar).values,
            ToMemoryOrder(in.Get(kGradOutputVar), DataMemoryOrder(p)),
            std::vector<float>(static_cast<size_t>(NumElements(ResultShape(p, d))), NAN)};
  return b;
}

TEST(DirectSumOrder, EveryOrderOfEveryDirectionMatchesItsCollectedTermsBitForBit) {
  ProblemSpace space;
  space.max_macs = 20000;
  const rc::Gen<ConvProblem> gen = GenProblem(space);
  rc::Random random(20261124);
  int64_t elements = 0;
  for (int i = 0; i < 150; ++i) {
    const ConvProblem p = gen(random.split(), rc::kNominalSize).value();
    for (Direction d : AllDirections()) {
      Buffers direct = BuffersFor(p, d, static_cast<uint64_t>(i));
      Buffers collected = direct;
      for (SumOrder order : kAllOrders) {
        ASSERT_TRUE(DirectConv(order).Run(p, d, direct.Bind()).ok());
        CollectingDirect(p, d, collected.Bind(), order);
        for (size_t e = 0; e < direct.result.size(); ++e)
          ASSERT_EQ(Bits(direct.result[e]), Bits(collected.result[e]))
              << CaseDescriptor(p, d) << " " << SumOrderName(order) << ", element " << e;
      }
      elements += static_cast<int64_t>(direct.result.size());
    }
  }
  EXPECT_GT(elements, 10000);
}

}  // namespace
}  // namespace convparity
