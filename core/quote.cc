#include "core/quote.h"

#include <nlohmann/json.hpp>

namespace convparity {
namespace {

constexpr size_t kMaxQuoted = 80;

std::string QuoteBytes(std::string_view s) {
  static const char kHex[] = "0123456789abcdef";
  std::string out = "\"";
  size_t i = 0;
  for (; i < s.size() && out.size() < kMaxQuoted; ++i) {
    const unsigned char c = static_cast<unsigned char>(s[i]);
    if (c == '"' || c == '\\') {
      out += '\\';
      out += static_cast<char>(c);
    } else if (c >= 0x20 && c < 0x7f) {
      out += static_cast<char>(c);
    } else {
      out += "\\x";
      out += kHex[c >> 4];
      out += kHex[c & 15];
    }
  }
  if (i < s.size()) out += "...";
  return out + "\"";
}

std::string QuoteJson(std::string_view s) {
  using nlohmann::json;
  const bool cut = s.size() > kMaxQuoted;
  std::string q = json(std::string(cut ? s.substr(0, kMaxQuoted) : s))
                      .dump(-1, ' ', /*ensure_ascii=*/true, json::error_handler_t::replace);
  if (cut) q.insert(q.size() - 1, "...");
  return q;
}

}  // namespace

std::string QuoteForMessage(std::string_view s, QuoteEscapes escapes) {
  return escapes == QuoteEscapes::kBytes ? QuoteBytes(s) : QuoteJson(s);
}

std::string ShellSingleQuoted(std::string_view s) {
  std::string out = "'";
  for (char c : s) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

}  // namespace convparity
