// Reading cases from the command line: case files, corpus folders (every *.json below them, in a
// stable order) and, for repro, descriptors.
#pragma once

#include <string>
#include <vector>

#include "core/conv_case.h"
#include "core/status.h"

namespace convparity {

struct LoadedCase {
  std::string source;  // file path, or the descriptor text
  ConvCase c;
};

// Files and folders only; a malformed file is an error naming it.
Result<std::vector<LoadedCase>> LoadCaseFiles(const std::vector<std::string>& paths);

}  // namespace convparity
