// JUnit XML, the test report format CI systems read (Jenkins, GitLab, GitHub actions that publish
// test results): one <testsuite> inside <testsuites>, one <testcase> per check.
#pragma once

#include <string>
#include <vector>

namespace convparity {

struct JUnitCase {
  std::string classname;  // CI tools group by it: e.g. the SUT and direction
  std::string name;       // e.g. the case's descriptor or file
  double seconds = 0;
  enum Status { kPassed, kFailed, kSkipped, kError } status = kPassed;
  std::string message;  // one line: the failure's or skip's reason
  std::string detail;   // the body of <failure>/<error>: metrics, repro command …
};

// A complete UTF-8 document. Text is escaped for XML; bytes that are not UTF-8, and characters XML
// 1.0 forbids (controls other than tab, newline and carriage return; U+FFFE, U+FFFF), become
// U+FFFD; newlines and tabs in attributes are written as character references so that they
// survive attribute normalization. Non-finite or negative times are written as 0.
std::string JUnitXml(const std::vector<JUnitCase>& cases, const std::string& suite_name,
                     double seconds);

}  // namespace convparity
