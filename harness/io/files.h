// Files the harness writes: atomically (temp file + rename), so an interrupted run never leaves a
// torn file, and cases named by a hash of their canonical content, so duplicates collapse.
#pragma once

#include <string>

#include "core/conv_case.h"
#include "core/status.h"

namespace convparity {

Status WriteFileAtomically(const std::string& path, const std::string& content);
Result<std::string> ReadFile(const std::string& path, size_t max_bytes = 16 << 20);

// "<dir>/<hash>.json"; creates dir. Returns the path written.
Result<std::string> WriteCaseFile(const std::string& dir, const ConvCase& c);
std::string CaseFileName(const ConvCase& c);

}  // namespace convparity
