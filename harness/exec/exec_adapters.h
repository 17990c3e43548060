// The adapters of adapters/ that speak the process protocol, by name: `--sut tfjs-wasm` starts
// `node <adapters>/tfjs/tfjs_sut.js wasm`. Their commands are the project's own files, never taken
// from a case file, so a case file may name them.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/status.h"

namespace convparity {

struct ExecAdapter {
  std::string name;         // the SUT name, e.g. tfjs-wasm
  std::string description;  // for `convparity list`
  std::string program;      // run from PATH unless absolute, e.g. node
  std::string script;       // relative to the adapters folder
  std::vector<std::string> args;
  std::string needs;  // a path relative to the adapters folder that must exist (npm packages)
  // > 0: campaigns also draw channel counts that are multiples of this (ProblemSpace).
  int64_t channel_multiple = 0;
  // A frontend: it reads the models convparity writes (its hello names the format), of every
  // graph form.
  bool reads_models = false;
};

const std::vector<ExecAdapter>& ExecAdapters();
const ExecAdapter* FindExecAdapter(const std::string& name);

// $CONVPARITY_ADAPTERS_DIR, else the source tree's adapters/ folder.
std::string AdaptersDir();

// "" when the adapter can run here, else why not ("node_modules missing: run scripts/setup.sh").
std::string AdapterUnavailableReason(const ExecAdapter& adapter);

// `s` as one word for /bin/sh: as it is when that is safe, else in single quotes.
std::string ShellWord(const std::string& s);

// Its command line for ExecSut, or Invalid("<name> is unavailable: <reason>").
Result<std::string> AdapterCommand(const ExecAdapter& adapter);

}  // namespace convparity
