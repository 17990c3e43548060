// What a user gets when they name nothing: the defaults of the command line, the campaign, the
// generators and the byte decoder, written once.
#pragma once

#include <cstdint>

namespace convparity::defaults {

// The generators' cap on multiply-adds per convolution: keeps a check fast on ATen's float64
// path. Not a limit on replayed cases unless --max-macs says so.
constexpr int64_t kMaxMacs = 200000;
// About one generated case in twenty is "large": up to 20 times the cap, so that the blocked and
// tiled paths of real libraries are reached (issue 16). Shrinking makes a large case ordinary.
constexpr int kLargeCasePercent = 5;
constexpr int64_t kLargeCaseFactor = 20;
// The longest kernel drawn per spatial rank (index = rank): real 1-D models (audio) use 16-64
// taps, and public bugs showed only above 16.
constexpr int64_t kMaxKernelOfRank[] = {1, 64, 15, 11};
constexpr int64_t kMaxKernel = 64;  // the largest of them
constexpr double kCampaignSeconds = 60;
// Seconds a SUT may take on one case (or on preparing it) before it is "hung".
constexpr double kCaseTimeoutSeconds = 30;
// Seconds spent shrinking one discrepancy, and SUT calls.
constexpr double kShrinkSeconds = 30;
constexpr int64_t kMaxShrinkCalls = 1000;
// The least a SUT's adaptive timeout (a multiple of the oracle's time for the case) may be.
constexpr double kTimeoutFloorSeconds = 1;

}  // namespace convparity::defaults
