#include "harness/engine/check_context.h"

#include <cinttypes>
#include <cstdio>

namespace convparity {

std::string LimitsArgument(const Limits& limits) {
  char text[96];
  std::snprintf(text, sizeof text, "%" PRId64 ",%" PRId64 ",%" PRId64, limits.max_tensor_elements,
                limits.max_macs, limits.max_extent);
  return text;
}

Result<Limits> ParseLimitsArgument(const std::string& text) {
  Limits limits;
  char tail = 0;
  if (std::sscanf(text.c_str(), "%" SCNd64 ",%" SCNd64 ",%" SCNd64 "%c",
                  &limits.max_tensor_elements, &limits.max_macs, &limits.max_extent, &tail) != 3 ||
      limits.max_tensor_elements < 1 || limits.max_macs < 1 || limits.max_extent < 1)
    return Status::Internal("worker limits: expected three positive numbers like " +
                            LimitsArgument(Limits{}) + ", got '" + text + "'");
  return limits;
}

}  // namespace convparity
