// The options every subcommand shares (INTERFACES.md, "Common options"), parsed into a plain
// struct; the commands never see argv.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/conv_case.h"
#include "core/status.h"

namespace convparity {

constexpr int kExitParity = 0, kExitDiscrepancy = 1, kExitBadInput = 2, kExitInternal = 3;

struct CommonFlags {
  std::vector<std::string> suts;
  std::vector<std::string> directions;
  std::string dims = "1,2,3";
  std::string fill = "both";
  uint64_t seed = 1;
  double seconds = 60;
  int64_t cases = 0;
  int64_t max_macs = 200000;
  int64_t stop_after_buckets = 0;
  int jobs = 1;
  std::string shard = "0/1";
  std::string corpus;
  std::string out = "convparity-out";
  double timeout = 30;
  bool no_isolation = false;
  bool quiet = false;
  bool json = false;
};

Result<std::vector<Fill>> FillsFor(const std::string& mode);  // exact | random | both | one fill
Result<std::vector<Direction>> DirectionsFor(const std::vector<std::string>& names);
Result<std::vector<int>> DimsFor(const std::string& text);
Result<std::pair<int, int>> ShardFor(const std::string& text);  // "I/N"

// Prints "convparity: <message>" and returns the exit code for the status.
int Fail(const Status& st);

}  // namespace convparity
