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

// A file that is not a case (unreadable, malformed, an illegal problem): its status names the file.
struct UnreadFile {
  std::string source;
  Status status;
};

struct CaseFiles {
  std::vector<LoadedCase> cases;
  std::vector<UnreadFile> unread;  // in the same stable order as the cases
};

// Files and folders, every file read: those that are not cases are listed apart, so that a gate
// can replay the others and report each. Errs only on a path that is neither file nor folder, or a
// folder it cannot list.
Result<CaseFiles> ReadCaseFiles(const std::vector<std::string>& paths);

// Files and folders only; a malformed file is an error naming it (the first, in that order).
Result<std::vector<LoadedCase>> LoadCaseFiles(const std::vector<std::string>& paths);

}  // namespace convparity
