// How long a SUT may take on a case before it is hung (issue 24). A gate that calls a slow but
// correct stack hung gets switched off, so the limit follows the work: the oracle's time for the
// case and the SUT's own speed on the cases it already ran. A run that still runs out of it is run
// again alone, under a limit of the CPU time its process tree used (load from other processes does
// not count there), before it is called hung; one that finishes then is slow, not a finding.
#pragma once

#include <cstdint>
#include <map>
#include <mutex>
#include <set>
#include <string>

namespace convparity {

// A SUT's float32 run against the oracle's float64 one (ATen's slow path) on the same case: the
// adaptive limit's factor. Generous: a tight factor would turn a slow library into hangs.
constexpr double kTimeoutPerOracleSecond = 50;
// The same against the SUT's own slowest time per multiply-add so far.
constexpr double kTimeoutPerOwnSecond = 10;
// Cases smaller than this say more about a SUT's fixed cost per call than about its speed.
constexpr int64_t kSpeedMinMacs = 10000;
// The confirming run's CPU-time limit, against the first limit.
constexpr double kConfirmFactor = 2;
// Preparing a case (the inputs, the oracle's float64 reference) may take this long per
// multiply-add before the worker is given up: ATen's slowest float64 path, a grouped 3-D
// convolution, took 7 ns per multiply-add here (oneDNN's shapes_3d_resnext101: 4.2 billion
// multiply-adds, about 30 s), and a loaded machine takes several times that.
constexpr double kPrepareSecondsPerMac = 100e-9;

// What the runs so far say of each SUT, shared by every runner of this process (a triage's runner
// learns from the campaign's workers).
class SutSpeeds {
 public:
  static SutSpeeds& Shared();
  // `sut` finished a case in `seconds` of its own time: it is set up (loaded, started, compiled)
  // in this process's workers, and its speed is known from cases of kSpeedMinMacs or more.
  void Observe(const std::string& sut, double seconds, int64_t macs);
  // Whether `sut` has finished a case: its first run includes its set-up and gets the full limit.
  bool Warm(const std::string& sut);
  double SecondsPerMac(const std::string& sut);  // the slowest seen; 0 while unknown

 private:
  std::mutex mu_;
  std::set<std::string> warm_;
  std::map<std::string, double> seconds_per_mac_;
};

struct TimeLimit {
  double floor = 0;  // > 0: the limit follows the work; 0: always `cap` (the runner's timeout)
  double cap = 30;

  // The wall-clock limit of a first run of `sut` on a case of `macs` whose oracle took
  // `oracle_seconds`.
  double First(const std::string& sut, double oracle_seconds, int64_t macs) const;
  // The confirming run of one that ran out of `first`: CPU seconds, and a wall-clock bound for a
  // SUT that blocks without using any.
  double ConfirmCpu(double first) const;
  double ConfirmWall(double first) const;
  // The wall-clock limit of preparing a case of `macs` (the oracle is not the SUT: its time is
  // not the SUT's limit).
  double Prepare(int64_t macs) const;
};

}  // namespace convparity
