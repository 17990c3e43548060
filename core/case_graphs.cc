#include "core/case_graphs.h"

#include <algorithm>

#include "core/graph.h"

namespace convparity {
namespace {

// The fill streams of the problem's vars and of the chain's %w2 (CaseVar::stream): fixed forever.
constexpr uint64_t kInputStream = 1, kWeightStream = 2, kBiasStream = 3, kGradOutputStream = 4;
constexpr uint64_t kChainWeightStream = 5;

// The chain's %w2 is ±2 in exact mode, so that y1 + w2·y1 never cancels to zero where y1 is odd
// (with ±1, half of all 1×1 single-channel blocks would be exactly zero).
constexpr int64_t kExactChainWeight = 2;

std::vector<CaseVar> NoVars(const ConvProblem&) { return {}; }
int64_t NoGrowth(const ConvProblem&) { return 1; }

std::vector<CaseVar> ChainVars(const ConvProblem& p) {
  const ConvProblem q = ResidualConv(p);
  return {{"w2", kChainWeightStream, q.weight_shape(), WeightMemoryOrder(q), kExactChainWeight}};
}

// The add of y1 and the residual convolution's K2 terms of ±2·y1 (or, backward, of the gradient
// through it).
int64_t ChainGrowth(const ConvProblem& p) {
  const ConvProblem q = ResidualConv(p);
  return 1 + kExactChainWeight * std::max(ReductionLength(q, Direction::kForward),
                                          ReductionLength(q, Direction::kBackwardData));
}

Graph ConvGraph(const ConvProblem& p, bool multiplier_weight) {
  return ForwardGraph(p, multiplier_weight);
}

}  // namespace

const std::vector<GraphForm>& GraphForms() {
  static const std::vector<GraphForm> forms{
      {"conv", "the problem's convolution alone", ConvGraph, NoVars, NoGrowth},
      {"chain",
       "a residual block: y = the convolution, then y + a second convolution of y (for SUTs "
       "that run graphs)",
       ChainGraph, ChainVars, ChainGrowth},
  };
  return forms;
}

const GraphForm& ConvForm() { return GraphForms()[0]; }
const GraphForm& ChainForm() { return GraphForms()[1]; }

const GraphForm* FindGraphForm(const std::string& name) {
  for (const GraphForm& f : GraphForms())
    if (f.name == name) return &f;
  return nullptr;
}

std::string GraphFormNames() {
  const std::vector<GraphForm>& forms = GraphForms();
  std::string names;
  for (size_t i = 0; i < forms.size(); ++i)
    names += (i == 0 ? "" : i + 1 == forms.size() ? " or " : ", ") + forms[i].name;
  return names;
}

ConvProblem GraphProblem(const ConvProblem& p, Direction d) {
  ConvProblem q = p;
  q.bias = p.bias && d == Direction::kForward;
  return q;
}

const char* DifferentiatedVar(Direction d) {
  return d == Direction::kBackwardData     ? kInputVar
         : d == Direction::kBackwardWeight ? kWeightVar
                                           : "";
}

std::vector<CaseVar> CaseVars(const GraphForm& form, const ConvProblem& p, Direction d) {
  std::vector<CaseVar> vars;
  if (d != Direction::kBackwardData)
    vars.push_back({kInputVar, kInputStream, p.input_shape(), DataMemoryOrder(p)});
  if (d != Direction::kBackwardWeight)
    vars.push_back({kWeightVar, kWeightStream, p.weight_shape(), WeightMemoryOrder(p)});
  if (d == Direction::kForward && p.bias)
    vars.push_back({kBiasVar, kBiasStream, p.bias_shape(), {0}});
  if (d != Direction::kForward)
    vars.push_back({kGradOutputVar, kGradOutputStream, p.output_shape(), DataMemoryOrder(p)});
  for (CaseVar& own : form.vars(p)) vars.push_back(std::move(own));
  return vars;
}

namespace {

// The problems of the form's conv nodes, or the first error; `skip_illegal`: only the legal ones.
Result<std::vector<ConvProblem>> ConvsOf(const GraphForm& form, const ConvProblem& p,
                                         bool skip_illegal) {
  if (form == ConvForm()) return std::vector<ConvProblem>{p};  // without building a graph
  const Graph g = form.build(p, /*multiplier_weight=*/false);
  std::vector<ConvProblem> convs;
  for (size_t i = 0; i < g.nodes.size(); ++i) {
    const OpKind op = g.nodes[i].op;
    if (op != OpKind::kConv && op != OpKind::kConvTranspose) continue;
    Result<ConvProblem> q = ConvProblemOf(g, static_cast<int>(i));
    if (q.ok())
      convs.push_back(*q);
    else if (!skip_illegal)
      return q.status();
  }
  return convs;
}

}  // namespace

Result<std::vector<ConvProblem>> FormConvs(const GraphForm& form, const ConvProblem& p) {
  return ConvsOf(form, p, /*skip_illegal=*/false);
}

int64_t FormMacs(const GraphForm& form, const ConvProblem& p) {
  const Result<std::vector<ConvProblem>> convs = ConvsOf(form, p, /*skip_illegal=*/true);
  int64_t macs = 0;
  for (const ConvProblem& q : *convs) macs += q.macs();
  return macs;
}

ConvProblem ResidualConv(const ConvProblem& p) {
  ConvProblem q = p;
  q.transposed = false;
  q.in_channels = p.out_channels;
  q.input = p.output();
  q.stride = {1, 1, 1};
  q.output_padding = {0, 0, 0};
  q.bias = false;
  for (int i = 0; i < p.rank; ++i) {
    const int64_t same = p.dilation[i] * (p.kernel[i] - 1);
    q.pad_begin[i] = same / 2;
    q.pad_end[i] = same - same / 2;
  }
  return q;
}

Graph ChainGraph(const ConvProblem& p, bool multiplier_weight) {
  Graph g = ForwardGraph(p, multiplier_weight);
  const int y1 = g.outputs[0];
  const ConvProblem q = ResidualConv(p);
  const int w2 = g.AddVar("w2", MemoryShape(q.weight_shape(), WeightMemoryOrder(q)));
  const int y2 = g.AddOp(OpKind::kConv, {y1, w2}, ConvAttrsOf(q));
  const int sum = g.AddOp(OpKind::kAdd, {y1, y2});
  g.node(y2).shape = g.node(sum).shape = g.node(y1).shape;
  g.outputs = {sum};
  return g;
}

}  // namespace convparity
