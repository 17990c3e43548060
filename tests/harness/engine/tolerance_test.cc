// Justifies the error-bound constant c (docs/TOLERANCE.md): correct kernels that add in four
// different orders never exceed the bound on at least 10^6 checked elements per direction and
// distribution, while a bfloat16 accumulator and a kernel that drops one term are caught. And the
// bound of chains (c·u·Σ√K·A, oracles/graph_oracle.h): the residual block interpreted in the same
// orders stays within it, a bfloat16 accumulator does not.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <map>

#include "core/graph.h"
#include "generators/problem_gen.h"
#include "harness/engine/check_case.h"
#include "kernels/direct_conv.h"
#include "kernels/graph/interpreter.h"
#include "kernels/graph/passes.h"

namespace convparity {
namespace {

constexpr int64_t kElementsPerCell = 1000000;

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
  Sut* correct[] = {&sequential, &reverse, &pairwise, &blocked};
  ProblemSpace space;
  space.max_macs = 100000;
  const rc::Gen<ConvProblem> gen = GenProblem(space);
  rc::Random random(static_cast<uint64_t>(d) + 7);

  for (Fill fill : {Fill::kUniform, Fill::kPositive, Fill::kWide}) {
    Tally ok, caught_bf16, caught_drop;
    uint64_t seed = 1;
    while (ok.elements < kElementsPerCell) {
      const ConvProblem p = gen(random.split(), 100).value();
      const PreparedCase prep = PrepareCase(ConvCase{p, d, "", fill, seed++});
      ASSERT_FALSE(prep.ended) << prep.ended->reason;
      for (Sut* sut : correct) {
        const CaseOutcome out = RunPrepared(prep, *sut);
        // A correct order agrees: passed, or mistrusted where the reference is mostly zero. Any
        // other verdict (unwritten, crashed, skipped …) is no evidence for the bound.
        ASSERT_TRUE(out.verdict == Verdict::kPassed || out.verdict == Verdict::kMistrusted)
            << sut->name() << " " << FillName(fill) << ": " << VerdictName(out.verdict) << " "
            << out.reason;
        ok.max_use = std::max(ok.max_use, out.judgement.max_bound_use);
      }
      ok.elements += static_cast<int64_t>(prep.reference.result.values.size());
      ++ok.cases;
      // Detection is judged where the reduction is long enough to matter.
      if (ReductionLength(p, d) >= 16) {
        ++caught_bf16.cases;
        caught_bf16.failed_cases += RunPrepared(prep, bf16).verdict == Verdict::kFailed;
        ++caught_drop.cases;
        caught_drop.failed_cases += RunPrepared(prep, drop).verdict == Verdict::kFailed;
      }
    }
    std::printf(
        "[tolerance] %-10s %-8s %7lld elements in %4lld cases; max bound use %.3f; "
        "bf16 accumulator caught in %lld/%lld, dropped term in %lld/%lld\n",
        DirectionName(d), FillName(fill), static_cast<long long>(ok.elements),
        static_cast<long long>(ok.cases), ok.max_use,
        static_cast<long long>(caught_bf16.failed_cases), static_cast<long long>(caught_bf16.cases),
        static_cast<long long>(caught_drop.failed_cases),
        static_cast<long long>(caught_drop.cases));
    // The README's promise: correct orders stay near half the bound (c = 4 leaves that margin).
    // Measured at most 0.508 (bwd_weight, wide fill, direct-reverse on
    // bwd_weight:2d_g23_ic23_oc92_i6x28_k4x2_s1x3_pb0x1_pe0x4_nhwc_hwio_b, K = 33: a short
    // reduction, no large size) once the space widened (issue 16) and the sample changed.
    EXPECT_LT(ok.max_use, 0.6);
    ASSERT_GT(caught_bf16.cases, 20);
    // The few misses are cases whose lost precision is below float32 rounding noise (a dropped term
    // of 2^-8 magnitude in the wide distribution, a reduction mostly over padding): no bound can
    // see them.
    EXPECT_GE(caught_bf16.failed_cases, caught_bf16.cases * 95 / 100);
    EXPECT_GE(caught_drop.failed_cases, caught_drop.cases * 95 / 100);
  }
}

INSTANTIATE_TEST_SUITE_P(AllDirections, ToleranceTest,
                         ::testing::Values(Direction::kForward, Direction::kBackwardData,
                                           Direction::kBackwardWeight),
                         [](const auto& info) { return std::string(DirectionName(info.param)); });

// A chain case's graph (its gradient for the backward directions, by our gradient pass) run on our
// interpreter with every reduction summed in `order`.
class ChainInInterpreter : public Sut {
 public:
  explicit ChainInInterpreter(SumOrder order) : order_(order) {}
  std::string name() const override { return "chain-interpreter"; }

