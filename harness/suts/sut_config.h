// A case file is data, never code. A SUT that loads a library (`plugin:<path>`) or runs a command
// (`exec:<command line>`) is taken only from what the user typed or named: `--sut SPEC`,
// `--sut-map NAME=SPEC`, `--allow-sut SPEC`, or a configuration file given with `--config FILE`.
// Case files name their SUT logically ("mylib"); the configuration says what the name stands for.
// A case file that names a code-loading SUT the command line did not approve is bad input: one
// line, exit 2, and nothing is loaded or run.
#pragma once

#include <map>
#include <set>
#include <string>
#include <vector>

#include "core/conv_case.h"
#include "core/status.h"

namespace convparity {

// True for SUT specs that load or run code: plugin:<path>, exec:<command line>.
bool LoadsOrRunsCode(const std::string& spec);

struct SutConfig {
  std::map<std::string, std::string> map;  // logical name → spec, from --sut-map and --config
  std::set<std::string> allowed;           // code-loading specs the user approved
  std::string config_file;                 // the --config file, for repro lines
  std::set<std::string> from_config_file;  // logical names the config file defined
  double case_timeout_seconds = 30;        // --timeout: an exec: child gets 80% of it

  // Adds "NAME=SPEC" (from --sut-map). NAME: letters, digits, '.', '_', '-'.
  Status AddMapping(const std::string& text, bool from_file = false);
  // Reads a configuration file (`convparity.config/1`, JSON):
  //   {"schema": "convparity.config/1", "suts": {"NAME": "SPEC", ...}}
  Status LoadFile(const std::string& path);
  // Ok unless a mapping stands for another mapped name (names resolve once).
  Status CheckMappings() const;
  // The spec a SUT name stands for: its mapping, or the name itself.
  std::string Resolve(const std::string& name) const;
  // Ok when `sut`, as a case file names it, may run: not code-loading, or approved (an --allow-sut,
  // a --sut, or the spec of a mapping), or mapped. The message completes "<file>: ".
  Status AllowsFromCaseFile(const std::string& sut) const;
  // What a repro command line needs besides the case to make `sut` again: "" for ours,
  // " --sut-map 'NAME=SPEC'", " --config FILE", or " --allow-sut 'SPEC'".
  std::string ReproFlags(const std::string& sut) const;
};

// main() makes one from the command line and hands it down in the CheckContext
// (harness/engine/check_context.h); MakeSut resolves names through the one it is given. A worker
// gets its parent's on its command line (`convparity worker --suts ARG`), what it needs of it: the
// mappings and the timeout, as JSON {"map": {...}, "timeout": seconds}. The parse is strict.
std::string SutConfigArgument(const SutConfig& config);
Result<SutConfig> ParseSutConfigArgument(const std::string& text);

// The gate: every case's SUT may run (AllowsFromCaseFile), checked before any is made.
// `sources[i]` names where cases[i] came from.
Status CheckCaseSutsAllowed(const std::vector<ConvCase>& cases,
                            const std::vector<std::string>& sources, const SutConfig& config);

}  // namespace convparity
