// libFuzzer target over the graph transforms (kernels/graph/passes.h): bytes → a case (the byte
// decoder, as fuzz_parity reads it, so its seeds serve here too; every case chooses its graph form,
// as a graph SUT's does) → the case's graph (core/case_graphs.h: the convolution or the graph
// of the case's form, or its Gradient for a backward direction) → a pipeline of passes → both
// graphs interpreted on our kernels with exact fill. They must agree bitwise (every partial sum is
// exact, so no summation order can excuse a difference), every pass must succeed, keep shapes and
// keep its structural promise. No oracle: the untransformed graph is the reference, which makes
// this target fast.
//
// Bytes after the case: whether the weights are frozen into constants (what fold_constants and
// convert_layout work on), the pipeline's length (1–4) and its passes, each by index. The passes
// are the correct ones; $CONVPARITY_FUZZ_PASSES (comma-separated names, buggy variants such as
// lower_conv1d@tvm-7912 included) picks others, to hunt a reproduced bug. A finding is printed,
// written as a `transform:<pipeline>` case into $CONVPARITY_FUZZ_OUT/corpus, and aborts.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "core/descriptor.h"
#include "core/graph.h"
#include "generators/byte_decoder.h"
#include "generators/fill.h"
#include "harness/io/files.h"
#include "harness/io/fuzz_support.h"
#include "kernels/graph/interpreter.h"
#include "kernels/graph/passes.h"

