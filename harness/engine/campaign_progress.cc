#include "harness/engine/campaign_progress.h"

#include <algorithm>
#include <cstdio>

namespace convparity {
namespace {

// "45 s", "12 min", "3.5 h".
std::string Duration(double seconds) {
  char text[32];
  if (seconds < 120)
    std::snprintf(text, sizeof text, "%.0f s", seconds);
  else if (seconds < 7200)
    std::snprintf(text, sizeof text, "%.0f min", seconds / 60);
  else
    std::snprintf(text, sizeof text, "%.1f h", seconds / 3600);
  return text;
}

}  // namespace

// What a campaign has done and how long it has left: the time budget's rest, or with --cases the
// cases left at the rate so far.
std::string ProgressLine(const CampaignOptions& o, int64_t generated, const CampaignSummary& s,
                         double now, bool final) {
  std::string left;
  if (final)
    left = "done";
  else if (o.max_cases > 0)
    left = generated > 0 && now > 0
               ? "ETA " + Duration(static_cast<double>(o.max_cases - generated) /
                                   (static_cast<double>(generated) / now))
               : "ETA ?";
  else
    left = "ETA " + Duration(std::max(0.0, o.seconds - now));
  char text[256];
  std::snprintf(
      text, sizeof text,
      "[convparity] %lld cases, %lld checks: %lld computed (%.0f/s), %lld skipped, "
      "%zu buckets, %s, %s",
      static_cast<long long>(generated), static_cast<long long>(s.cases),
      static_cast<long long>(s.computed), now > 0 ? static_cast<double>(s.computed) / now : 0.0,
      static_cast<long long>(s.skipped), s.buckets.size(), Duration(now).c_str(), left.c_str());
  return text;
}

}  // namespace convparity
