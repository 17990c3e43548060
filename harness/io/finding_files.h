// A finding written the one way every producer writes it (a campaign, `convparity shrink`, the
// libFuzzer targets): its minimized case into the corpus, and its report (convparity.report/1)
// into <out>/reports/, whose repro commands carry the flags that make its SUT again.
#pragma once

#include <string>

#include "core/features.h"
#include "core/status.h"
#include "harness/engine/check_context.h"

namespace convparity {

struct FindingFiles {
  std::string case_path;    // <corpus>/<hash>.json
  std::string report_path;  // <out>/reports/<ReportFileName>
};

// Writes `found` (described by its SUT's family first: a transform finding's case and report then
// show its pipeline and graphs) with the PyTorch snippet carrying the case's values where they fit.
// `corpus` empty: <out>/corpus. `context` is what its cases were checked with: the repro commands
// get the flags its SUT name needs (SutConfig::ReproFlags), the snippet the same limits.
Result<FindingFiles> WriteFinding(const Finding& found, const std::string& out,
                                  const std::string& corpus, const CheckContext& context);

}  // namespace convparity
