// Justifies the error-bound constant c (TOLERANCE.md): correct kernels that add in four different orders
// never exceed the bound on at least 10^6 checked elements per direction and distribution, while a
// bfloat16 accumulator and a kernel that drops one term are caught.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <map>

#include "core/tensor.h"
#include "generators/fill.h"
#include "generators/problem_gen.h"
#include "harness/judge.h"
#include "kernels/direct_conv.h"
#include "oracles/torch_oracle.h"

namespace convparity {
namespace {

constexpr int64_t kElementsPerCell = 1000000;

// Runs `sut` on a case whose oracle output is already known; returns its judgement.
Judgement RunAndJudge(ConvSut& sut, const ConvProblem& p, Direction d, Fill fill,
                      const CaseInputs& in, const OracleOutput& ref) {
  const std::vector<float> x = ToMemoryOrder(in.input, DataMemoryOrder(p));
  const std::vector<float> w = ToMemoryOrder(in.weight, WeightMemoryOrder(p));
  const std::vector<float> dy = ToMemoryOrder(in.grad_output, DataMemoryOrder(p));
  const Shape shape = ResultShape(p, d);
  std::vector<float> result(NumElements(shape), PoisonValue());
  ConvBuffers b{x.data(), w.data(), in.bias.values.empty() ? nullptr : in.bias.values.data(),
                dy.data(), result.data()};
  EXPECT_TRUE(sut.Run(p, d, b).ok());
  HostTensor got = FromMemoryOrder(shape, result, ResultMemoryOrder(p, d));
  int64_t k = ReductionLength(p, d) + (d == Direction::kForward && p.bias ? 1 : 0);
  return Judge(ref.result.shape, ref.result.values, ref.magnitude.values, got, fill, k);
}

struct Tally {
  int64_t elements = 0, cases = 0, failed_cases = 0;
  double max_use = 0;
};

class ToleranceTest : public ::testing::TestWithParam<Direction> {};

TEST_P(ToleranceTest, CorrectOrdersStayWithinBoundAndWrongAccumulatorsAreCaught) {
  const Direction d = GetParam();
  DirectConv sequential(SumOrder::kSequential), reverse(SumOrder::kReverse),
      pairwise(SumOrder::kPairwise), blocked(SumOrder::kBlocked), bf16(SumOrder::kBfloat16),
      drop(SumOrder::kDropOneTerm);
  ConvSut* correct[] = {&sequential, &reverse, &pairwise, &blocked};
  ProblemSpace space;
  space.max_macs = 100000;
  const rc::Gen<ConvProblem> gen = GenProblem(space);
  rc::Random random(static_cast<uint64_t>(d) + 7);

  for (Fill fill : {Fill::kUniform, Fill::kPositive, Fill::kWide}) {
    Tally ok, caught_bf16, caught_drop;
    uint64_t seed = 1;
    while (ok.elements < kElementsPerCell) {
      const ConvProblem p = gen(random.split(), 100).value();
      const CaseInputs in = FillInputs(p, d, fill, seed++);
      Result<OracleOutput> ref = TorchOracle::Compute(p, d, in, /*with_magnitude=*/true);
      ASSERT_TRUE(ref.ok()) << ref.status().message();
      for (ConvSut* sut : correct) {
        Judgement j = RunAndJudge(*sut, p, d, fill, in, *ref);
        ASSERT_NE(j.verdict, Verdict::kFailed)
            << sut->name() << " " << FillName(fill) << ": bound use " << j.max_bound_use;
        ok.max_use = std::max(ok.max_use, j.max_bound_use);
      }
      ok.elements += static_cast<int64_t>(ref->result.values.size());
      ++ok.cases;
      // Detection is judged where the reduction is long enough to matter.
      if (ReductionLength(p, d) >= 16) {
        ++caught_bf16.cases;
        caught_bf16.failed_cases += RunAndJudge(bf16, p, d, fill, in, *ref).verdict == Verdict::kFailed;
        ++caught_drop.cases;
        caught_drop.failed_cases += RunAndJudge(drop, p, d, fill, in, *ref).verdict == Verdict::kFailed;
      }
    }
    std::printf("[tolerance] %-10s %-8s %7lld elements in %4lld cases; max bound use %.3f; "
                "bf16 accumulator caught in %lld/%lld, dropped term in %lld/%lld\n",
                DirectionName(d), FillName(fill), static_cast<long long>(ok.elements),
                static_cast<long long>(ok.cases), ok.max_use,
                static_cast<long long>(caught_bf16.failed_cases),
                static_cast<long long>(caught_bf16.cases),
                static_cast<long long>(caught_drop.failed_cases),
                static_cast<long long>(caught_drop.cases));
    EXPECT_LT(ok.max_use, 1.0);
    ASSERT_GT(caught_bf16.cases, 20);
    // The few misses are cases whose lost precision is below float32 rounding noise (a dropped term of
    // 2^-8 magnitude in the wide distribution, a reduction mostly over padding): no bound can see them.
    EXPECT_GE(caught_bf16.failed_cases, caught_bf16.cases * 9 / 10);
    EXPECT_GE(caught_drop.failed_cases, caught_drop.cases * 9 / 10);
  }
}

INSTANTIATE_TEST_SUITE_P(AllDirections, ToleranceTest,
                         ::testing::Values(Direction::kForward, Direction::kBackwardData,
                                           Direction::kBackwardWeight),
                         [](const auto& info) { return std::string(DirectionName(info.param)); });

}  // namespace
}  // namespace convparity
