// The ABI's view of a problem (convparity_problem), both ways: what a plugin is given, and the
// checked reverse for structs from anywhere (a fuzzer's bytes included). Apart from the loader
// because the reverse is a validator of its own.
#include <string>
#include <utility>
#include <vector>

#include "core/problem_fields.h"
#include "harness/plugin/plugin_sut.h"

namespace convparity {
namespace {

std::string Join(const int64_t* v, int n) {
  std::string s;
  for (int i = 0; i < n; ++i) s += (i ? ", " : "") + std::to_string(v[i]);
  return s;
}

// An enum value's ABI code (core/conv_problem.h); -1, which no plugin accepts, outside its table.
template <typename E, size_t N>
int32_t Code(const EnumValue<E> (&values)[N], E value) {
  const EnumValue<E>* e = EntryOf(values, value);
  return e ? e->abi : -1;
}

// An enum field's value from its ABI code.
template <typename E, size_t N>
Status FromCode(const char* field, int32_t code, const EnumValue<E> (&values)[N], E* out) {
  for (const EnumValue<E>& e : values) {
    if (e.abi != code) continue;
    *out = e.value;
    return Status::Ok();
  }
  std::vector<std::string> codes;
  for (const EnumValue<E>& e : values)
    codes.push_back(std::to_string(e.abi) + " (" + e.abi_meaning + ")");
  return Status::Invalid(std::string(field) + " must be " + Choices(codes) + ", but got " +
                         std::to_string(code));
}

}  // namespace

convparity_problem PluginStructFromProblem(const ConvProblem& p) {
  convparity_problem s{};
  s.struct_size = sizeof(convparity_problem);
  s.rank = p.rank;
  s.transposed = p.transposed ? 1 : 0;
  // The integer and enum fields have the same names here (core/problem_fields.def); unused
  // dimensions plain, an enum value as its code, a switch as 0 or 1.
#define CONVPARITY_COUNT(field, ...) s.field = p.field;
#define CONVPARITY_SIZES(field, key, meaning, plain, ...) \
  for (int i = 0; i < CONVPARITY_MAX_RANK; ++i) s.field[i] = i < p.rank ? p.field[i] : plain;
#define CONVPARITY_ENUM(field, type, values, default_value, meaning, suts, part) \
  CONVPARITY_IF_given_##suts(s.field = Code(values, p.field);)
#define CONVPARITY_SWITCH(field, key, abi_name, part) s.abi_name = p.field ? 1 : 0;
#include "core/problem_fields.def"
  const Dims out = p.output();
  for (int i = 0; i < CONVPARITY_MAX_RANK; ++i) s.output[i] = i < p.rank ? out[i] : 1;
  s.spelling = "";
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
  for (auto [what, v] : {std::pair{"transposed", s.transposed}
#define CONVPARITY_SWITCH(field, key, abi_name, part) \
  , { #abi_name, s.abi_name }
#include "core/problem_fields.def"
       })
    if (v != 0 && v != 1)
      return Status::Invalid(std::string(what) + " must be 0 or 1, but got " + std::to_string(v));
  ConvProblem p;
  Status codes = Status::Ok();
#define CONVPARITY_ENUM(field, type, values, default_value, meaning, suts, part) \
  CONVPARITY_IF_given_##suts(if (codes.ok()) codes = FromCode(#field, s.field, values, &p.field);)
#include "core/problem_fields.def"
  CP_RETURN_IF_ERROR(codes);
  p.rank = s.rank;
  p.transposed = s.transposed == 1;
#define CONVPARITY_SWITCH(field, key, abi_name, part) p.field = s.abi_name == 1;
#include "core/problem_fields.def"
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
