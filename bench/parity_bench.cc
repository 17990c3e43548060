// Cases per second of the parity check (fill → oracle → direct kernel → judge), one thread, by direction
// and fill, over the default generated space. Run: ./build/bench/parity_bench
#include <benchmark/benchmark.h>

#include <vector>

#include "generators/problem_gen.h"
#include "harness/check_case.h"
#include "kernels/direct_conv.h"

namespace convparity {
namespace {

// Problems drawn once, with sizes swept as in a RapidCheck run, so every benchmark sees the same mix.
const std::vector<ConvProblem>& Problems() {
  static const std::vector<ConvProblem> problems = [] {
    std::vector<ConvProblem> out;
    const rc::Gen<ConvProblem> gen = GenProblem();
    rc::Random random(2026);
    for (int i = 0; i < 2000; ++i) out.push_back(gen(random.split(), i % 101).value());
    return out;
  }();
  return problems;
}

void BM_CheckCase(benchmark::State& state) {
  const Direction d = static_cast<Direction>(state.range(0));
  const Fill fill = static_cast<Fill>(state.range(1));
  DirectConv direct;
  size_t i = 0;
  for (auto _ : state) {
    ConvCase c{Problems()[i % Problems().size()], d, "direct", fill, i};
    benchmark::DoNotOptimize(CheckCase(c, direct).verdict);
    ++i;
  }
  state.SetItemsProcessed(static_cast<int64_t>(i));
  state.SetLabel(std::string(DirectionName(d)) + "/" + FillName(fill));
}

BENCHMARK(BM_CheckCase)
    ->ArgsProduct({{0, 1, 2}, {static_cast<int>(Fill::kExact), static_cast<int>(Fill::kUniform)}})
    ->MinTime(3.0)
    ->Unit(benchmark::kMicrosecond);

}  // namespace
}  // namespace convparity

BENCHMARK_MAIN();
