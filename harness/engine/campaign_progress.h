// The progress line a campaign shows on stderr: what it has done and how long it has left.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "harness/engine/campaign.h"

namespace convparity {

// What a campaign has done and how long it has left: the time budget's rest, or with --cases the
// cases left at the rate so far.
std::string ProgressLine(const CampaignOptions& o, int64_t generated, int64_t checks,
                         size_t buckets, double now, bool final);

}  // namespace convparity
