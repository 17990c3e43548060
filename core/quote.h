// Quoting text for messages and command lines, written once: a descriptor's and a case file's
// error messages quote what they were given, and repro lines and tests build shell commands.
#pragma once

#include <string>
#include <string_view>

namespace convparity {

// How QuoteForMessage keeps untrusted text on one line. The two styles give different texts for
// the same bytes, and tests and users match both, so each reader keeps its own.
enum class QuoteEscapes {
  // \" and \\, and \xNN for any byte outside printable ASCII; cut at 80 characters of the quoted
  // text, escapes included (descriptor messages: they speak of bytes and offsets).
  kBytes,
  // A JSON string: \uXXXX outside ASCII, U+FFFD for invalid UTF-8; cut at 80 bytes of the input
  // (case-file messages: the text came from JSON).
  kJson,
};

// `s` in double quotes for a one-line error message, "..." before the closing quote when cut.
std::string QuoteForMessage(std::string_view s, QuoteEscapes escapes);

// `s` in single quotes as one /bin/sh word, whatever it holds (a ' becomes '\'').
std::string ShellSingleQuoted(std::string_view s);

}  // namespace convparity
