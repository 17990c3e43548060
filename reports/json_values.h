// How values JSON cannot hold natively are written in every file reports/ emits, and read back.
#pragma once

#include <chrono>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

namespace convparity {

// A float64 as JSON: finite values as numbers; JSON has no infinity or NaN, so those travel as the
// strings "inf", "-inf" and "nan" (the schemas' `real` type). A string rather than null keeps the
// information: an infinite error (a NaN result) and an infinite bound use (an error where the bound
// is zero) mean different things.
nlohmann::json RealToJson(double v);

// The text of a file we write: indented, newline-terminated, and never throwing — invalid UTF-8
// (which nlohmann's plain dump() throws on, e.g. in a case's note) becomes U+FFFD.
std::string JsonFileText(const nlohmann::json& j);

// UTC, ISO 8601 with milliseconds: "2026-11-22T03:44:03.120Z".
std::string Iso8601(std::chrono::system_clock::time_point t);
// Its inverse: "2026-11-22T03:44:03.120Z" as Iso8601 writes it (any number of fraction digits,
// read to the millisecond); nullopt for anything else, including dates that do not exist and years
// a system_clock cannot hold everywhere.
std::optional<std::chrono::system_clock::time_point> ParseIso8601(const std::string& text);

}  // namespace convparity
