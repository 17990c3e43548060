// `convparity compare` and `report --baseline`: two run folders (a campaign's --out, or a merge's)
// compared bucket by bucket (reports/comparison.h), every gone bucket's case replayed tonight.
#pragma once

#include <string>

#include "core/status.h"
#include "harness/engine/case_runner.h"
#include "reports/comparison.h"

namespace convparity {

// A folder's summary.json, strictly read; Invalid naming the file when it is missing or malformed.
Result<ComparedRun> ReadComparedRun(const std::string& folder);

// Reads both folders, classifies their buckets, and replays each gone bucket's minimal case (from
// its report in <before>/reports/) with `options`: fixed or not drawn. A case whose SUT the user
// did not allow (a case file is data, sut_config.h) or that is over the limits is bad input
// (Invalid), before anything runs; a gone bucket without a readable report stays not replayed,
// saying why.
Result<RunComparison> CompareRunFolders(const std::string& before, const std::string& after,
                                        const RunnerOptions& options);

}  // namespace convparity
