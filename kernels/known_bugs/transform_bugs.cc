// Historical transform bugs (docs/BUGS.md), reproduced as buggy passes
// (kernels/graph/buggy_passes.h): each row names the pipeline that stands for it; the harness's
// transform SUT runs it.
#include "kernels/known_bugs/known_bug_sut.h"

namespace convparity {
namespace known_bugs {
namespace {

KnownBugEntry Transform(std::string id, std::string pipeline, std::string summary,
                        std::string trigger, std::string reference,
                        Verdict symptom = Verdict::kFailed) {
  KnownBugInfo info{std::move(id), std::move(summary), std::move(reference), std::move(trigger)};
  info.kind = KnownBugKind::kTransform;
  info.pipeline = std::move(pipeline);
  info.symptom = symptom;
  return {std::move(info), nullptr};
}

}  // namespace

std::vector<KnownBugEntry> TransformBugs() {
  return {
      Transform("tvm-9954", "legalize@tvm-9954",
                "conv2d_backward_weight legalized with dy tiled over all channels: right only for "
                "groups 1 or C_in/g = 1",
                "bwd_weight:2d_g2_ic4_oc4_i5x5_k3x3", "https://github.com/apache/tvm/issues/9954"),
      Transform("tvm-6203", "lower_conv1d@tvm-6203",
                "Conv1d lowered to Conv2d with stride and dilation on the unit axis",
                "fwd:1d_ic1_oc1_i7_k3_s2", "https://github.com/apache/tvm/issues/6203",
                Verdict::kShapeMismatch),
      Transform("tvm-10294", "canonicalize_depthwise@tvm-10294",
                "the depthwise (C, m, k…) weight read multiplier-major when canonicalized",
                "fwd:2d_g2_ic2_oc4_i5x5_k3x3", "https://github.com/apache/tvm/issues/10294"),
      Transform("tvm-layout-fold", "convert_layout,fold_constants@tvm-layout-fold",
                "after ConvertLayout(NHWC, HWIO) the weight layout_transforms stay in the runtime "
                "graph",
                "fwd:2d_ic2_oc2_i5x5_k3x3",
                "BUGS.md: tvm-layout-fold (ConvertLayout + FoldConstant)", Verdict::kBrokenPromise),
  };
}

}  // namespace known_bugs
}  // namespace convparity
