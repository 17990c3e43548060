#include "reports/json_values.h"

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

}  // namespace convparity
