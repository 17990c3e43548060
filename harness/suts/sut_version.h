// What a system under test is, as its own code says: the text a campaign's summary records per
// SUT (CampaignSummary::sut_versions), so that `convparity merge` can refuse to add up shards
// that did not test the same thing, and a nightly comparison can say what changed.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "core/status.h"
#include "harness/suts/sut_config.h"

namespace convparity {

// One line: an exec: child's hello ("name version"), a plugin's own name, ABI and a hash of its
// library file, an adapter's library hash, LibTorch's version for ATen's float32 paths, and
// convparity's for our own kernels, transforms and known bugs. A logical name (--sut-map) adds
// the spec it stands for when that is one of ours: `mylib` as known-bug:X and as direct differ
// only there. Makes the SUT (an exec: child starts and says hello); Invalid when it cannot be made.
Result<std::string> SutVersion(const std::string& name, const SutConfig& config);

// SutVersion of each name.
Result<std::map<std::string, std::string>> SutVersions(const std::vector<std::string>& names,
                                                       const SutConfig& config);

}  // namespace convparity
