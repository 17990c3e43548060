// The ABI's view of a problem (convparity_problem), both ways: what a plugin is given, and the
// checked reverse for structs from anywhere (a fuzzer's bytes included). Apart from the loader
// because the reverse is a validator of its own.
#include <string>
#include <utility>

#include "harness/plugin/plugin_sut.h"

namespace convparity {
namespace {

std::string Join(const int64_t* v, int n) {
  std::string s;
  for (int i = 0; i < n; ++i) s += (i ? ", " : "") + std::to_string(v[i]);
  return s;
}

}  // namespace

convparity_problem PluginStructFromProblem(const ConvProblem& p) {
  convparity_problem s{};
  s.struct_size = sizeof(convparity_problem);
  s.rank = p.rank;
  s.transposed = p.transposed ? 1 : 0;
  s.has_bias = p.bias ? 1 : 0;
  s.data_layout = p.data_layout == DataLayout::kChannelsLast ? CONVPARITY_DATA_CHANNELS_LAST
                                                             : CONVPARITY_DATA_CHANNELS_FIRST;
  switch (p.weight_layout) {
    case WeightLayout::kOI:
      s.weight_layout = CONVPARITY_WEIGHT_OI;
      break;
    case WeightLayout::kIO:
      s.weight_layout = CONVPARITY_WEIGHT_IO;
      break;
    case WeightLayout::kSpatialIO:
      s.weight_layout = CONVPARITY_WEIGHT_SPATIAL_IO;
      break;
    case WeightLayout::kOSpatialI:
      s.weight_layout = CONVPARITY_WEIGHT_O_SPATIAL_I;
      break;
  }
  s.batch = p.batch;
  s.in_channels = p.in_channels;
  s.out_channels = p.out_channels;
  s.groups = p.groups;
  const Dims out = p.output();
  for (int i = 0; i < CONVPARITY_MAX_RANK; ++i) {
    const bool used = i < p.rank;
    s.input[i] = used ? p.input[i] : 1;
    s.kernel[i] = used ? p.kernel[i] : 1;
    s.stride[i] = used ? p.stride[i] : 1;
    s.pad_begin[i] = used ? p.pad_begin[i] : 0;
    s.pad_end[i] = used ? p.pad_end[i] : 0;
    s.dilation[i] = used ? p.dilation[i] : 1;
    s.output_padding[i] = used ? p.output_padding[i] : 0;
    s.output[i] = used ? out[i] : 1;
  }
  return s;
}

Result<ConvProblem> ProblemFromPluginStruct(const convparity_problem& s) {
  if (s.struct_size < sizeof(convparity_problem))
    return Status::Invalid("struct_size must be at least " +
                           std::to_string(sizeof(convparity_problem)) + " (ABI version " +
                           std::to_string(CONVPARITY_PLUGIN_ABI_VERSION) + "), but got " +
                           std::to_string(s.struct_size));
  if (s.rank < 1 || s.rank > CONVPARITY_MAX_RANK)
    return Status::Invalid("rank must be 1, 2 or 3 spatial dimensions, but got " +
                           std::to_string(s.rank));
  for (auto [what, v] : {std::pair{"transposed", s.transposed}, {"has_bias", s.has_bias}})
    if (v != 0 && v != 1)
      return Status::Invalid(std::string(what) + " must be 0 or 1, but got " + std::to_string(v));
  if (s.data_layout != CONVPARITY_DATA_CHANNELS_FIRST &&
      s.data_layout != CONVPARITY_DATA_CHANNELS_LAST)
    return Status::Invalid("data_layout must be 0 (channels-first) or 1 (channels-last), but got " +
                           std::to_string(s.data_layout));
  ConvProblem p;
  switch (s.weight_layout) {
    case CONVPARITY_WEIGHT_OI:
      p.weight_layout = WeightLayout::kOI;
      break;
    case CONVPARITY_WEIGHT_IO:
      p.weight_layout = WeightLayout::kIO;
      break;
    case CONVPARITY_WEIGHT_SPATIAL_IO:
      p.weight_layout = WeightLayout::kSpatialIO;
      break;
    case CONVPARITY_WEIGHT_O_SPATIAL_I:
      p.weight_layout = WeightLayout::kOSpatialI;
      break;
    default:
      return Status::Invalid(
          "weight_layout must be 0 (OI), 1 (IO), 2 (spatial IO) or 3 "
          "(O spatial I), but got " +
          std::to_string(s.weight_layout));
  }
  p.rank = s.rank;
  p.transposed = s.transposed == 1;
  p.bias = s.has_bias == 1;
  p.data_layout = s.data_layout == CONVPARITY_DATA_CHANNELS_LAST ? DataLayout::kChannelsLast
                                                                 : DataLayout::kChannelsFirst;
  p.batch = s.batch;
  p.in_channels = s.in_channels;
  p.out_channels = s.out_channels;
  p.groups = s.groups;
  for (int i = 0; i < s.rank; ++i) {
    p.input[i] = s.input[i];
    p.kernel[i] = s.kernel[i];
    p.stride[i] = s.stride[i];
    p.pad_begin[i] = s.pad_begin[i];
    p.pad_end[i] = s.pad_end[i];
    p.dilation[i] = s.dilation[i];
    p.output_padding[i] = s.output_padding[i];
  }
  CP_RETURN_IF_ERROR(Validate(p));  // bounds every value: the output below cannot overflow
  const Dims out = p.output();
  for (int i = 0; i < s.rank; ++i)
    if (s.output[i] != out[i])
      return Status::Invalid("output must be the computed output size (" +
                             Join(out.data(), s.rank) + "), but got output=(" +
                             Join(s.output, s.rank) + ")");
  return p;
}

}  // namespace convparity
