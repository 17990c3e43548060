#include "harness/engine/time_limits.h"

#include <algorithm>

namespace convparity {

SutSpeeds& SutSpeeds::Shared() {
  static SutSpeeds speeds;
  return speeds;
}

void SutSpeeds::Observe(const std::string& sut, double seconds, int64_t macs) {
  std::lock_guard<std::mutex> lock(mu_);
  warm_.insert(sut);
  if (macs < kSpeedMinMacs) return;
  double& slowest = seconds_per_mac_[sut];
  slowest = std::max(slowest, seconds / static_cast<double>(macs));
}

bool SutSpeeds::Warm(const std::string& sut) {
  std::lock_guard<std::mutex> lock(mu_);
  return warm_.count(sut) != 0;
}

double SutSpeeds::SecondsPerMac(const std::string& sut) {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = seconds_per_mac_.find(sut);
  return it == seconds_per_mac_.end() ? 0 : it->second;
}

double TimeLimit::First(const std::string& sut, double oracle_seconds, int64_t macs) const {
  SutSpeeds& speeds = SutSpeeds::Shared();
  if (floor <= 0 || !speeds.Warm(sut)) return cap;
  const double own = kTimeoutPerOwnSecond * speeds.SecondsPerMac(sut) * static_cast<double>(macs);
  return std::min(cap, std::max({floor, kTimeoutPerOracleSecond * oracle_seconds, own}));
}

double TimeLimit::ConfirmCpu(double first) const {
  return std::min(cap, std::max(floor, kConfirmFactor * first));
}

double TimeLimit::ConfirmWall(double first) const { return std::max(cap, 3 * ConfirmCpu(first)); }

double TimeLimit::Prepare(int64_t macs) const {
  return std::max(cap, kPrepareSecondsPerMac * static_cast<double>(macs));
}

}  // namespace convparity
