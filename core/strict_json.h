// Reading JSON strictly, the parts that the case reader (core/case_json_read.cc) and the summary
// reader (reports/summary_read.cc) share. Each reader words its own messages (tests and users
// match them); these say what is wrong, and the readers say it.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "core/status.h"

namespace convparity {

// A JSON integer >= 0, held signed or unsigned (nlohmann picks by the value's origin); nullopt for
// anything else, floats with whole values included.
std::optional<uint64_t> WholeNumber(const nlohmann::json& v);

// The first key of `object` that is not among `names`; nullopt when there is none (or `object` is
// not an object).
std::optional<std::string> FirstUnknownField(const nlohmann::json& object,
                                             const std::vector<std::string>& names);

// "a, b, c".
std::string NameList(const std::vector<std::string>& names);

// Whether arrays and objects nest deeper than `limit` levels (a scalar is 1, `[1]` 2). Iterative,
// so that a pathological value cannot exhaust the stack while being measured.
bool DeeperThan(const nlohmann::json& root, int limit);

// Parses `text`, rejecting what nlohmann accepts silently: a duplicate key in an object (it keeps
// the last one) and nesting deeper than `max_depth`. Messages name `what`: "malformed case JSON:
// <nlohmann's message, cut at 300 characters>", "case JSON nests deeper than 64 levels",
// "case JSON has a duplicate field \"x\"".
Result<nlohmann::json> ParseStrictJson(const std::string& text, int max_depth,
                                       const std::string& what);

}  // namespace convparity
