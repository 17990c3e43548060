// ConvProblem: one value type that names any convolution the harness can test, and the shape math
// everything else calls. Conventions are PyTorch's unless a NOTE says otherwise.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "core/status.h"

namespace convparity {

constexpr int kMaxSpatialRank = 3;
// Spatial values; only the first `rank` are used.
using Dims = std::array<int64_t, kMaxSpatialRank>;
using Shape = std::vector<int64_t>;  // a tensor's logical (PyTorch) shape

enum class Direction { kForward, kBackwardData, kBackwardWeight };
enum class DataLayout { kChannelsFirst, kChannelsLast };  // NC… / N…C
// NOTE: O and I name the operator's own output and input channel axes. For an ordinary convolution
// the weight's O axis has C_out entries and its I axis C_in/g; for a transposed one (PyTorch:
// (C_in, C_out/g, k…)) the I axis has C_in entries and the O axis C_out/g. Natural layouts: OI…
// ordinary, IO… transposed.
enum class WeightLayout { kOI, kIO, kSpatialIO, kOSpatialI };  // OI…, IO…, …IO (HWIO), O…I (OHWI)
enum class DType { kFloat32 };

// One value of an enum field (problem_fields.def) as every format spells it: `name` in descriptors
// and case files, where a '*' stands for the spatial axes' letters (w, hw, dhw: a layout's name
// depends on the rank); `protocol` in the process protocol; `abi` in the plugin ABI (its
// CONVPARITY_* constant's value) and `abi_meaning` in the ABI's messages.
template <typename E>
struct EnumValue {
  E value;
  const char* name;
  const char* protocol;
  int abi;
  const char* abi_meaning;
};

inline constexpr EnumValue<DataLayout> kDataLayouts[] = {
    {DataLayout::kChannelsFirst, "nc*", "channels_first", 0, "channels-first"},
    {DataLayout::kChannelsLast, "n*c", "channels_last", 1, "channels-last"},
};
inline constexpr EnumValue<WeightLayout> kWeightLayouts[] = {
    {WeightLayout::kOI, "oi*", "oi", 0, "OI"},
    {WeightLayout::kIO, "io*", "io", 1, "IO"},
    {WeightLayout::kSpatialIO, "*io", "spatial_io", 2, "spatial IO"},
    {WeightLayout::kOSpatialI, "o*i", "o_spatial_i", 3, "O spatial I"},
};
// Not given to SUTs (problem_fields.def), so no protocol name or ABI code.
inline constexpr EnumValue<DType> kDTypes[] = {{DType::kFloat32, "f32", nullptr, -1, nullptr}};

// `value`'s entry in its table, or null for a value outside it (a cast from a bad integer).
template <typename E, size_t N>
constexpr const EnumValue<E>* EntryOf(const EnumValue<E> (&values)[N], E value) {
  for (const EnumValue<E>& e : values)
    if (e.value == value) return &e;
  return nullptr;
}
// A name at a rank: its '*' replaced by the spatial axes' letters; "?" for no name.
std::string NameAtRank(const char* name, int rank);
// `value`'s name in descriptors and case files at `rank`: nchw, hwio, f32 …
template <typename E, size_t N>
std::string EnumName(const EnumValue<E> (&values)[N], E value, int rank) {
  const EnumValue<E>* e = EntryOf(values, value);
  return NameAtRank(e ? e->name : nullptr, rank);
}

// Expands to its arguments when a field's part (problem_fields.def) is the one wanted: a member of
// ConvParams when the part is `attr`, of ConvProblem's own when it is `problem`.
#define CONVPARITY_IF_attr_attr(...) __VA_ARGS__
#define CONVPARITY_IF_attr_problem(...)
#define CONVPARITY_IF_problem_attr(...)
#define CONVPARITY_IF_problem_problem(...) __VA_ARGS__

// What a convolution does to any operands: rank, groups; kernel, stride, dilation, pad_begin,
// pad_end, output_padding (Dims: spatial values); data_layout, weight_layout. The fields of
// problem_fields.def whose part is `attr`, declared there: the one conv vocabulary, shared by a
// ConvProblem and a graph's conv node (ConvAttrs, core/graph.h).
struct ConvParams {
#define CONVPARITY_FORM(field, type, default_value, part) \
  CONVPARITY_IF_attr_##part(type field = default_value;)
#define CONVPARITY_SWITCH(field, key, abi_name, part) CONVPARITY_IF_attr_##part(bool field = false;)
#define CONVPARITY_ENUM(field, type, values, default_value, meaning, suts, part) \
  CONVPARITY_IF_attr_##part(type field = default_value;)
#define CONVPARITY_COUNT(field, key, meaning, plain, required, part) \
  CONVPARITY_IF_attr_##part(int64_t field = plain;)
#define CONVPARITY_SIZES(field, key, meaning, plain, required, transposed_only, rule, part) \
  CONVPARITY_IF_attr_##part(Dims field{plain, plain, plain};)
#include "core/problem_fields.def"
};

// A convolution with its operands: the params with the problem's kind (transposed), sizes (batch,
// in_channels, out_channels, input), bias and dtype, the fields whose part is `problem`. Their
// defaults, bounds and names: core/problem_fields.def.
struct ConvProblem : ConvParams {
#define CONVPARITY_FORM(field, type, default_value, part) \
  CONVPARITY_IF_problem_##part(type field = default_value;)
#define CONVPARITY_SWITCH(field, key, abi_name, part) \
  CONVPARITY_IF_problem_##part(bool field = false;)
#define CONVPARITY_ENUM(field, type, values, default_value, meaning, suts, part) \
  CONVPARITY_IF_problem_##part(type field = default_value;)
#define CONVPARITY_COUNT(field, key, meaning, plain, required, part) \
  CONVPARITY_IF_problem_##part(int64_t field = plain;)
#define CONVPARITY_SIZES(field, key, meaning, plain, required, transposed_only, rule, part) \
  CONVPARITY_IF_problem_##part(Dims field{plain, plain, plain};)
#include "core/problem_fields.def"

