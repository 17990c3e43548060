// The passes by name, with the structural promise each one makes, and the gradient variants.
#include <algorithm>

#include "kernels/graph/buggy_passes.h"
#include "kernels/graph/pass_util.h"
#include "kernels/graph/passes.h"

namespace convparity {
namespace {

using graph_pass::AttrsOfConv;
using graph_pass::IsConvFamily;
using graph_pass::LiveNodes;

std::string Where(const Graph& g, size_t i) {
  return "%" + std::to_string(i) + " = " + OpName(g.nodes[i].op) + " ";
}

// Ok when no live node fails `keeps`; else kInvalid naming the first that does.
template <typename F>
Status EveryLiveNode(const Graph& g, const std::string& promise, F keeps) {
  const std::vector<bool> live = LiveNodes(g);
  for (size_t i = 0; i < g.nodes.size(); ++i)
    if (live[i] && !keeps(g.nodes[i]))
      return Status::Invalid("promise broken (" + promise + "): " + Where(g, i) + "is left");
  return Status::Ok();
}

Status NoBackwardWeight(const Graph&, const Graph& after) {
  return EveryLiveNode(after, "no conv_backward_weight",
                       [](const Node& n) { return n.op != OpKind::kConvBackwardWeight; });
}

Status ChannelsLastEverywhere(const Graph&, const Graph& after) {
  CP_RETURN_IF_ERROR(
      EveryLiveNode(after, "every conv channels-last with a …IO weight", [](const Node& n) {
        if (!IsConvFamily(n.op)) return true;
        const ConvAttrs& a = AttrsOfConv(n);
        return a.data_layout == DataLayout::kChannelsLast &&
               a.weight_layout == WeightLayout::kSpatialIO && !a.multiplier_weight;
      }));
  // Adjacent inverse transforms cancel.
  return EveryLiveNode(after, "no layout_transform undoing another", [&](const Node& n) {
    if (n.op != OpKind::kLayoutTransform) return true;
    const Node& src = after.node(n.inputs[0]);
    if (src.op != OpKind::kLayoutTransform) return true;
    const auto& outer = std::get<PermuteAttrs>(n.attrs).perm;
    const auto& inner = std::get<PermuteAttrs>(src.attrs).perm;
    for (size_t a = 0; a < outer.size(); ++a)
      if (inner[outer[a]] != static_cast<int>(a)) return true;
    return false;
  });
}

Status NothingFoldable(const Graph&, const Graph& after) {
  return EveryLiveNode(after, "no op whose operands are all constants", [&](const Node& n) {
    if (n.op == OpKind::kVar || n.op == OpKind::kConst || n.inputs.empty()) return true;
    return !std::all_of(n.inputs.begin(), n.inputs.end(),
                        [&](int k) { return after.node(k).op == OpKind::kConst; });
  });
}

Status NoRank1Conv(const Graph&, const Graph& after) {
  return EveryLiveNode(after, "no 1-D conv", [](const Node& n) {
    return !IsConvFamily(n.op) || AttrsOfConv(n).rank != 1;
  });
}

Status NoMultiplierWeight(const Graph&, const Graph& after) {
  return EveryLiveNode(after, "no multiplier_weight", [](const Node& n) {
    return !IsConvFamily(n.op) || !AttrsOfConv(n).multiplier_weight;
  });
}

Status NoConvTranspose(const Graph&, const Graph& after) {
  return EveryLiveNode(after, "no conv_transpose",
                       [](const Node& n) { return n.op != OpKind::kConvTranspose; });
}

Status UngroupedConvs(const Graph&, const Graph& after) {
  return EveryLiveNode(after, "every conv with groups 1", [](const Node& n) {
    return !IsConvFamily(n.op) || AttrsOfConv(n).groups == 1;
  });
}

Status ConvertLayoutToHwio(Graph& g) { return ConvertLayout(g, WeightLayout::kSpatialIO); }

}  // namespace

const std::vector<PassInfo>& AllPasses() {
  // name, summary, run, promise, needs frozen weights, needs multiplier weights, reproduces,
  // default pipeline.
  static const std::vector<PassInfo> passes = {
      {"legalize",
       "conv_backward_weight into tile/reshape/grouped conv/sum/transpose/strided_slice", Legalize,
       NoBackwardWeight, false, false, "", "legalize"},
      {"convert_layout",
       "every conv to channels-last data and …IO weights, layout_transforms around",
       ConvertLayoutToHwio, ChannelsLastEverywhere, false, false, "", ""},
      {"fold_constants", "evaluates every op whose operands are all constants", FoldConstants,
       NothingFoldable, true, false, "", "convert_layout,fold_constants"},
      {"lower_conv1d", "1-D conv, conv_transpose and weight gradient as 2-D over a unit axis",
       LowerConv1d, NoRank1Conv, false, false, "", "lower_conv1d"},
      {"canonicalize_depthwise", "depthwise weights (C, m, k…) into the groups form (C·m, 1, k…)",
       CanonicalizeDepthwise, NoMultiplierWeight, false, true, "", "canonicalize_depthwise"},
      {"transpose_to_conv",
       "conv_transpose as a conv over a zero-interleaved input, kernel flipped", TransposeToConv,
       NoConvTranspose, false, false, "", "transpose_to_conv"},
      {"split_groups", "a grouped conv as one ungrouped conv per group, concatenated", SplitGroups,
       UngroupedConvs, false, false, "", "split_groups"},
      {"legalize@tvm-9954",
       "TVM's legalization: dy tiled over all channels, right for groups 1 or C_in/g 1",
       graph_pass::LegalizeAsTvm9954, NoBackwardWeight, false, false, "tvm-9954", ""},
      {"lower_conv1d@tvm-6203", "conv1d → conv2d with stride and dilation on the unit axis",
       graph_pass::LowerConv1dAsTvm6203, NoRank1Conv, false, false, "tvm-6203", ""},
      {"lower_conv1d@tvm-7912", "conv_transpose1d → conv2d_transpose without its output_padding",
       graph_pass::LowerConv1dAsTvm7912, NoRank1Conv, false, false, "tvm-7912", ""},
      {"canonicalize_depthwise@tvm-10294", "the (C, m, k…) depthwise weight read multiplier-major",
       graph_pass::CanonicalizeDepthwiseAsTvm10294, NoMultiplierWeight, false, true, "tvm-10294",
       ""},
      {"fold_constants@tvm-layout-fold",
       "weight layout_transforms left unfolded in the runtime graph",
       graph_pass::FoldConstantsAsTvmLayoutFold, NothingFoldable, true, false, "tvm-layout-fold",
       ""},
  };
  return passes;
}

const PassInfo* FindPass(const std::string& name) {
  for (const PassInfo& p : AllPasses())
    if (p.name == name) return &p;
  return nullptr;
}

const std::vector<GradientInfo>& AllGradients() {
  static const std::vector<GradientInfo> gradients = {
      {"gradient", "first-order gradient: dgrad by the other conv kind, wgrad conv_backward_weight",
       Gradient},
      {"gradient@tvm-9465", "grouped dgrad reads the weight as OIHW instead of IOHW",
       GradientAsTvm9465},
  };
  return gradients;
}

const GradientInfo* FindGradient(const std::string& name) {
  for (const GradientInfo& g : AllGradients())
    if (g.name == name) return &g;
  return nullptr;
}

}  // namespace convparity
