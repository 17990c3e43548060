// The values a report's PyTorch snippet carries (reports/python_snippet.h): the minimized case's
// inputs and the oracle's result, so that the snippet reproduces the case's own data.
#pragma once

#include <optional>

#include "core/conv_case.h"
#include "harness/engine/check_context.h"
#include "reports/python_snippet.h"

namespace convparity {

// Fills the case and runs the oracle again (a minimized case is small: milliseconds). Nothing when
// the snippet would carry no values: over kSnippetValueLimit (checked before anything is
// computed), or a case that ends before the oracle answers (invalid, skipped, ill-conditioned).
std::optional<SnippetValues> SnippetValuesOf(const ConvCase& c, const CheckContext& context = {});

}  // namespace convparity
