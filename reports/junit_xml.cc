#include "reports/junit_xml.h"

#include <cmath>
#include <cstdio>

#include "reports/utf8.h"

namespace convparity {
namespace {

bool AllowedInXml(char32_t c) {
  return c == 0x9 || c == 0xA || c == 0xD || (c >= 0x20 && c <= 0xD7FF) ||
         (c >= 0xE000 && c <= 0xFFFD) || (c >= 0x10000 && c <= 0x10FFFF);
}

// Escapes for element text (attribute = false) or a double-quoted attribute value.
std::string Escape(const std::string& s, bool attribute) {
  std::string out;
  out.reserve(s.size());
  for (size_t pos = 0; pos < s.size();) {
    char32_t c = DecodeUtf8(s, &pos);
    if (!AllowedInXml(c)) c = kReplacementChar;
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':  // escaped everywhere, which also keeps "]]>" out of text
        out += "&gt;";
        break;
      case '"':
        out += attribute ? "&quot;" : "\"";
        break;
      // A parser normalizes a literal CR away, and tab/newline in attributes to spaces.
      case '\r':
        out += "&#13;";
        break;
      case '\n':
        out += attribute ? "&#10;" : "\n";
        break;
      case '\t':
        out += attribute ? "&#9;" : "\t";
        break;
      default:
        AppendUtf8(c, &out);
    }
  }
  return out;
}

std::string Seconds(double s) {
  if (!std::isfinite(s) || s < 0) s = 0;
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3f", s);
  return buf;
}

}  // namespace

std::string JUnitXml(const std::vector<JUnitCase>& cases, const std::string& suite_name,
                     double seconds) {
  int failures = 0, errors = 0, skipped = 0;
  for (const JUnitCase& c : cases) {
    failures += c.status == JUnitCase::kFailed;
    errors += c.status == JUnitCase::kError;
    skipped += c.status == JUnitCase::kSkipped;
  }
  const std::string counts = " tests=\"" + std::to_string(cases.size()) + "\" failures=\"" +
                             std::to_string(failures) + "\" errors=\"" + std::to_string(errors) +
                             "\" skipped=\"" + std::to_string(skipped) + "\" time=\"" +
                             Seconds(seconds) + "\"";
  const std::string name = Escape(suite_name, true);
  std::string xml = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
  xml += "<testsuites name=\"" + name + "\"" + counts + ">\n";
  xml += "  <testsuite name=\"" + name + "\"" + counts + ">\n";
  for (const JUnitCase& c : cases) {
    xml += "    <testcase classname=\"" + Escape(c.classname, true) + "\" name=\"" +
           Escape(c.name, true) + "\" time=\"" + Seconds(c.seconds) + "\"";
    const std::string message = Escape(c.message, true);
    switch (c.status) {
      case JUnitCase::kPassed:
        xml += "/>\n";
        continue;
      case JUnitCase::kSkipped:
        xml += ">\n      <skipped message=\"" + message + "\"/>\n";
        break;
      case JUnitCase::kFailed:
      case JUnitCase::kError: {
        const char* tag = c.status == JUnitCase::kFailed ? "failure" : "error";
        xml += ">\n      <" + std::string(tag) + " message=\"" + message + "\" type=\"" + tag +
               "\">" + Escape(c.detail, false) + "</" + tag + ">\n";
        break;
      }
    }
    xml += "    </testcase>\n";
  }
  xml += "  </testsuite>\n</testsuites>\n";
  return xml;
}

}  // namespace convparity
