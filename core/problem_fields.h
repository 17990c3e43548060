// The fields of a ConvProblem as data (core/problem_fields.def), for code that treats them alike:
// descriptors, case files, equality, range checks and the shrinker walk these tables instead of
// naming each field.
#pragma once

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "core/conv_problem.h"

namespace convparity {

// A count (one integer) or sizes (one per spatial dimension): exactly one member pointer is set.
struct IntegerField {
  const char* name;     // ConvProblem's member; problem.<name> in case files, the protocol, the ABI
  const char* key;      // in descriptors
  const char* meaning;  // in messages
  int64_t ConvProblem::*count;
  Dims ConvProblem::*sizes;
  int64_t plain;         // the default, the smallest legal value, where the shrinker takes sizes
  bool required;         // in every descriptor and case file
  bool transposed_only;  // plain in every ordinary convolution
  const char* rule;      // how Validate words the lower bound (plain)
};

// In the table's order.
inline constexpr IntegerField kIntegerFields[] = {
#define CONVPARITY_COUNT(field, key, meaning, plain, required, part) \
  {#field, key, meaning, &ConvProblem::field, nullptr, plain, required, false, "must be positive"},
#define CONVPARITY_SIZES(field, key, meaning, plain, required, transposed_only, rule, part) \
  {#field, key, meaning, nullptr, &ConvProblem::field, plain, required, transposed_only, rule},
#include "core/problem_fields.def"
};

// Every field's name, in the table's order: the members of problem.* in a case file.
inline constexpr const char* kProblemFieldNames[] = {
#define CONVPARITY_FORM(field, ...) #field,
#define CONVPARITY_COUNT(field, ...) #field,
#define CONVPARITY_SIZES(field, ...) #field,
#define CONVPARITY_ENUM(field, ...) #field,
#define CONVPARITY_SWITCH(field, ...) #field,
#include "core/problem_fields.def"
};

// Expands to its arguments for an enum field that SUTs are given (`suts` in problem_fields.def):
// CONVPARITY_IF_given_##suts(...).
#define CONVPARITY_IF_given_given(...) __VA_ARGS__
#define CONVPARITY_IF_given_not_given(...)

// An enum field's names at `rank`, in its table's order.
template <typename E, size_t N>
std::vector<std::string> NamesAtRank(const EnumValue<E> (&values)[N], int rank) {
  std::vector<std::string> names;
  for (const EnumValue<E>& e : values) names.push_back(NameAtRank(e.name, rank));
  return names;
}

// Whether an enum field's names depend on the rank (a layout's, with a '*').
template <typename E, size_t N>
bool NamedByRank(const EnumValue<E> (&values)[N]) {
  for (const EnumValue<E>& e : values)
    if (std::strchr(e.name, '*')) return true;
  return false;
}

// "A", "A or B", "one of A, B, C": the values a field may take, in messages.
std::string Choices(const std::vector<std::string>& names);

}  // namespace convparity
