// Where a case came from, when it was imported from another tool's problem list (benchdnn's batch
// files, ONNX models), so that a finding names the problem the way its owners know it: "ds2-swap
// from harness_conv_regression_general:22", "node 12 of resnet18.onnx". Optional in a case file
// (docs/INTERFACES.md, convparity.case/1).
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "core/status.h"

namespace convparity {

struct CaseOrigin {
  std::string format;  // "benchdnn", "onnx"; empty: the case has no origin
  std::string file;    // the file holding the problem
  int64_t line = 0;    // 1-based (ONNX: the node's position among the graph's nodes)
  std::string name;    // the problem's own name there (benchdnn's n"…", the node's), may be empty
  // The tool's arguments that run it (benchdnn: "--conv --dir=BWD_D …"); ONNX: the node as
  // written, its operands' shapes and attributes ("Conv [1,3,5,5] [2,3,3,3] pads=[1,1,1,1] ->
  // [1,2,5,5]").
  std::string repro;
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
