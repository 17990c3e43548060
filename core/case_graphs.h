// The graph a case checks (ConvCase::graph), built from the case's problem by a named form: "conv",
// the problem's convolution alone (ForwardGraph), or the convolution among the ops real layers put
// around it ("chain": a residual block), which only SUTs that run graphs take.
//
// Every form's graph reads %x, %w (and %b) as ForwardGraph does, in the problem's memory layouts,
// plus vars of its own (CaseVar, filled by name), and its result has the shape the problem's
// direction gives. The oracle evaluates any form's graph (oracles/case_reference.h, in PyTorch's
// own layouts); SUTs that run graphs build it by its form. Adding a form is its entry in
// case_graphs.cc, and its PyTorch text in reports/python_snippet.cc.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/conv_problem.h"
#include "core/status.h"
#include "core/tensor.h"

namespace convparity {

struct Graph;  // core/graph.h: who builds a form's graph includes it

// The problem's vars, as ForwardGraph names them, and the gradient of the result a backward
// direction starts from (kernels/graph/passes.h Gradient adds it).
inline constexpr char kInputVar[] = "x";
inline constexpr char kWeightVar[] = "w";
inline constexpr char kBiasVar[] = "b";
inline constexpr char kGradOutputVar[] = "grad_output";

// A var a case reads: one of the problem's, or one its form adds.
struct CaseVar {
  std::string name;  // in the graph: "x", "w2"
  // Its fill's stream (MixSeed(seed, stream)): fixed forever, since changing it changes every
  // stored case's data.
  uint64_t stream = 0;
  Shape shape;                    // logical (PyTorch) shape
  std::vector<int> memory_order;  // how the graph's var stores it (core/tensor.h)
  // A form's own var: an exact fill draws it with range 1 and multiplies it by this; the form's
  // exact_growth leaves room for it. (The problem's vars take ChooseExactRange's ranges.)
  int64_t exact_scale = 1;
};

struct GraphForm {
  std::string name;     // as case files and flags spell it
  std::string summary;  // for `convparity list`
  Graph (*build)(const ConvProblem& p, bool multiplier_weight);
  std::vector<CaseVar> (*vars)(const ConvProblem& p);  // its own, beside the problem's
  // How much the graph can grow the problem's convolution's worst-case sum after it (a chain: the
  // add of y and the residual convolution's K2 terms of ±2·y, 1 + 2·K2): an exact fill divides its
  // limit by this, so that every sum of the graph stays exact in float32.
  int64_t (*exact_growth)(const ConvProblem& p);
};

// A form is known by its name, not its address: the oracle's library links a copy of core/ and of
// this table (oracles/CMakeLists.txt), and SUTs it makes compare the forms they are given.
inline bool operator==(const GraphForm& a, const GraphForm& b) { return a.name == b.name; }
inline bool operator!=(const GraphForm& a, const GraphForm& b) { return !(a == b); }

// Every form, "conv" first.
const std::vector<GraphForm>& GraphForms();
const GraphForm& ConvForm();
const GraphForm& ChainForm();
const GraphForm* FindGraphForm(const std::string& name);
std::string GraphFormNames();  // "conv or chain", for messages

// The problem whose graph a case of direction d starts from: backward directions differentiate
// its convolution without the bias, which no gradient needs.
ConvProblem GraphProblem(const ConvProblem& p, Direction d);
// The var a backward direction differentiates (x backward-data, w backward-weight; forward: "").
const char* DifferentiatedVar(Direction d);

// Every var a case of `form` on p reads in direction d, by stream: of the problem's, x and w and b
// (with p.bias) forward, grad_output and w backward-data, x and grad_output backward-weight (the
// var a backward direction differentiates is not read; a form's graph differentiates it without
// p's bias); then the form's own, in every direction.
std::vector<CaseVar> CaseVars(const GraphForm& form, const ConvProblem& p, Direction d);

// The problems of the convolutions the form's graph for p performs (ConvProblemOf of each conv
// node, in graph order: p first); ConvProblemOf's error for one that is no legal convolution. And
// their multiply-adds together (those of the legal ones).
Result<std::vector<ConvProblem>> FormConvs(const GraphForm& form, const ConvProblem& p);
int64_t FormMacs(const GraphForm& form, const ConvProblem& p);

// The chain's pieces. ChainGraph: y1 = p's convolution of %x (ForwardGraph), y2 = ResidualConv(p)
// of y1 with weight %w2, result y1 + y2. Two convolutions in a row, an add and a tensor used twice:
// what a chain of real layers gives the passes (convert_layout must keep one layout across the
// block, the gradient must add the two paths), with the problem's own result shape.
Graph ChainGraph(const ConvProblem& p, bool multiplier_weight = false);
// The second convolution of ChainGraph: ordinary, over p's output (C_out → C_out channels, p's
// groups, kernel and dilation, stride 1, the "same" padding d·(k − 1) split as evenly as it goes —
// asymmetric when odd), in p's data and weight layouts, without bias.
ConvProblem ResidualConv(const ConvProblem& p);

}  // namespace convparity
