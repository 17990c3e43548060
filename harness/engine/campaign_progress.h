// The progress line a campaign shows on stderr: what it has done and how long it has left.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "harness/engine/campaign.h"

namespace convparity {

// What a campaign has done and how long it has left: the time budget's rest, or with --cases the
// cases left at the rate so far. Its rate is of the checks the SUTs computed (`s`'s computed);
// the skipped checks (declines, and cases that cannot be judged) are beside it.
std::string ProgressLine(const CampaignOptions& o, int64_t generated, const CampaignSummary& s,
                         double now, bool final);

}  // namespace convparity
