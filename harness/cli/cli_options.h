// The command line's flags, declared once in flags.def and parsed into a plain struct; the commands
// never see argv.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/conv_case.h"
#include "core/defaults.h"
#include "core/status.h"
#include "harness/engine/case_runner.h"
#include "harness/engine/triage.h"
#include "harness/suts/sut_config.h"

namespace convparity {

constexpr int kExitParity = 0, kExitDiscrepancy = 1, kExitBadInput = 2, kExitInternal = 3;

// The subcommands, as bits: a flag's line in flags.def names the commands that take it.
enum Command : uint32_t {
  kFuzz = 1u << 0,
  kRepro = 1u << 1,
  kCheck = 1u << 2,
  kShrink = 1u << 3,
  kList = 1u << 4,
  kImportBenchdnn = 1u << 5,
  kImportFuzzInput = 1u << 6,
  kExportFuzzSeeds = 1u << 7,
  kMerge = 1u << 8,
  kCompare = 1u << 9,
  kReport = 1u << 10,
  kWorker = 1u << 11,  // internal: runs cases for a parent process
  kImportOnnx = 1u << 12,
  kModel = 1u << 13,
  // The commands that run cases on SUTs, and those that make SUTs by name.
  kRunsCases = kFuzz | kRepro | kCheck | kShrink | kCompare | kReport,
  kNamesSuts = kRunsCases | kList | kImportFuzzInput | kExportFuzzSeeds,
  // The imports of other tools' problems: the same scaling, limits, cases and summary.
  kImports = kImportBenchdnn | kImportOnnx,
};

// Every flag's value, one field per line of flags.def (with its default there).
struct Flags {
#define CONVPARITY_FLAG(field, type, init, ...) type field = init;
#include "harness/cli/flags.def"
#undef CONVPARITY_FLAG
};

Result<std::vector<Fill>> FillsFor(const std::string& mode);  // exact | random | both | one fill
Result<std::vector<Direction>> DirectionsFor(const std::vector<std::string>& names);
Result<std::vector<int>> DimsFor(const std::string& text);
Result<std::pair<int, int>> ShardFor(const std::string& text);  // "I/N"
// Worker processes: --jobs when given, else one per core this process may run on.
int JobsFor(const Flags& f);
// How the replaying commands run their cases: --isolate, --timeout, --jobs.
RunnerOptions RunnerFor(const Flags& f, const CheckContext& context);
Isolation IsolationFor(const Flags& f);  // --isolate, checked by its parser
// How a discrepancy is triaged (fuzz, shrink): --isolate, --timeout, --timeout-floor,
// --malloc-check, --max-shrink-calls; the shrink budget is the command's to set.
TriageOptions TriageOptionsFor(const Flags& f, const CheckContext& context);

// The size limits every case is checked against before anything is allocated (CheckLimits):
// --max-elements and --max-extent, and --max-macs when it was given (without it the generator's
// cap is not a limit on replayed cases).
Limits LimitsFor(const Flags& f, bool max_macs_given);

// The process's SutConfig from the flags: --config, --sut-map, --allow-sut, the code-loading
// --sut values (typed by the user, hence approved) and --timeout.
Result<SutConfig> ConfigureSuts(const Flags& f);

// A message on one line whatever it quotes (a path, a SUT name or a flag value may hold a newline):
// control bytes are written as \xNN, as the descriptor parser's messages do.
std::string OneLine(const std::string& message);
// Prints "convparity: <message>" on one line and returns the exit code for the status.
int Fail(const Status& st);

}  // namespace convparity
