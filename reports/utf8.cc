#include "reports/utf8.h"

#include <utility>
#include <vector>

namespace convparity {

char32_t DecodeUtf8(const std::string& s, size_t* pos) {
  const size_t i = *pos;
  const unsigned char b0 = static_cast<unsigned char>(s[i]);
  *pos = i + 1;
  if (b0 < 0x80) return b0;
  int length;
  char32_t c, min;
  if (b0 >= 0xC2 && b0 <= 0xDF) {
    length = 2, c = b0 & 0x1F, min = 0x80;
  } else if (b0 >= 0xE0 && b0 <= 0xEF) {
    length = 3, c = b0 & 0x0F, min = 0x800;
  } else if (b0 >= 0xF0 && b0 <= 0xF4) {
    length = 4, c = b0 & 0x07, min = 0x10000;
  } else {
    return kReplacementChar;  // a continuation byte, or a lead byte no valid text holds
  }
  if (i + length > s.size()) return kReplacementChar;
  for (int k = 1; k < length; ++k) {
    const unsigned char b = static_cast<unsigned char>(s[i + k]);
    if ((b & 0xC0) != 0x80) return kReplacementChar;
    c = (c << 6) | (b & 0x3F);
  }
  if (c < min || c > 0x10FFFF || (c >= 0xD800 && c <= 0xDFFF)) return kReplacementChar;
  *pos = i + length;
  return c;
}

void AppendUtf8(char32_t c, std::string* out) {
  if (c < 0x80) {
    *out += static_cast<char>(c);
  } else if (c < 0x800) {
    *out += static_cast<char>(0xC0 | (c >> 6));
    *out += static_cast<char>(0x80 | (c & 0x3F));
  } else if (c < 0x10000) {
    *out += static_cast<char>(0xE0 | (c >> 12));
    *out += static_cast<char>(0x80 | ((c >> 6) & 0x3F));
    *out += static_cast<char>(0x80 | (c & 0x3F));
  } else {
    *out += static_cast<char>(0xF0 | (c >> 18));
    *out += static_cast<char>(0x80 | ((c >> 12) & 0x3F));
    *out += static_cast<char>(0x80 | ((c >> 6) & 0x3F));
    *out += static_cast<char>(0x80 | (c & 0x3F));
  }
}

std::string ValidUtf8(const std::string& s) {
  std::string out;
  out.reserve(s.size());
  for (size_t pos = 0; pos < s.size();) {
    const size_t start = pos;
    const char32_t c = DecodeUtf8(s, &pos);
    if (c == kReplacementChar && pos == start + 1 && static_cast<unsigned char>(s[start]) >= 0x80)
      AppendUtf8(kReplacementChar, &out);
    else
      out.append(s, start, pos - start);
  }
  return out;
}

void MakeValidUtf8(nlohmann::json* root) {
  std::vector<nlohmann::json*> stack{root};
  while (!stack.empty()) {
    nlohmann::json* j = stack.back();
    stack.pop_back();
    if (j->is_string()) {
      std::string& s = j->get_ref<std::string&>();
      std::string valid = ValidUtf8(s);
      if (valid != s) s = std::move(valid);
    } else if (j->is_array()) {
      for (nlohmann::json& child : *j) stack.push_back(&child);
    } else if (j->is_object()) {
      // Keys cannot change in place: rebuild the object only when one needs it.
      bool bad_key = false;
      for (const auto& item : j->items()) bad_key = bad_key || ValidUtf8(item.key()) != item.key();
      if (bad_key) {
        nlohmann::json fixed = nlohmann::json::object();
        for (auto& item : j->items()) fixed[ValidUtf8(item.key())] = std::move(item.value());
        *j = std::move(fixed);
      }
      for (auto& item : j->items()) stack.push_back(&item.value());
    }
  }
}

}  // namespace convparity
