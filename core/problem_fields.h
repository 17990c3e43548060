// The fields of a ConvProblem as data (core/problem_fields.def), for code that treats them alike:
// descriptors, case files, equality, range checks and the shrinker walk these tables instead of
// naming each field.
#pragma once

#include <cstdint>

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
#include "core/problem_fields.def"
};

}  // namespace convparity
