// What a user gets when they name nothing: the defaults of the command line, the campaign, the
// generators and the byte decoder, written once.
#pragma once

#include <cstdint>

namespace convparity::defaults {

// The generators' cap on multiply-adds per convolution: keeps a check fast on ATen's float64
// path. Not a limit on replayed cases unless --max-macs says so.
constexpr int64_t kMaxMacs = 200000;
constexpr double kCampaignSeconds = 60;
// Seconds a SUT may take on one case (or on preparing it) before it is "hung".
constexpr double kCaseTimeoutSeconds = 30;
// Seconds spent shrinking one discrepancy.
constexpr double kShrinkSeconds = 30;

}  // namespace convparity::defaults
