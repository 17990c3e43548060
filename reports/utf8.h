// Text from outside (SUT messages, plugin names, notes) may hold any bytes; the files we emit must
// stay valid UTF-8 (nlohmann's dump() throws on anything else) and, for XML, valid XML 1.0.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include <nlohmann/json.hpp>

namespace convparity {

constexpr char32_t kReplacementChar = 0xFFFD;

// Decodes the code point at s[*pos] and advances *pos past it. An invalid sequence (a stray or
// truncated byte, an overlong form, a surrogate, a value above U+10FFFF) decodes as
// kReplacementChar and advances by one byte, so decoding always makes progress.
char32_t DecodeUtf8(const std::string& s, size_t* pos);
void AppendUtf8(char32_t c, std::string* out);

// `s` with every invalid sequence replaced by U+FFFD; valid text is returned unchanged.
std::string ValidUtf8(const std::string& s);

// Replaces invalid UTF-8 in every string and object key of `j`, in place. Iterative, so any depth
// is safe.
void MakeValidUtf8(nlohmann::json* j);

}  // namespace convparity