  GraphRun RunGraph(const ConvProblem& p, const GraphForm& form, Direction d, const Spelling&,
                    const CaseBuffers& b) override {
    Graph g = form.build(GraphProblem(p, d), /*multiplier_weight=*/false);
    if (d != Direction::kForward) {
      Result<Graph> grad = FindGradient("gradient")->run(g, {DifferentiatedVar(d)});
      if (!grad.ok()) return grad.status();
      g = std::move(grad).value();
    }
    CP_RETURN_IF_ERROR(InferShapes(g));
    GraphBindings vars;
    for (const Node& n : g.nodes) {
      if (n.op != OpKind::kVar) continue;
      const float* data = b.Get(n.name);
      if (!data) continue;  // not read: Interpret skips it
      vars[n.name] = HostTensor{n.shape, std::vector<float>(data, data + NumElements(n.shape))};
    }
    Result<std::vector<HostTensor>> out = Interpret(g, vars, order_);
    if (!out.ok()) return out.status();
    std::copy(out->front().values.begin(), out->front().values.end(), b.result);
    return Status::Ok();
  }

 private:
  SumOrder order_;
};

constexpr int64_t kChainElementsPerCell = 200000;

TEST_P(ToleranceTest, ChainsInEveryOrderStayWithinTheirBoundAndBfloat16IsCaught) {
  const Direction d = GetParam();
  ChainInInterpreter sequential(SumOrder::kSequential), reverse(SumOrder::kReverse),
      pairwise(SumOrder::kPairwise), blocked(SumOrder::kBlocked), bf16(SumOrder::kBfloat16);
  Sut* correct[] = {&sequential, &reverse, &pairwise, &blocked};
  ProblemSpace space;
  space.max_macs = 30000;
  const rc::Gen<ConvProblem> gen = GenProblem(space);
  rc::Random random(static_cast<uint64_t>(d) + 17);
  for (Fill fill : {Fill::kUniform, Fill::kPositive, Fill::kWide}) {
    Tally ok, caught_bf16;
    uint64_t seed = 1;
    while (ok.elements < kChainElementsPerCell) {
      const ConvProblem p = gen(random.split(), 100).value();
      ConvCase c{p, d, "", fill, seed++};
      c.graph = &ChainForm();
      const PreparedCase prep = PrepareCase(c);
      ASSERT_FALSE(prep.ended) << prep.ended->reason;
      for (Sut* sut : correct) {
        const CaseOutcome out = RunPrepared(prep, *sut);
        ASSERT_TRUE(out.verdict == Verdict::kPassed || out.verdict == Verdict::kMistrusted)
            << CaseTitle(c) << " " << FillName(fill) << ": " << VerdictName(out.verdict) << " "
            << out.reason;
        ok.max_use = std::max(ok.max_use, out.judgement.max_bound_use);
      }
      ok.elements += static_cast<int64_t>(prep.reference.result.values.size());
      ++ok.cases;
      if (ReductionLength(p, d) >= 16) {
        ++caught_bf16.cases;
        caught_bf16.failed_cases += RunPrepared(prep, bf16).verdict == Verdict::kFailed;
      }
    }
    std::printf(
        "[tolerance chain] %-10s %-8s %7lld elements in %4lld cases; max bound use %.3f; "
        "bf16 accumulator caught in %lld/%lld\n",
        DirectionName(d), FillName(fill), static_cast<long long>(ok.elements),
        static_cast<long long>(ok.cases), ok.max_use,
        static_cast<long long>(caught_bf16.failed_cases),
        static_cast<long long>(caught_bf16.cases));
    EXPECT_LT(ok.max_use, 0.5);
    ASSERT_GT(caught_bf16.cases, 20);
    EXPECT_GE(caught_bf16.failed_cases, caught_bf16.cases * 95 / 100);
  }
}

}  // namespace
}  // namespace convparity
