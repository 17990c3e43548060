// CaseToJson: writing a case file (convparity.case/1).
#include <algorithm>
#include <vector>

#include "core/conv_case.h"
#include "core/descriptor.h"
#include "core/problem_fields.h"

namespace convparity {
namespace {

using nlohmann::json;

// A form field's JSON value (core/problem_fields.def): the rank and whether it is transposed.
json FormToJson(int v) { return v; }
json FormToJson(bool v) { return v; }

json ProblemToJson(const ConvProblem& p) {
  int r = std::max(0, std::min(p.rank, kMaxSpatialRank));
  json j = json::object();
#define CONVPARITY_FORM(field, ...) j[#field] = FormToJson(p.field);
#define CONVPARITY_ENUM(field, type, values, ...) j[#field] = EnumName(values, p.field, p.rank);
#define CONVPARITY_SWITCH(field, ...) j[#field] = p.field;
#include "core/problem_fields.def"
  for (const IntegerField& f : kIntegerFields)
    j[f.name] = f.count
                    ? json(p.*f.count)
                    : json(std::vector<int64_t>((p.*f.sizes).begin(), (p.*f.sizes).begin() + r));
  return j;
}

}  // namespace

json CaseToJson(const ConvCase& c, bool with_descriptor) {
  json j = json::object();
  j["schema"] = kCaseSchema;
  // A problem with a field no descriptor can spell (negative, huge, bad rank) goes without one:
  // the expanded problem alone still reproduces it, and reading it back stays exact.
  if (with_descriptor) {
    std::string descriptor = CaseDescriptor(c.problem, c.direction);
    Result<ParsedDescriptor> parsed = ParseDescriptor(descriptor);
    if (parsed.ok() && parsed->problem == c.problem) j["descriptor"] = descriptor;
  }
  j["problem"] = ProblemToJson(c.problem);
  j["direction"] = DirectionName(c.direction);
  j["sut"] = c.sut;
  j["fill"] = FillName(c.fill);
  j["seed"] = c.seed;  // an unsigned JSON integer: nlohmann keeps all 64 bits
  j["expect"] = VerdictName(c.expect);
  if (!c.note.empty()) j["note"] = c.note;
  if (*c.graph != ConvForm()) j["graph"] = c.graph->name;
  if (c.transform)
    j["transform"] = {{"pipeline", c.transform->pipeline}, {"graph", c.transform->graph}};
  // Written only when set, so that cases without them stay byte-identical to older files.
  if (c.algorithm != Algorithm::kDirect) j["algorithm"] = AlgorithmName(c.algorithm);
  if (!c.origin.empty()) j["origin"] = OriginToJson(c.origin);
  if (!c.spelling.plain()) j["spelling"] = SpellingToJson(c.spelling);
  return j;
}

}  // namespace convparity
