// The transforms: graph → graph rewrites that ML compilers apply to convolutions, each correct for
// 1–3-D, any groups and depth multiplier, stride, dilation, asymmetric padding and output_padding.
// A pass keeps the graph's meaning (its outputs for the same var bindings) and makes a structural
// promise that `CheckPromise` verifies (e.g. no conv_backward_weight is left after legalize).
#pragma once

#include <string>
#include <vector>

#include "core/graph.h"
#include "core/status.h"

namespace convparity {

// First-order gradient of a graph with one output y: adds a var "grad_output" of y's shape and
// returns the graph whose outputs are d<y·grad_output>/d<var> for each var named in `wrt`, in that
// order. dgrad of conv is conv_transpose reading the same weight as IO…, of conv_transpose a conv;
// wgrad is conv_backward_weight. Vars not in `wrt` stay inputs when the gradient needs them.
Result<Graph> Gradient(const Graph& forward, const std::vector<std::string>& wrt);

// conv_backward_weight into tile / reshape / grouped conv / sum / transpose / strided_slice (the
// scheme of TVM's legalization, generalized to every groups, multiplier, stride ≠ dilation,
// layout).
Status Legalize(Graph& graph);
// Every conv-family node to channels-last data and `weight_layout` (…IO = HWIO by default), with
// layout_transforms inserted around it; adjacent inverse transforms cancel.
Status ConvertLayout(Graph& graph, WeightLayout weight_layout = WeightLayout::kSpatialIO);
// The same to any layouts: what a model format's convolution reads (harness/models/). A node
// already in them is kept as it is; a multiplier-form weight gets a reshape into the groups form.
struct ConvLayouts {
  DataLayout data;
  WeightLayout weight;             // conv and conv_backward_weight
  WeightLayout transposed_weight;  // conv_transpose
};
Status ConvertLayoutTo(Graph& graph, const ConvLayouts& target);
// Evaluates every node whose operands are all constants (on our kernels) and replaces it by a
// const.
Status FoldConstants(Graph& graph);
// 1-D conv and conv_transpose (grouped too) as 2-D ones over a unit axis, reshaped back.
Status LowerConv1d(Graph& graph);
// Depthwise weights in the multiplier representation (C, m, k…) into the groups one (C·m, 1, k…).
Status CanonicalizeDepthwise(Graph& graph);
// conv_transpose as an ordinary conv over a zero-interleaved, padded input with the kernel flipped
// and its channel axes swapped per group.
Status TransposeToConv(Graph& graph);
// A grouped conv-family node as `groups` ungrouped ones over strided_slices, concatenated.
Status SplitGroups(Graph& graph);

// A pass by name, as `transform:<pass>,<pass>,…` names them. Buggy variants that reproduce
// historical compiler bugs are named <pass>@<bug-id> (e.g. gradient@tvm-9465) and listed with the
// rest.
struct PassInfo {
  std::string name;     // gradient is not here: backward directions are built by it (transform_sut)
  std::string summary;  // one line, for `convparity list`
  Status (*run)(Graph&);
  // The pass's structural promise on its result; Ok when kept, kInvalid with what was found.
  Status (*check_promise)(const Graph& before, const Graph& after);
  // What the graph it works on holds, so that a transform SUT builds it so: the weights (and bias)
  // as constants, as frozen weights are (constant folding works on them); a depthwise weight with
  // a multiplier in its multiplier form (C, m, k…), which the pass rewrites (its weight gradient
  // then has the groups form's memory).
  bool needs_frozen_weights = false;
  bool needs_multiplier_weights = false;
  // A buggy variant (<pass>@<bug-id>) names the known bug it reproduces; empty for a correct pass.
  std::string reproduces;
  // The pipeline a default campaign checks a correct pass in; empty: only in random pipelines and
  // as a part of another's (convert_layout is checked in convert_layout,fold_constants).
  std::string default_pipeline;
};
const std::vector<PassInfo>& AllPasses();
const PassInfo* FindPass(const std::string& name);

// The gradient and its buggy variants by name ("gradient", "gradient@tvm-9465"): the transform
// SUT builds backward directions with one of them.
struct GradientInfo {
  std::string name;
  std::string summary;
  Result<Graph> (*run)(const Graph& forward, const std::vector<std::string>& wrt);
};
const std::vector<GradientInfo>& AllGradients();
const GradientInfo* FindGradient(const std::string& name);

// gradient@tvm-9465 (BUGS.md): Gradient, except that the dgrad of a grouped ordinary conv reads
// the weight as TVM's grouped conv2d_transpose did (OIHW instead of IOHW). Wrong for groups > 1
// with C_in/g > 1 and C_out/g > 1; Gradient exactly elsewhere (both readings coincide there).
Result<Graph> GradientAsTvm9465(const Graph& forward, const std::vector<std::string>& wrt);

}  // namespace convparity
