#include "reports/json_values.h"

#include <cctype>
#include <cmath>
#include <cstdio>
#include <ctime>

namespace convparity {

nlohmann::json RealToJson(double v) {
  if (std::isnan(v)) return "nan";
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  return v;
}

std::string JsonFileText(const nlohmann::json& j) {
  return j.dump(2, ' ', /*ensure_ascii=*/false, nlohmann::json::error_handler_t::replace) + "\n";
}

std::string Iso8601(std::chrono::system_clock::time_point t) {
  using std::chrono::duration_cast;
  using std::chrono::milliseconds;
  // Floor division, so that times before 1970 (an unset field) still print a valid date.
  int64_t ms = duration_cast<milliseconds>(t.time_since_epoch()).count();
  int64_t seconds = ms >= 0 ? ms / 1000 : -((-ms + 999) / 1000);
  int millis = static_cast<int>(ms - seconds * 1000);
  std::time_t tt = static_cast<std::time_t>(seconds);
  std::tm tm{};
  gmtime_r(&tt, &tm);
  char buf[64];
  std::snprintf(buf, sizeof buf, "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ", tm.tm_year + 1900,
                tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec, millis);
  return buf;
}

std::optional<std::chrono::system_clock::time_point> ParseIso8601(const std::string& text) {
  static constexpr char kPattern[] = "dddd-dd-ddTdd:dd:dd";  // d: a digit
  auto digit = [&](size_t i) {
    return i < text.size() && std::isdigit(static_cast<unsigned char>(text[i]));
  };
  size_t pos = 0;
  for (; kPattern[pos] != '\0'; ++pos)
    if (kPattern[pos] == 'd' ? !digit(pos) : pos >= text.size() || text[pos] != kPattern[pos])
      return std::nullopt;
  int millis = 0, digits = 0;
  const bool fraction = pos < text.size() && text[pos] == '.';
  for (pos += fraction; fraction && digit(pos); ++pos, ++digits)
    if (digits < 3) millis = millis * 10 + (text[pos] - '0');
  if ((fraction && digits == 0) || pos + 1 != text.size() || text[pos] != 'Z') return std::nullopt;
  for (; digits < 3; ++digits) millis *= 10;
  std::tm tm{};
  std::sscanf(text.c_str(), "%4d-%2d-%2dT%2d:%2d:%2d", &tm.tm_year, &tm.tm_mon, &tm.tm_mday,
              &tm.tm_hour, &tm.tm_min, &tm.tm_sec);
  if (tm.tm_year < 1970 || tm.tm_year > 2200) return std::nullopt;
  tm.tm_year -= 1900;  // struct tm counts years from 1900 and months from 0
  tm.tm_mon -= 1;
  const auto t =
      std::chrono::system_clock::from_time_t(timegm(&tm)) + std::chrono::milliseconds(millis);
  // timegm normalizes (February 30 becomes March 2): a date that moved did not exist.
  if (Iso8601(t).compare(0, 19, text, 0, 19) != 0) return std::nullopt;
  return t;
}

}  // namespace convparity
