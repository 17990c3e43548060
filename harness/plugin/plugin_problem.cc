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
    // The integer fields have the same names here (core/problem_fields.def); unused dimensions
    // plain.
#define CONVPARITY_COUNT(field, ...) s.field = p.field;
#define CONVPARITY_SIZES(field, key, meaning, plain, ...) \
  for (int i = 0; i < CONVPARITY_MAX_RANK; ++i) s.field[i] = i < p.rank ? p.field[i] : plain;
#include "core/problem_fields.def"
  const Dims out = p.output();
  for (int i = 0; i < CONVPARITY_MAX_RANK; ++i) s.output[i] = i < p.rank ? out[i] : 1;
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
#define CONVPARITY_COUNT(field, ...) p.field = s.field;
#define CONVPARITY_SIZES(field, ...) \
  for (int i = 0; i < s.rank; ++i) p.field[i] = s.field[i];
#include "core/problem_fields.def"
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
