// Cases per second of the parity check (fill → oracle → direct kernel → judge), one thread, by
// direction and fill, over the default generated space; of the oracle alone (BM_Oracle); and of the
// same check through transform pipelines (`transform:<pass>`, harness/suts/transform_sut.h) against
// `direct` on the same problems, exact fill, of each problem's convolution and of its residual
// block (chain cases); and what a campaign of frontends pays per draw to ask whether a format
// writes it (BM_FormatWrites). Run: ./build/bench/parity_bench
// [--benchmark_filter=BM_CheckTransform]
#include <benchmark/benchmark.h>

#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include "generators/fill.h"
#include "generators/problem_gen.h"
#include "harness/engine/check_case.h"
#include "harness/models/model_formats.h"
#include "harness/suts/sut_registry.h"
#include "kernels/direct_conv.h"
#include "oracles/case_reference.h"

namespace convparity {
namespace {

// Problems drawn once, with sizes swept as in a RapidCheck run, so every benchmark sees the same
// mix.
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

// The oracle alone, on inputs filled beforehand: the reference, and in random mode (uniform) the
// magnitudes of the error bound as well. CPU time is the figure to read on a busy machine.
void BM_Oracle(benchmark::State& state) {
  const Direction d = static_cast<Direction>(state.range(0));
  const Fill fill = static_cast<Fill>(state.range(1));
  std::vector<CaseInputs> inputs;
  for (size_t k = 0; k < 500; ++k) inputs.push_back(FillInputs(Problems()[k], d, fill, k));
  size_t i = 0;
  for (auto _ : state) {
    const size_t k = i % inputs.size();
    benchmark::DoNotOptimize(
        ComputeReference(Problems()[k], ConvForm(), d, inputs[k], fill != Fill::kExact).ok());
    ++i;
  }
  state.SetItemsProcessed(static_cast<int64_t>(i));
  state.SetLabel(std::string(DirectionName(d)) + "/" + FillName(fill));
}

BENCHMARK(BM_Oracle)
    ->ArgsProduct({{0, 1, 2}, {static_cast<int>(Fill::kExact), static_cast<int>(Fill::kUniform)}})
    ->MinTime(3.0)
    ->Unit(benchmark::kMicrosecond);

// The SUTs BM_CheckTransform compares: the direct kernel, then every correct pass alone and the
// two-pass pipeline of the layout promise.
const std::vector<std::string>& TransformBenchSuts() {
  static const std::vector<std::string> suts{"direct",
                                             "transform:legalize",
                                             "transform:convert_layout",
                                             "transform:fold_constants",
                                             "transform:convert_layout,fold_constants",
                                             "transform:lower_conv1d",
                                             "transform:canonicalize_depthwise",
                                             "transform:transpose_to_conv",
                                             "transform:split_groups"};
  return suts;
}

// Cases/s of a check through a SUT by name (the oracle's share included, as in a campaign), of the
// graph form the third argument indexes (core/case_graphs.h GraphForms(): 0 the problem's
// convolution, 1 its residual block, judged against the graph oracle). The `passed` counter is
// the share of cases that passed (the rest ended early or were skipped: a pass that finds nothing
// to rewrite still runs the graph, so every share should be near direct's). NOTE: the direct
// kernel skips graphs after their fill and oracle ran: its chain row is that preparation alone.
void BM_CheckTransform(benchmark::State& state) {
  const Direction d = static_cast<Direction>(state.range(0));
  const std::string& name = TransformBenchSuts()[static_cast<size_t>(state.range(1))];
  const GraphForm& form = GraphForms().at(static_cast<size_t>(state.range(2)));
  Result<std::unique_ptr<Sut>> sut = MakeSut(name);
  if (!sut.ok()) {
    state.SkipWithError(sut.status().message().c_str());
    return;
  }
  size_t i = 0;
  int64_t passed = 0;
  for (auto _ : state) {
    ConvCase c{Problems()[i % Problems().size()], d, name, Fill::kExact, i};
    c.graph = &form;
    const Verdict v = CheckCase(c, **sut).verdict;
    passed += v == Verdict::kPassed;
    ++i;
  }
  state.SetItemsProcessed(static_cast<int64_t>(i));
  state.counters["passed"] =
      static_cast<double>(passed) / static_cast<double>(std::max<size_t>(i, 1));
  state.SetLabel(std::string(DirectionName(d)) + " " + name + " " + form.name +
                 (form != ConvForm() && !RunsGraphs(name) ? " (fill + oracle only)" : ""));
}

BENCHMARK(BM_CheckTransform)
    ->ArgsProduct({{0, 1, 2}, benchmark::CreateDenseRange(0, 8, 1), {0, 1}})
    ->MinTime(1.0)
    ->Unit(benchmark::kMicrosecond);

// The SUT's share alone: the same SUTs over 200 cases prepared (filled, oracle run) beforehand,
// each iteration RunPrepared (SUT + judge), of the convolution or (third argument 1) of the chain.
// Shows what a pipeline adds to the direct kernel, and what a chain's interpretation costs.
void BM_RunPreparedTransform(benchmark::State& state) {
  const Direction d = static_cast<Direction>(state.range(0));
  const std::string& name = TransformBenchSuts()[static_cast<size_t>(state.range(1))];
  const GraphForm& form = GraphForms().at(static_cast<size_t>(state.range(2)));
  Result<std::unique_ptr<Sut>> sut = MakeSut(name);
  if (!sut.ok()) {
    state.SkipWithError(sut.status().message().c_str());
    return;
  }
  std::vector<PreparedCase> prepared;
  for (size_t k = 0; k < 200; ++k) {
    ConvCase c{Problems()[k], d, name, Fill::kExact, k};
    c.graph = &form;
    prepared.push_back(PrepareCase(c));
  }
  size_t i = 0;
  for (auto _ : state) {
    benchmark::DoNotOptimize(RunPrepared(prepared[i % prepared.size()], **sut).verdict);
    ++i;
  }
  state.SetItemsProcessed(static_cast<int64_t>(i));
  state.SetLabel(std::string(DirectionName(d)) + " " + name + " " + form.name +
                 (form != ConvForm() && !RunsGraphs(name) ? " (skipped)" : ""));
}

BENCHMARK(BM_RunPreparedTransform)
    ->ArgsProduct({{0, 1, 2}, benchmark::CreateDenseRange(0, 8, 1), {0, 1}})
    ->MinTime(0.5)
    ->Unit(benchmark::kMicrosecond);

// What a campaign of frontends pays per draw to know whether a reader's format writes it
// (harness/models/model_formats.h FormatWrites), by format and direction, over the same problems
// each with a spelling drawn as campaigns draw it. CPU time is the figure to read.
void BM_FormatWrites(benchmark::State& state) {
  const ModelFormat& format = ModelFormats()[static_cast<size_t>(state.range(0))];
  const Direction d = static_cast<Direction>(state.range(1));
  const rc::Gen<Spelling> spellings = GenSpelling(SpellingMask::AllBut(format.unwritten));
  rc::Random random(2026);
  std::vector<std::pair<ConvProblem, Spelling>> cases;
  for (const ConvProblem& p : Problems()) {
    const Spelling s = FitSpelling(spellings(random.split(), rc::kNominalSize).value(), p);
    ConvProblem conformed = p;
    ConformToSpelling(s, conformed);
    cases.emplace_back(conformed, s);
  }
  size_t i = 0, written = 0;
  for (auto _ : state) {
    const auto& [p, s] = cases[i % cases.size()];
    written += FormatWrites(format, p, ConvForm(), d, s).ok() ? 1 : 0;
    ++i;
  }
  state.SetItemsProcessed(static_cast<int64_t>(i));
  state.SetLabel(std::string(format.name) + " " + DirectionName(d) + ", " +
                 std::to_string(100 * written / std::max<size_t>(i, 1)) + "% written");
}

BENCHMARK(BM_FormatWrites)
    ->ArgsProduct({{0, 1}, {0, 1, 2}})
    ->MinTime(1.0)
    ->Unit(benchmark::kMicrosecond);

}  // namespace
}  // namespace convparity

BENCHMARK_MAIN();
