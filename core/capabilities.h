// What a SUT can run, declared once: the region of the problem space a campaign draws its cases
// from, and the line between a decline that is expected and one that is a finding (a stack that
// computes what it declared it cannot, or declines what it declared it can).
//
// A declaration is a list of regions, and a case is inside it when one region holds it. A region
// is a conjunction of predicates over the case (its graph form, direction and problem); each one
// left out holds for every case. The vocabulary is the one the shipped adapters' static declines
// are written in (docs/INTERFACES.md, "Capabilities"); its text form is JSON, as a plugin gives it
// (ABI 3):
//   [{"directions": ["fwd"], "ranks": [1, 2], "kinds": ["ordinary"],
//     "groups": ["plain", "depthwise", "depthwise_multiplier"], "stride_with_dilation": false}]
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "core/conv_problem.h"
#include "core/status.h"

namespace convparity {

// How a problem's channels are grouped: a partition of the legal problems.
enum class GroupKind {
  kPlain,                // groups = 1
  kGrouped,              // 1 < groups ≠ C_in
  kDepthwise,            // groups = C_in = C_out
  kDepthwiseMultiplier,  // groups = C_in, C_out a larger multiple
};
GroupKind GroupKindOf(const ConvProblem& p);

// A transposed convolution's output_padding, per axis (ordinary ones have none). PyTorch allows
// op < max(stride, dilation); some stacks take less.
enum class OutputPaddingRule {
  kAny,                    // what PyTorch allows
  kBelowStride,            // op < s (ONNX Runtime)
  kBelowStrideOrEndPad,    // op < s, or op ≤ pad_end to fold it into the padding (XNNPACK)
  kBelowStridePlusEndPad,  // op < s + pad_end (oneDNN's padding_r ≥ -(s - 1))
};

enum class PaddingRule {
  kAny,
  kNone,           // every pad_begin and pad_end 0
  kTfValidOrSame,  // TensorFlow's VALID (none) or SAME (the output ⌈n/s⌉, the excess split with
                   // the larger half at the end), n the input (ordinary) or the output (transposed)
};

// The bits of the sets below that name the single convolution (ConvForm, the first of
// GraphForms()) and the two kinds.
inline constexpr uint32_t kConvFormBit = 1u, kOrdinaryBit = 1u, kTransposedBit = 2u;

struct CapabilityRegion {
  // Each set is a bit mask over its enum's values (1 << value), every value when all bits are set.
  uint32_t forms = ~0u;  // bit i: GraphForms()[i]
  uint32_t directions = ~0u;
  uint32_t ranks = ~0u;  // bit r for rank r
  uint32_t kinds = ~0u;  // bit 0 ordinary, bit 1 transposed
  uint32_t groups = ~0u;
  bool unit_channels_per_group = false;  // C_in/groups = C_out/groups = 1
  bool dilation = true;                  // false: no dilation on any axis
  bool stride_with_dilation = true;      // false: not strided (on some axis) and dilated at once
  OutputPaddingRule output_padding = OutputPaddingRule::kAny;
  PaddingRule padding = PaddingRule::kAny;
  std::optional<int64_t> kernel;  // every extent of the kernel is this
  std::optional<int64_t> stride;  // every stride is this
  uint32_t data_layouts = ~0u;
  uint32_t weight_layouts = ~0u;
};

// A SUT that declares nothing claims nothing: every case is drawn for it, and none of its declines
// is a broken promise. A declared empty list holds no case.
struct Capabilities {
  bool declared = false;
  std::vector<CapabilityRegion> regions;
};

// Why the region does not hold the case (its first predicate that fails, e.g. "rank 3 is not
// among 1, 2"), or nullopt when it holds it. Total over any problem; meant for valid ones.
std::optional<std::string> WhyOutside(const CapabilityRegion& region, const std::string& form,
                                      Direction d, const ConvProblem& p);
// Nullopt when nothing is declared or some region holds the case; else why not, region by region
// ("outside its declaration: rank 3 is not among 1, 2; kind transposed is not among ordinary").
std::optional<std::string> WhyOutside(const Capabilities& caps, const std::string& form,
                                      Direction d, const ConvProblem& p);

// Every predicate of the region that fails for the case, in the order WhyOutside checks them.
std::vector<std::string> ReasonsOutside(const CapabilityRegion& region, const std::string& form,
                                        Direction d, const ConvProblem& p);
// Outside the declaration by one predicate of some region: a case on its border, where a stack's
// own checks are tested (one that is missing computes it, one that is too strict declines the
// case next to it). False when nothing is declared.
bool JustOutside(const Capabilities& caps, const std::string& form, Direction d,
                 const ConvProblem& p);

// `caps` within what a SUT is: each region narrowed to the graph forms (bit i: GraphForms()[i])
// and the directions (DirectionMask) it runs.
// Whether a region holds every problem (of its forms and directions): nothing is just outside it.
bool HoldsEveryProblem(const CapabilityRegion& region);
Capabilities Within(Capabilities caps, uint32_t forms, uint32_t directions);
uint32_t DirectionMask(const std::vector<Direction>& directions);  // bit d for direction d
// What any of several SUTs can run: nothing declared when one of them declares nothing (it may run
// any case), else all their regions.
Capabilities Union(const std::vector<Capabilities>& declarations);

// The JSON form above, both ways, with `null` for nothing declared. Reading is strict: an unknown
// key or value is kInvalid, with the path of what is wrong ("capabilities[1].ranks: 4 is not a
// rank (1, 2, 3)").
// `path` names the declaration in messages.
Result<Capabilities> CapabilitiesFromJson(const nlohmann::json& j,
                                          const std::string& path = "capabilities");
nlohmann::json CapabilitiesToJson(const Capabilities& caps);

}  // namespace convparity
