#include "harness/io/report_values.h"

#include "harness/engine/check_case.h"

namespace convparity {

std::optional<SnippetValues> SnippetValuesOf(const ConvCase& c, const CheckContext& context) {
  if (!Validate(c.problem).ok() || SnippetValueCount(c) > kSnippetValueLimit) return std::nullopt;
  PreparedCase prepared = PrepareCase(c, context);
  if (prepared.ended) return std::nullopt;
  return SnippetValues{std::move(prepared.inputs), std::move(prepared.reference.result.values)};
}

}  // namespace convparity
