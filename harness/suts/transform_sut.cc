#include "harness/suts/transform_sut.h"

#include <algorithm>
#include <cstring>
#include <iterator>
#include <optional>

#include "core/graph.h"
#include "core/graph_printer.h"
#include "core/prng.h"
#include "harness/suts/sut_family.h"
#include "kernels/graph/interpreter.h"
#include "kernels/graph/passes.h"
#include "kernels/known_bugs/known_bugs.h"

namespace convparity {
namespace {

constexpr const char* kDefaultGradient = "gradient";

struct Pipeline {
  const GradientInfo* gradient = nullptr;  // never null after parsing
  std::vector<const PassInfo*> passes;
};

bool StartsWith(const std::string& s, const std::string& prefix) {
  return s.compare(0, prefix.size(), prefix) == 0;
}

Result<Pipeline> ParsePipeline(const std::string& sut) {
  if (!IsTransformSutName(sut))
    return Status::Invalid("'" + sut + "' is not a transform pipeline (transform:<pass>,…)");
  const std::string list = sut.substr(std::strlen(kTransformSutPrefix));
  Pipeline pipeline;
  std::vector<std::string> names;
  for (size_t start = 0;;) {
    const size_t comma = list.find(',', start);
    names.push_back(
        list.substr(start, comma == std::string::npos ? std::string::npos : comma - start));
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  for (size_t k = 0; k < names.size(); ++k) {
    const std::string& name = names[k];
    if (name.empty())
      return Status::Invalid("transform pipeline '" + sut +
                             "' has an empty pass name at position " + std::to_string(k + 1));
    if (k == 0 && FindGradient(name)) {
      pipeline.gradient = FindGradient(name);
      continue;
    }
    const PassInfo* pass = FindPass(name);
    if (!pass)
      return Status::Invalid("transform pipeline '" + sut + "': unknown pass '" + name + "'" +
                             (FindGradient(name) ? " (a gradient comes first)" : "") +
                             " (see `convparity list`)");
    pipeline.passes.push_back(pass);
  }
  if (!pipeline.gradient) pipeline.gradient = FindGradient(kDefaultGradient);
  if (!pipeline.gradient)
    return Status::Internal("no gradient named '" + std::string(kDefaultGradient) + "'");
  return pipeline;
}

bool NeedsFrozenWeights(const Pipeline& pl) {
  return std::any_of(pl.passes.begin(), pl.passes.end(),
                     [](const PassInfo* p) { return p->needs_frozen_weights; });
}

bool NeedsMultiplierWeights(const Pipeline& pl) {
  return std::any_of(pl.passes.begin(), pl.passes.end(),
                     [](const PassInfo* p) { return p->needs_multiplier_weights; });
}

bool IsOwnVar(const GraphForm& form, const ConvProblem& p, const std::string& name) {
  for (const CaseVar& var : form.vars(p))
    if (var.name == name) return true;
  return false;
}

// The graph a pipeline made, and the promise its last pass broke, if one did (the passes stop
// there).
struct BuiltGraph {
  Graph graph;
  std::string broken_promise;  // "<pass>: <what>"; empty: every promise held
};

// Builds the graph the pipeline runs: the case's graph, gradient, frozen weights, the passes with
// their promises checked. `buffers`: the values of frozen vars (null: zeros, for the text only).
Result<BuiltGraph> BuildGraph(const Pipeline& pl, const ConvProblem& p, Direction d,
                              const GraphForm& form, const CaseBuffers* buffers,
                              Graph* forward_out = nullptr) {
  const ConvProblem q = GraphProblem(p, d);
  Graph g = form.build(q, NeedsMultiplierWeights(pl));
  CP_RETURN_IF_ERROR(InferShapes(g).WithContext("the forward graph"));
  if (forward_out) *forward_out = g;
  if (d != Direction::kForward) {
    Result<Graph> grad = pl.gradient->run(g, {DifferentiatedVar(d)});
    if (!grad.ok()) return grad.status().WithContext(pl.gradient->name);
    g = std::move(grad).value();
    CP_RETURN_IF_ERROR(InferShapes(g).WithContext("after " + pl.gradient->name));
  }
  // Frozen weights: what constant folding works on. A form's own vars are weights too.
  if (NeedsFrozenWeights(pl)) {
    for (Node& n : g.nodes) {
      if (n.op != OpKind::kVar) continue;
      const bool weight = n.name == kWeightVar && d != Direction::kBackwardWeight;
      const bool bias = n.name == kBiasVar;
      if (!weight && !bias && !IsOwnVar(form, p, n.name)) continue;
      const float* data = buffers ? buffers->Get(n.name) : nullptr;
      const int64_t count = NumElements(n.shape);
      HostTensor value{n.shape, std::vector<float>(static_cast<size_t>(count), 0.0f)};
      if (data) std::copy(data, data + count, value.values.begin());
      n.op = OpKind::kConst;
      n.value = std::move(value);
    }
  }
  for (const PassInfo* pass : pl.passes) {
    const Graph before = g;
    CP_RETURN_IF_ERROR(pass->run(g).WithContext(pass->name));
    CP_RETURN_IF_ERROR(InferShapes(g).WithContext("after " + pass->name));
    if (Status kept = pass->check_promise(before, g); !kept.ok())
      return BuiltGraph{std::move(g), pass->name + ": " + kept.message()};
  }
  return BuiltGraph{std::move(g), ""};
}

class TransformSut : public Sut {
 public:
  TransformSut(std::string name, Pipeline pipeline)
      : name_(std::move(name)), pipeline_(std::move(pipeline)) {}
  std::string name() const override { return name_; }

  GraphRun RunGraph(const ConvProblem& p, const GraphForm& form, Direction d, const Spelling&,
                    const CaseBuffers& buffers) override {
    CP_RETURN_IF_ERROR(Validate(p));
    Result<BuiltGraph> built = BuildGraph(pipeline_, p, d, form, &buffers);
    if (!built.ok()) return built.status();
    if (!built->broken_promise.empty())
      return GraphRun::Ended(Verdict::kBrokenPromise, built->broken_promise);
    const Graph& g = built->graph;
    // The vars a case of any direction has: what a pipeline's graph may read.
    std::map<std::string, int64_t> elements;
    for (Direction any : AllDirections())
      for (const CaseVar& var : CaseVars(form, p, any)) elements[var.name] = NumElements(var.shape);
    GraphBindings vars;
    for (const Node& n : g.nodes) {
      if (n.op != OpKind::kVar || vars.count(n.name)) continue;
      auto known = elements.find(n.name);
      if (known == elements.end())
        return Status::Invalid("the transformed graph has a var %" + n.name +
                               " that no buffer binds");
      if (NumElements(n.shape) != known->second)
        return Status::Invalid("the transformed graph's var %" + n.name + " has shape " +
                               ShapeText(n.shape) + ", its buffer holds " +
                               std::to_string(known->second) + " elements");
      // A var the outputs do not need may stay unbound (Interpret skips it).
      const float* data = buffers.Get(n.name);
      if (!data) continue;
      vars[n.name] = HostTensor{n.shape, std::vector<float>(data, data + known->second)};
    }
    Result<std::vector<HostTensor>> out = Interpret(g, vars);
    if (!out.ok()) return out.status().WithContext("interpreting the transformed graph");
    const Shape want = MemoryShape(ResultShape(p, d), ResultMemoryOrder(p, d));
    if (out->size() != 1)
      return Status::Invalid("the transformed graph has " + std::to_string(out->size()) +
                             " outputs, expected 1");
    const HostTensor& r = (*out)[0];
    // The weight gradient of a multiplier-represented weight has the groups form's memory.
    if (r.shape != want && NumElements(r.shape) != NumElements(want))
      return GraphRun::Ended(Verdict::kShapeMismatch, "the transformed graph's output has shape " +
                                                          ShapeText(r.shape) + ", expected " +
                                                          ShapeText(want));
    if (r.shape != want && !(d == Direction::kBackwardWeight && HasMultiplierRepresentation(p) &&
                             NeedsMultiplierWeights(pipeline_)))
      return GraphRun::Ended(Verdict::kShapeMismatch, "the transformed graph's output has shape " +
                                                          ShapeText(r.shape) + ", expected " +
                                                          ShapeText(want));
    std::copy(r.values.begin(), r.values.end(), buffers.result);
    return Status::Ok();
  }

 private:
  std::string name_;
  Pipeline pipeline_;
};

// The correct passes, in the order of AllPasses: what random pipelines draw from.
std::vector<const char*> CorrectPasses() {
  std::vector<const char*> names;
  for (const PassInfo& p : AllPasses())
    if (p.reproduces.empty()) names.push_back(p.name.c_str());
  return names;
}

}  // namespace

bool IsTransformSutName(const std::string& name) { return StartsWith(name, kTransformSutPrefix); }

Result<std::unique_ptr<Sut>> MakeTransformSut(const std::string& name,
                                              const std::string& display_name) {
  Result<Pipeline> pl = ParsePipeline(name);
  if (!pl.ok()) return pl.status();
  return std::unique_ptr<Sut>(
      new TransformSut(display_name.empty() ? name : display_name, std::move(pl).value()));
}

Result<TransformGraphs> DescribeTransform(const std::string& sut, const ConvProblem& p, Direction d,
                                          const GraphForm& form) {
  const std::string name = TransformSutOf(sut);
  Result<Pipeline> pl = ParsePipeline(name.empty() ? sut : name);
  if (!pl.ok()) return pl.status();
  TransformGraphs t;
  if (d != Direction::kForward) t.pipeline.push_back(pl->gradient->name);
  for (const PassInfo* pass : pl->passes) t.pipeline.push_back(pass->name);
  Graph forward;
  Result<BuiltGraph> after = BuildGraph(*pl, p, d, form, nullptr, &forward);
  t.before = GraphText(forward);
  const std::string no_graph = !after.ok() ? after.status().message() : after->broken_promise;
  t.after = no_graph.empty() ? GraphText(after->graph) : "(no graph: " + no_graph + ")\n";
  return t;
}

void AddTransformGraphs(Finding& f) {
  const std::string sut = TransformSutOf(f.minimized.sut);
  if (sut.empty()) return;
  Result<TransformGraphs> t =
      DescribeTransform(sut, f.minimized.problem, f.minimized.direction, *f.minimized.graph);
  if (!t.ok()) return;
  f.transform_pipeline = t->pipeline;
  f.graph_before = t->before;
  f.graph_after = t->after;
  auto field = [&](const ConvCase& c) -> std::optional<TransformGraph> {
    Result<TransformGraphs> g = DescribeTransform(sut, c.problem, c.direction, *c.graph);
    if (!g.ok()) return std::nullopt;
    return TransformGraph{g->pipeline, g->before};
  };
  f.minimized.transform = field(f.minimized);
  f.original.transform = field(f.original);
}

std::string TransformSutOf(const std::string& name) {
  if (IsTransformSutName(name)) return name;
  const std::string known = "known-bug:";
  if (StartsWith(name, known))
    if (const KnownBugInfo* b = FindKnownBug(name.substr(known.size()));
        b && b->kind == KnownBugKind::kTransform)
      return kTransformSutPrefix + b->pipeline;
  return "";
}

std::vector<std::string> DefaultTransformSuts() {
  std::vector<std::string> suts;
  for (const PassInfo& p : AllPasses())
    if (!p.default_pipeline.empty()) suts.push_back(kTransformSutPrefix + p.default_pipeline);
  return suts;
}

std::vector<std::pair<std::string, std::string>> ListTransforms() {
  std::vector<std::pair<std::string, std::string>> all;
  for (const GradientInfo& g : AllGradients())
    all.emplace_back(g.name, g.summary + " (backward directions; may come first)");
  for (const PassInfo& p : AllPasses()) all.emplace_back(p.name, p.summary);
  return all;
}

std::string RandomTransformSut(uint64_t seed, int64_t index) {
  Prng prng(MixSeed(seed ^ 0x7A4A5F0Bull, static_cast<uint64_t>(index)));
  // 1–3 distinct passes in a random order (a partial Fisher–Yates shuffle).
  std::vector<const char*> passes = CorrectPasses();
  const int64_t n = prng.Between(1, 3);
  std::string name = kTransformSutPrefix;
  for (int64_t k = 0; k < n; ++k) {
    std::swap(passes[k], passes[k + prng.Below(passes.size() - k)]);
    name += (k ? "," : "") + std::string(passes[k]);
  }
  return name;
}

SutFamily TransformFamily() {
  SutFamily f;
  f.name = "transform";
  f.owns = OwnsPrefix(kTransformSutPrefix);
  f.make = [](const std::string& sut, const SutConfig&) { return MakeTransformSut(sut); };
  f.list = [] {
    std::vector<SutListing> all;
    for (const std::string& t : DefaultTransformSuts())  // one-pass pipelines: with the passes
      if (t.find(',') != std::string::npos)
        all.push_back(
            {t, "a transform pipeline run on our kernels (any passes below, comma-separated)"});
    for (const auto& [pass, what] : ListTransforms())
      all.push_back({kTransformSutPrefix + pass, what});
    return all;
  };
  f.default_members = DefaultTransformSuts;
  f.case_members = [](uint64_t seed, int64_t index) {
    return std::vector<std::string>{RandomTransformSut(seed, index)};
  };
  f.runs_graphs = [](const std::string&) { return true; };
  f.describe_finding = AddTransformGraphs;
  return f;
}

}  // namespace convparity