  // Derived values (getters, never stored).
  Dims output() const;         // spatial output size
  Shape input_shape() const;   // (N, C_in, input…)
  Shape output_shape() const;  // (N, C_out, output…)
  Shape weight_shape() const;  // (C_out, C_in/g, k…) or, transposed, (C_in, C_out/g, k…)
  Shape bias_shape() const { return {out_channels}; }
  bool depthwise() const { return groups > 1 && groups == in_channels; }
  int64_t depth_multiplier() const { return out_channels / groups; }  // meaningful when depthwise()
  int64_t macs() const;  // multiply-adds of the forward pass
  // The natural weight layout of this problem's kind: OI… ordinary, IO… transposed.
  WeightLayout natural_weight_layout() const {
    return transposed ? WeightLayout::kIO : WeightLayout::kOI;
  }

  bool operator==(const ConvProblem& o) const;
  bool operator!=(const ConvProblem& o) const { return !(*this == o); }
};

// `p` with every enum field and flag (problem_fields.def) as a descriptor or case file that leaves
// it out means: at its default, the weight layout the natural one of p's kind.
ConvProblem PlainOptions(const ConvProblem& p);

// Shape functions, written once. NOTE: they are not bijections: several transposed output sizes map
// back to the same ordinary output size, which is why transposed convolution has output_padding.
int64_t ConvOutputSize(int64_t input, int64_t kernel, int64_t stride, int64_t pad_begin,
                       int64_t pad_end, int64_t dilation);
int64_t ConvTransposeOutputSize(int64_t input, int64_t kernel, int64_t stride, int64_t pad_begin,
                                int64_t pad_end, int64_t dilation, int64_t output_padding);

// Legality, with ATen's rules and messages in PyTorch's style (given, expected, found). Returns
// kInvalid.
Status Validate(const ConvProblem& p);

// Size limits, checked before anything is allocated. Returns kLimit (or Validate's kInvalid); the
// message names the limit by the command-line flag that sets it (--max-elements, --max-macs,
// --max-extent).
struct Limits {
  int64_t max_tensor_elements = int64_t{1} << 26;  // per tensor (256 MiB of float32)
  int64_t max_macs = int64_t{1} << 32;
  int64_t max_extent = int64_t{1} << 20;  // any single size, stride, padding …
};
Status CheckLimits(const ConvProblem& p, const Limits& limits);

// "[1, 4, 9, 9]": shapes and coordinates in messages and reports.
std::string ShapeText(const Shape& shape);

// Number of elements of a shape; assumes CheckLimits passed (no overflow).
int64_t NumElements(const Shape& shape);

// The largest reduction any output element of `direction` sums (TOLERANCE.md), without bias.
int64_t ReductionLength(const ConvProblem& p, Direction direction);

// Names used in descriptors, case files and the CLI.
const char* DirectionName(Direction d);  // fwd, bwd_data, bwd_weight
Result<Direction> ParseDirection(const std::string& s);
inline std::string DataLayoutName(DataLayout l, int rank) {  // nchw, nhwc, ncw, ndhwc …
  return EnumName(kDataLayouts, l, rank);
}
inline std::string WeightLayoutName(WeightLayout l, int rank) {  // oihw, iohw, hwio, ohwi, oiw …
  return EnumName(kWeightLayouts, l, rank);
}
inline std::string DTypeName(DType t) { return EnumName(kDTypes, t, 0); }  // f32
const std::vector<Direction>& AllDirections();

// Memory order of a tensor's logical axes, outermost first, for the problem's layouts.
std::vector<int> DataMemoryOrder(const ConvProblem& p);  // input and output tensors
std::vector<int> WeightMemoryOrder(const ConvProblem& p);

}  // namespace convparity