namespace convparity {
namespace {

constexpr int kMaxPipeline = 4;

struct Target {
  ByteDecoderOptions options;
  std::vector<const PassInfo*> passes;
  std::string out;
};

Target& TheTarget() {
  static Target* target = [] {
    auto* t = new Target;
    Result<ByteDecoderOptions> options = FuzzDecoderOptions();
    if (!options.ok()) ExitOnBadSetup("fuzz_transforms", options.status());
    t->options = *options;
    t->options.runs_graphs = [](const std::string&) { return true; };  // passes run graphs
    Result<std::vector<std::string>> names = NamesFromEnv("CONVPARITY_FUZZ_PASSES");
    if (!names.ok()) ExitOnBadSetup("fuzz_transforms", names.status());
    for (const std::string& name : *names) {
      const PassInfo* pass = FindPass(name);
      if (pass == nullptr)
        ExitOnBadSetup("fuzz_transforms",
                       Status::Invalid("CONVPARITY_FUZZ_PASSES: unknown pass '" + name + "'"));
      t->passes.push_back(pass);
    }
    if (names->empty())
      for (const PassInfo& pass : AllPasses())
        if (pass.name.find('@') == std::string::npos) t->passes.push_back(&pass);
    t->out = FuzzOutDir();
    return t;
  }();
  return *target;
}

// The vars of `g` bound to the case's filled inputs, each in its memory order (core/case_graphs.h
// CaseVars). A var the direction does not read is bound to zeros.
GraphBindings Bind(const Graph& g, const std::vector<CaseVar>& case_vars, const CaseInputs& in) {
  GraphBindings vars;
  for (const Node& n : g.nodes) {
    if (n.op != OpKind::kVar) continue;
    const auto var = std::find_if(case_vars.begin(), case_vars.end(),
                                  [&](const CaseVar& v) { return v.name == n.name; });
    vars[n.name] =
        var != case_vars.end()
            ? HostTensor{n.shape, ToMemoryOrder(in.Get(n.name), var->memory_order)}
            : HostTensor{n.shape, std::vector<float>(static_cast<size_t>(NumElements(n.shape)))};
  }
  return vars;
}

// Frozen weights: the weight (and bias, and a form's own) vars become constants holding their
// bound values.
void Freeze(Graph& g, const std::vector<CaseVar>& own_vars, GraphBindings& vars) {
  for (Node& n : g.nodes) {
    const bool own = std::any_of(own_vars.begin(), own_vars.end(),
                                 [&](const CaseVar& v) { return v.name == n.name; });
    if (n.op != OpKind::kVar || (n.name != kWeightVar && n.name != kBiasVar && !own)) continue;
    n.op = OpKind::kConst;
    n.value = vars[n.name];
    vars.erase(n.name);
  }
}

[[noreturn]] void Finding(const Target& t, const ConvCase& c, const std::vector<std::string>& steps,
                          bool frozen, const std::string& what) {
  std::string pipeline;
  for (const std::string& s : steps) pipeline += (pipeline.empty() ? "" : ",") + s;
  ConvCase found = c;
  found.sut = "transform:" + pipeline;
  found.fill = Fill::kExact;
  // A pipeline that fails or leaves a graph it should not is the transform SUT's broken promise.
  CaseOutcome outcome;
  outcome.verdict = Verdict::kBrokenPromise;
  outcome.reason = what + (frozen ? " (weights frozen)" : "");
  Result<std::string> report = WriteFuzzFinding(t.out, found, outcome);
  std::fprintf(stderr, "fuzz_transforms: %s %s%s: %s\n  report %s\n", CaseTitle(c).c_str(),
               found.sut.c_str(), frozen ? " (weights frozen)" : "", what.c_str(),
               report.ok() ? report->c_str() : report.status().message().c_str());
  std::fflush(stderr);
  std::abort();
}

}  // namespace
}  // namespace convparity

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  convparity::TheTarget();
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace convparity;
  const Target& t = TheTarget();
  size_t used = 0;
  ConvCase c = DecodeCase(data, size, t.options, &used);
  ByteReader rest(data + std::min(used, size), size - std::min(used, size));
  const ConvProblem& p = c.problem;
  const Direction d = c.direction;
  if (!ChooseExactRange(p, d, *c.graph).exact) return 0;  // bitwise equality needs exact sums
  const bool freeze = rest.Int(0, 1) == 1 && d != Direction::kBackwardWeight;
  std::vector<const PassInfo*> pipeline(static_cast<size_t>(rest.Int(1, kMaxPipeline)));
  for (const PassInfo*& pass : pipeline)
    pass = t.passes[static_cast<size_t>(rest.Int(0, static_cast<int64_t>(t.passes.size()) - 1))];

  // The depthwise multiplier representation is what canonicalize_depthwise rewrites.
  const Graph forward = c.graph->build(p, /*multiplier_weight=*/c.seed % 2 == 1);
  std::vector<std::string> steps;
  Graph original = forward;
  if (d != Direction::kForward) {
    steps.push_back("gradient");
    Result<Graph> grad = Gradient(forward, {DifferentiatedVar(d)});
    if (!grad.ok()) Finding(t, c, steps, freeze, "gradient failed: " + grad.status().message());
    original = *grad;
  }
  const CaseInputs inputs = FillInputs(p, d, Fill::kExact, c.seed, *c.graph);
  GraphBindings vars = Bind(original, CaseVars(*c.graph, p, d), inputs);
  if (freeze) Freeze(original, c.graph->vars(p), vars);
  if (Status st = InferShapes(original); !st.ok())
    Finding(t, c, steps, freeze, "the starting graph is malformed: " + st.message());

  Graph g = original;
  for (const PassInfo* pass : pipeline) {
    steps.push_back(pass->name);
    const Graph before = g;
    if (Status st = pass->run(g); !st.ok()) Finding(t, c, steps, freeze, "failed: " + st.message());
    if (Status st = InferShapes(g); !st.ok())
      Finding(t, c, steps, freeze, "left a malformed graph: " + st.message());
    if (Status st = pass->check_promise(before, g); !st.ok())
      Finding(t, c, steps, freeze, "broke its promise: " + st.message());
  }
  Result<std::vector<HostTensor>> want = Interpret(original, vars);
  if (!want.ok()) Finding(t, c, {}, freeze, "the original graph fails: " + want.status().message());
  Result<std::vector<HostTensor>> got = Interpret(g, vars);
  if (!got.ok()) Finding(t, c, steps, freeze, "the result fails: " + got.status().message());
  if (got->size() != want->size()) Finding(t, c, steps, freeze, "another number of outputs");
  for (size_t k = 0; k < want->size(); ++k) {
    const HostTensor &a = (*want)[k], &b = (*got)[k];
    if (a.shape != b.shape)
      Finding(t, c, steps, freeze,
              "output shape " + ShapeText(b.shape) + ", expected " + ShapeText(a.shape));
    if (std::memcmp(a.values.data(), b.values.data(), a.values.size() * sizeof(float)) != 0)
      Finding(t, c, steps, freeze, "the result differs from the untransformed graph's");
  }
  return 0;
}
