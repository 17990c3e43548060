// Where a case came from, when it was imported from another tool's problem list (today: benchdnn's
// batch files), so that a finding names the problem the way its owners know it: "ds2-swap from
// harness_conv_regression_general:22". Optional in a case file (docs/INTERFACES.md,
// convparity.case/1).
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "core/status.h"

namespace convparity {

struct CaseOrigin {
  std::string format;  // "benchdnn"; empty: the case has no origin
  std::string file;    // the file holding the problem
  int64_t line = 0;    // 1-based
  std::string name;    // the problem's own name there (benchdnn's n"…"), may be empty
  std::string repro;   // the tool's arguments that run it (benchdnn: "--conv --dir=BWD_D …")
  std::vector<std::string> via;  // "file:line" of the includes that led to `file`, outermost first

  bool empty() const { return format.empty(); }
  bool operator==(const CaseOrigin& o) const;
  bool operator!=(const CaseOrigin& o) const { return !(*this == o); }
};

nlohmann::json OriginToJson(const CaseOrigin& o);
// Strict, like the rest of a case: unknown fields, wrong types, an empty format or file, a line
// below 1 are errors naming the field ("origin.line").
Result<CaseOrigin> OriginFromJson(const nlohmann::json& j);

}  // namespace convparity
