// The case reference of a convolution (oracles/case_reference.h): shapes against our shape math,
// values against a naive loop by the definition, the three directions against each other (adjoint
// identities), the magnitude bound, and errors as values; and what TorchOracle says of LibTorch.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <string>
#include <vector>

#include "core/case_graphs.h"
#include "core/prng.h"
#include "generators/fill.h"
#include "oracles/case_reference.h"
#include "oracles/torch_oracle.h"

namespace convparity {
namespace {

// A random problem, small enough to run thousands, covering 1–3-D, transposed, groups, stride,
// dilation, asymmetric padding and output_padding up to max(stride, dilation) − 1. Validate() has
// the last word: the caller skips what it rejects.
ConvProblem RandomProblem(Prng& rng) {
  ConvProblem p;
  p.rank = static_cast<int>(rng.Between(1, 3));
  p.transposed = rng.Below(2) == 1;
  p.groups = rng.Between(1, 3);
  p.in_channels = p.groups * rng.Between(1, 2);
  p.out_channels = p.groups * rng.Between(1, 3);
  p.batch = rng.Between(1, 2);
  p.bias = rng.Below(2) == 1;
  const bool big = p.rank == 3;  // keep 3-D cases cheap
  for (int i = 0; i < p.rank; ++i) {
    p.input[i] = rng.Between(1, big ? 4 : 7);
    p.kernel[i] = rng.Between(1, big ? 3 : 4);
    p.stride[i] = rng.Between(1, 3);
    p.dilation[i] = rng.Between(1, 3);
    p.pad_begin[i] = rng.Between(0, 3);
    p.pad_end[i] = rng.Between(0, 3);
    if (p.transposed) {
      // Half of the time the largest legal value: ≥ stride whenever dilation > stride.
      const int64_t max_op = std::max(p.stride[i], p.dilation[i]) - 1;
      p.output_padding[i] = rng.Below(2) ? max_op : rng.Between(0, max_op);
    }
  }
  return p;
}

// Calls f for `count` valid random problems drawn from `seed`.
void ForRandomProblems(uint64_t seed, int count, const std::function<void(const ConvProblem&)>& f) {
  Prng rng(seed);
  for (int done = 0; done < count;) {
    ConvProblem p = RandomProblem(rng);
    if (!Validate(p).ok()) continue;
    f(p);
    ++done;
  }
}

HostTensor RandomTensor(const Shape& shape, Prng& rng) {
  HostTensor t{shape, std::vector<float>(NumElements(shape))};
  for (float& v : t.values) v = 2.0f * rng.UnitFloat() - 1.0f;
  return t;
}

// Every tensor any direction reads; the oracle takes the ones it needs.
CaseInputs RandomInputs(const ConvProblem& p, uint64_t seed) {
  Prng rng(seed);
  CaseInputs in;
  in.vars[kInputVar] = RandomTensor(p.input_shape(), rng);
  in.vars[kWeightVar] = RandomTensor(p.weight_shape(), rng);
  if (p.bias) in.vars[kBiasVar] = RandomTensor(p.bias_shape(), rng);
  in.vars[kGradOutputVar] = RandomTensor(p.output_shape(), rng);
  return in;
}

std::string Describe(const ConvProblem& p) {
  std::string s = std::string(p.transposed ? "transposed " : "") + std::to_string(p.rank) + "-D g" +
                  std::to_string(p.groups) + " mb" + std::to_string(p.batch) + " ic" +
                  std::to_string(p.in_channels) + " oc" + std::to_string(p.out_channels);
  auto dims = [&](const char* name, const Dims& d) {
    s += std::string(" ") + name;
    for (int i = 0; i < p.rank; ++i) s += (i ? "x" : "") + std::to_string(d[i]);
  };
  dims("i", p.input), dims("k", p.kernel), dims("s", p.stride), dims("d", p.dilation);
  dims("pb", p.pad_begin), dims("pe", p.pad_end), dims("op", p.output_padding);
  return s + (p.bias ? " bias" : "");
}

OracleOutput MustCompute(const ConvProblem& p, Direction d, const CaseInputs& in,
                         bool with_magnitude = false) {
  Result<OracleOutput> r = ComputeReference(p, ConvForm(), d, in, with_magnitude);
  EXPECT_TRUE(r.ok()) << Describe(p) << " " << DirectionName(d) << ": " << r.status().message();
  return r.ok() ? r.value() : OracleOutput{};
}

// y by the definition. Ordinary: y[o] = Σ x[o·s − pb + k·d] · w[k]. Transposed: each x[i] is
// scattered to y[i·s − pb + k·d] (positions outside [0, out) are cropped away).
std::vector<double> NaiveForward(const ConvProblem& p, const CaseInputs& in) {
  const Shape xs = p.input_shape(), ws = p.weight_shape(), ys = p.output_shape();
  const Shape xst = ContiguousStrides(xs), wst = ContiguousStrides(ws), yst = ContiguousStrides(ys);
  const Dims out = p.output();
  const Dims& small = p.transposed ? p.input : out;  // the side that is stepped with the stride
  const Dims& large = p.transposed ? out : p.input;
  const Shape small_shape(small.begin(), small.begin() + p.rank);
  const Shape kernel_shape(p.kernel.begin(), p.kernel.begin() + p.rank);
  const int64_t cin_g = p.in_channels / p.groups, cout_g = p.out_channels / p.groups;
  std::vector<double> y(NumElements(ys), 0.0);
  for (int64_t n = 0; n < p.batch; ++n)
    for (int64_t g = 0; g < p.groups; ++g)
      for (int64_t co = 0; co < cout_g; ++co)
        for (int64_t ci = 0; ci < cin_g; ++ci)
          ForEachIndex(small_shape, [&](const int64_t* s, int64_t) {
            ForEachIndex(kernel_shape, [&](const int64_t* k, int64_t) {
              int64_t x_off = n * xst[0] + (g * cin_g + ci) * xst[1];
              int64_t y_off = n * yst[0] + (g * cout_g + co) * yst[1];
              int64_t w_off = p.transposed ? (g * cin_g + ci) * wst[0] + co * wst[1]
                                           : (g * cout_g + co) * wst[0] + ci * wst[1];
              for (int j = 0; j < p.rank; ++j) {
                const int64_t l = s[j] * p.stride[j] - p.pad_begin[j] + k[j] * p.dilation[j];
                if (l < 0 || l >= large[j]) return;
                x_off += (p.transposed ? s[j] : l) * xst[2 + j];
                y_off += (p.transposed ? l : s[j]) * yst[2 + j];
                w_off += k[j] * wst[2 + j];
              }
              y[y_off] +=
                  double{in.Get(kInputVar).values[x_off]} * in.Get(kWeightVar).values[w_off];
            });
          });
  if (p.bias)
    ForEachIndex(ys, [&](const int64_t* idx, int64_t linear) {
      y[linear] += in.Get(kBiasVar).values[idx[1]];
    });
  return y;
}

double Dot(const std::vector<double>& a, const std::vector<float>& b, bool absolute = false) {
  double s = 0;
  for (size_t i = 0; i < a.size(); ++i) s += a[i] * (absolute ? std::fabs(b[i]) : b[i]);
  return s;
}

TEST(CaseReference, ResultShapesEqualShapeMathForRandomProblems) {
  int transposed = 0, op_at_least_stride = 0, asymmetric = 0, grouped = 0, rank3 = 0;
  ForRandomProblems(1, 5000, [&](const ConvProblem& p) {
    const CaseInputs in = RandomInputs(p, 7);
    for (Direction d : AllDirections()) {
      const OracleOutput out = MustCompute(p, d, in, /*with_magnitude=*/true);
      ASSERT_EQ(out.result.shape, ResultShape(p, d)) << Describe(p) << " " << DirectionName(d);
      ASSERT_EQ(out.result.values.size(), static_cast<size_t>(NumElements(ResultShape(p, d))));
      ASSERT_EQ(out.magnitude.shape, out.result.shape);
      ASSERT_EQ(out.magnitude.values.size(), out.result.values.size());
    }
    transposed += p.transposed;
    grouped += p.groups > 1;
    rank3 += p.rank == 3;
    for (int i = 0; i < p.rank; ++i) {
      op_at_least_stride += p.transposed && p.output_padding[i] >= p.stride[i];
      asymmetric += p.pad_begin[i] != p.pad_end[i];
    }
  });
  // The builder must actually reach the features the shapes depend on.
  EXPECT_GT(transposed, 1500);
  EXPECT_GT(op_at_least_stride, 300);
  EXPECT_GT(asymmetric, 1500);
  EXPECT_GT(grouped, 1500);
  EXPECT_GT(rank3, 1000);
}

TEST(CaseReference, OrdinaryConv1dWithAsymmetricPaddingAndBiasMatchesHandComputation) {
  ConvProblem p;
  p.rank = 1;
  p.input[0] = 4, p.kernel[0] = 2, p.stride[0] = 2, p.pad_begin[0] = 1, p.pad_end[0] = 2;
  p.bias = true;
  CaseInputs in;
  in.vars[kInputVar] = {{1, 1, 4}, {1, 2, 3, 4}};
  in.vars[kWeightVar] = {{1, 1, 2}, {1, 10}};
  in.vars[kBiasVar] = {{1}, {0.5f}};
  // Padded input [0 1 2 3 4 0 0]: windows at 0, 2, 4 → 0+10, 2+30, 4+0; the last 0 is never read.
  const OracleOutput out = MustCompute(p, Direction::kForward, in);
  EXPECT_EQ(out.result.shape, (Shape{1, 1, 3}));
  EXPECT_EQ(out.result.values, (std::vector<double>{10.5, 32.5, 4.5}));
}

TEST(CaseReference, TransposedConv1dWithOutputPaddingAndAsymmetricPaddingMatchesHand) {
  ConvProblem p;
  p.rank = 1, p.transposed = true;
  p.input[0] = 2, p.kernel[0] = 3, p.stride[0] = 2, p.pad_begin[0] = 1, p.pad_end[0] = 0;
  p.output_padding[0] = 1;
  CaseInputs in;
  in.vars[kInputVar] = {{1, 1, 2}, {1, 2}};
  in.vars[kWeightVar] = {{1, 1, 3}, {1, 10, 100}};
  // Full output (size 6): x0 → [1 10 100] at 0, x1 → [2 20 200] at 2, plus the output_padding zero:
  // [1 10 102 20 200 0]; pad_begin 1 crops its first element.
  const OracleOutput out = MustCompute(p, Direction::kForward, in);
  EXPECT_EQ(out.result.values, (std::vector<double>{10, 102, 20, 200, 0}));
}

TEST(CaseReference, TransposedConv1dWithOutputPaddingAtLeastStrideMatchesHand) {
  ConvProblem p;
  p.rank = 1, p.transposed = true, p.bias = true;
  p.input[0] = 2, p.kernel[0] = 2, p.stride[0] = 1, p.dilation[0] = 3, p.pad_end[0] = 1;
  p.output_padding[0] = 2;  // legal because dilation 3 > stride 1
  CaseInputs in;
  in.vars[kInputVar] = {{1, 1, 2}, {1, 2}};
  in.vars[kWeightVar] = {{1, 1, 2}, {1, 10}};
  in.vars[kBiasVar] = {{1}, {-1}};
  // Full output (size 7): x0 → 1, 10 at 0, 3; x1 → 2, 20 at 1, 4 → [1 2 0 10 20 0 0]; pad_end
  // crops 1.
  const OracleOutput out = MustCompute(p, Direction::kForward, in);
  EXPECT_EQ(out.result.values, (std::vector<double>{0, 1, -1, 9, 19, -1}));
}

bool SymmetricPadding(const ConvProblem& p) {
  for (int i = 0; i < p.rank; ++i)
    if (p.pad_begin[i] != p.pad_end[i]) return false;
  return true;
}

// Symmetric padding goes to ATen as its own, asymmetric padding as an explicit pad or crop: both
// ways are checked.
TEST(CaseReference, ForwardEqualsNaiveLoopForRandomProblems) {
  int symmetric = 0, transposed_symmetric = 0;
  ForRandomProblems(2, 1000, [&](const ConvProblem& p) {
    symmetric += SymmetricPadding(p);
    transposed_symmetric += SymmetricPadding(p) && p.transposed;
    const CaseInputs in = RandomInputs(p, 11);
    const OracleOutput out = MustCompute(p, Direction::kForward, in, /*with_magnitude=*/true);
    const std::vector<double> naive = NaiveForward(p, in);
    ASSERT_EQ(out.result.values.size(), naive.size()) << Describe(p);
    for (size_t i = 0; i < naive.size(); ++i)
      ASSERT_NEAR(out.result.values[i], naive[i], 1e-12 * (out.magnitude.values[i] + 1e-300))
          << Describe(p) << " at " << i;
  });
  EXPECT_GT(symmetric, 80);
  EXPECT_GT(transposed_symmetric, 30);
}

// <conv(x, w), dy> = <x, bwd_data(dy, w)> = <w, bwd_weight(x, dy)>: the three directions are one
// linear map seen three ways. The scale S = Σ|x·w·dy| over the same triples is itself computed
// three ways by the magnitudes.
TEST(CaseReference, AdjointIdentitiesHoldForRandomProblems) {
  int transposed = 0, nondegenerate = 0, symmetric = 0;
  ForRandomProblems(3, 2000, [&](const ConvProblem& given) {
    ConvProblem p = given;
    symmetric += SymmetricPadding(p);
    p.bias = false;  // bias makes the forward affine, not linear
    const CaseInputs in = RandomInputs(p, 13);
    const OracleOutput y = MustCompute(p, Direction::kForward, in, true);
    const OracleOutput dx = MustCompute(p, Direction::kBackwardData, in, true);
    const OracleOutput dw = MustCompute(p, Direction::kBackwardWeight, in, true);
    const double scale = Dot(y.magnitude.values, in.Get(kGradOutputVar).values, /*absolute=*/true);
    // S = 0 when every tap reads padding (legal): then all three sides are exactly zero.
    nondegenerate += scale > 0;
    EXPECT_NEAR(Dot(dx.magnitude.values, in.Get(kInputVar).values, true), scale, 1e-12 * scale)
        << Describe(p);
    EXPECT_NEAR(Dot(dw.magnitude.values, in.Get(kWeightVar).values, true), scale, 1e-12 * scale)
        << Describe(p);
    const double fwd = Dot(y.result.values, in.Get(kGradOutputVar).values);
    EXPECT_NEAR(Dot(dx.result.values, in.Get(kInputVar).values), fwd, 1e-9 * scale) << Describe(p);
    EXPECT_NEAR(Dot(dw.result.values, in.Get(kWeightVar).values), fwd, 1e-9 * scale) << Describe(p);
    transposed += p.transposed;
  });
  EXPECT_GT(transposed, 600);
  EXPECT_GT(nondegenerate, 1800);
  EXPECT_GT(symmetric, 150);
}

TEST(CaseReference, MagnitudeBoundsResultElementwise) {
  ForRandomProblems(4, 1000, [](const ConvProblem& p) {
    const CaseInputs in = RandomInputs(p, 17);
    for (Direction d : AllDirections()) {
      const OracleOutput out = MustCompute(p, d, in, /*with_magnitude=*/true);
      ASSERT_EQ(out.magnitude.values.size(), out.result.values.size());
      for (size_t i = 0; i < out.result.values.size(); ++i)
        ASSERT_LE(std::fabs(out.result.values[i]), out.magnitude.values[i] * (1 + 1e-12))
            << Describe(p) << " " << DirectionName(d) << " at " << i;
    }
  });
}

// With no negative input, A = |x| ⊛ |w| is the result itself, and the oracle takes it from there.
// Negating one operand takes the other way (A of |−x| and |w|), which must give the same A.
TEST(CaseReference, MagnitudeOfNonNegativeInputsIsTheSameAsThroughAbsoluteValues) {
  ForRandomProblems(6, 500, [](const ConvProblem& p) {
    CaseInputs positive = RandomInputs(p, 29);
    for (auto& [name, t] : positive.vars)
      for (float& v : t.values) v = std::fabs(v);
    for (Direction d : AllDirections()) {
      CaseInputs negated = positive;
      HostTensor& first = negated.vars[d == Direction::kBackwardData ? kGradOutputVar : kInputVar];
      for (float& v : first.values) v = -v;
      const OracleOutput direct = MustCompute(p, d, positive, true);
      const OracleOutput through_abs = MustCompute(p, d, negated, true);
      ASSERT_EQ(direct.magnitude.values, through_abs.magnitude.values)
          << Describe(p) << " " << DirectionName(d);
      for (double a : direct.magnitude.values) ASSERT_FALSE(std::signbit(a)) << Describe(p);
    }
  });
}

// One negative value in any var the direction reads, or in the chain's own weight, and A is no
// longer |result|: it is the computation on absolute values, the result of the all-positive inputs.
TEST(CaseReference, MagnitudeWithOneNegativeValueIsThroughAbsoluteValues) {
  ForRandomProblems(7, 60, [](const ConvProblem& p) {
    for (const GraphForm* form : {&ConvForm(), &ChainForm()})
      for (Direction d : AllDirections()) {
        const CaseInputs positive = FillInputs(p, d, Fill::kPositive, 31, *form);
        const Result<OracleOutput> want = ComputeReference(p, *form, d, positive, false);
        ASSERT_TRUE(want.ok()) << want.status().message();
        for (const auto& [name, t] : positive.vars) {
          CaseInputs one_negative = positive;
          one_negative.vars[name].values[0] = -t.values[0];
          const Result<OracleOutput> got = ComputeReference(p, *form, d, one_negative, true);
          ASSERT_TRUE(got.ok()) << got.status().message();
          ASSERT_EQ(got->magnitude.values, want->result.values)
              << Describe(p) << " " << form->name << " " << DirectionName(d) << " %" << name;
        }
      }
  });
}

TEST(CaseReference, MagnitudeIsOnlyFilledWhenAskedFor) {
  ConvProblem p;
  p.rank = 2;
  const OracleOutput out = MustCompute(p, Direction::kForward, RandomInputs(p, 1));
  EXPECT_TRUE(out.magnitude.values.empty());
  EXPECT_EQ(out.result.values.size(), 1u);
}

TEST(CaseReference, RepeatedComputeIsBitIdentical) {
  ForRandomProblems(5, 50, [](const ConvProblem& p) {
    const CaseInputs in = RandomInputs(p, 19);
    for (Direction d : AllDirections())
      ASSERT_EQ(MustCompute(p, d, in).result.values, MustCompute(p, d, in).result.values)
          << Describe(p) << " " << DirectionName(d);
  });
}

TEST(CaseReference, InvalidProblemGivesStatusNotException) {
  ConvProblem groups_mismatch;
  groups_mismatch.in_channels = 4, groups_mismatch.out_channels = 3, groups_mismatch.groups = 3;
  ConvProblem big_output_padding;
  big_output_padding.transposed = true;
  big_output_padding.stride = {2, 2, 1}, big_output_padding.dilation = {3, 1, 1};
  big_output_padding.output_padding = {2, 2, 0};  // dim 1: 2 ≥ max(2, 1)
  ConvProblem kernel_too_big;
  kernel_too_big.input = {2, 2, 1}, kernel_too_big.kernel = {4, 1, 1};
  for (const ConvProblem& p : {groups_mismatch, big_output_padding, kernel_too_big}) {
    for (Direction d : AllDirections()) {
      Result<OracleOutput> r = Status::Internal("not run");
      EXPECT_NO_THROW(r = ComputeReference(p, ConvForm(), d, CaseInputs{}, true));
      EXPECT_EQ(r.status().code(), StatusCode::kInvalid) << Describe(p) << r.status().message();
    }
  }
}

TEST(CaseReference, InputOfWrongShapeGivesInvalidStatus) {
  ConvProblem p;
  p.rank = 2, p.in_channels = 2, p.input = {3, 3, 1};
  CaseInputs in = RandomInputs(p, 23);
  in.vars[kInputVar].shape = {1, 2, 3, 2};  // with the values of a 3x3 input
  Result<OracleOutput> r = ComputeReference(p, ConvForm(), Direction::kForward, in, false);
  EXPECT_EQ(r.status().code(), StatusCode::kInvalid);
  EXPECT_NE(r.status().message().find("%x must have shape [1, 2, 3, 3]"), std::string::npos)
      << r.status().message();
  in = RandomInputs(p, 23);
  in.vars[kWeightVar].values.pop_back();
  r = ComputeReference(p, ConvForm(), Direction::kBackwardData, in, false);
  EXPECT_EQ(r.status().code(), StatusCode::kInvalid) << r.status().message();
}

// The architecture relies on float64 running ATen's own slow paths, never oneDNN.
TEST(TorchOracleTest, VersionAndBackendDescribeTheSlowFloat64Paths) {
  EXPECT_EQ(TorchOracle::TorchVersion().substr(0, 2), "1.");
  const std::string backend = TorchOracle::Backend();
  EXPECT_NE(backend.find("SlowTranspose3d"), std::string::npos) << backend;
  EXPECT_EQ(backend.find("Mkldnn"), std::string::npos) << backend;
  ConvProblem p;
  p.rank = 3, p.transposed = true;
  EXPECT_EQ(TorchOracle::Backend(p), "SlowTranspose3d");
  p.transposed = false, p.dilation = {2, 1, 1}, p.input = {3, 1, 1};
  EXPECT_EQ(TorchOracle::Backend(p), "SlowDilated3d");
}

}  // namespace
}  // namespace convparity
