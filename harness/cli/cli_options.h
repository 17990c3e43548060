// The options every subcommand shares (docs/INTERFACES.md, "Common options"), parsed into a plain
// struct; the commands never see argv.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/conv_case.h"
#include "core/defaults.h"
#include "core/status.h"
#include "harness/suts/sut_config.h"

namespace convparity {

constexpr int kExitParity = 0, kExitDiscrepancy = 1, kExitBadInput = 2, kExitInternal = 3;

struct CommonFlags {
  std::vector<std::string> suts;
  // What SUT names stand for, and which code-loading SUTs case files may name (sut_config.h).
  std::vector<std::string> sut_map;    // --sut-map NAME=SPEC
  std::vector<std::string> allow_sut;  // --allow-sut SPEC
  std::string config;                  // --config FILE
  std::vector<std::string> directions;
  std::string dims = "1,2,3";
  std::string fill = "both";
  uint64_t seed = 1;
  double seconds = defaults::kCampaignSeconds;
  int64_t cases = 0;
  int64_t max_macs = defaults::kMaxMacs;  // with --max-macs, also the limit below
  int64_t max_elements = Limits{}.max_tensor_elements;
  int64_t max_extent = Limits{}.max_extent;
  int64_t stop_after_buckets = 0;
  // fuzz: triage (issue 16)
  std::string isolate = "worker";  // worker: cases share a worker; case: one case per process
  double timeout_floor = defaults::kTimeoutFloorSeconds;  // 0: the fixed --timeout
  bool malloc_check = false;
  double shrink_seconds = defaults::kShrinkSeconds;
  int64_t max_shrink_calls = defaults::kMaxShrinkCalls;
  int jobs = 0;  // 0: one per core (JobsFor)
  std::string shard = "0/1";
  std::string corpus;
  std::string out = "convparity-out";
  double timeout = defaults::kCaseTimeoutSeconds;
  bool no_isolation = false;
  bool quiet = false;
  bool json = false;
  GraphForm graph = GraphForm::kConv;  // repro: what a descriptor's cases check
};

Result<std::vector<Fill>> FillsFor(const std::string& mode);  // exact | random | both | one fill
Result<std::vector<Direction>> DirectionsFor(const std::vector<std::string>& names);
Result<std::vector<int>> DimsFor(const std::string& text);
Result<std::pair<int, int>> ShardFor(const std::string& text);  // "I/N"
// Worker processes: --jobs when given, else one per core this process may run on.
int JobsFor(const CommonFlags& f);

// The size limits every case is checked against before anything is allocated (CheckLimits):
// --max-elements and --max-extent, and --max-macs when it was given (without it the generator's
// cap is not a limit on replayed cases).
Limits LimitsFor(const CommonFlags& f, bool max_macs_given);

// The process's SutConfig from the flags: --config, --sut-map, --allow-sut, the code-loading
// --sut values (typed by the user, hence approved) and --timeout.
Result<SutConfig> ConfigureSuts(const CommonFlags& f);

// A message on one line whatever it quotes (a path, a SUT name or a flag value may hold a newline):
// control bytes are written as \xNN, as the descriptor parser's messages do.
std::string OneLine(const std::string& message);
// Prints "convparity: <message>" on one line and returns the exit code for the status.
int Fail(const Status& st);

}  // namespace convparity
