// Files the harness writes: atomically (temp file + rename), so an interrupted run never leaves a
// torn file, and cases named by a hash of their canonical content, so duplicates collapse.
#pragma once

#include <set>
#include <string>
#include <vector>

#include "core/conv_case.h"
#include "core/status.h"

namespace convparity {

Status WriteFileAtomically(const std::string& path, const std::string& content);
Result<std::string> ReadFile(const std::string& path, size_t max_bytes = 16 << 20);

// "<dir>/<hash>.json"; creates dir. Returns the path written.
Result<std::string> WriteCaseFile(const std::string& dir, const ConvCase& c);
std::string CaseFileName(const ConvCase& c);
// `c` once per direction and fill (an import's cases of one problem) into dir: each path written
// goes into `paths` (equal cases share one file).
Status WriteCasePerDirectionAndFill(const std::string& dir, ConvCase c,
                                    const std::vector<Direction>& directions,
                                    const std::vector<Fill>& fills, std::set<std::string>* paths);

}  // namespace convparity
