#include "core/case_origin.h"

#include <iterator>

namespace convparity {
namespace {

using nlohmann::json;

const char* const kOriginFields[] = {"format", "file", "line", "name", "repro", "via"};
constexpr size_t kMaxVia = 64;  // deeper than any include chain the importer accepts

Status TypeError(const std::string& field, const char* expected, const json& v) {
  return Status::Invalid("field 'origin." + field + "' must be " + expected + ", got " +
                         std::string(v.type_name()));
}

Result<std::string> ReadText(const json& j, const char* field, bool required) {
  if (!j.contains(field)) {
    if (required) return Status::Invalid(std::string("field 'origin.") + field + "' is missing");
    return std::string();
  }
  const json& v = j.at(field);
  if (!v.is_string()) return TypeError(field, "a string", v);
  std::string s = v.get<std::string>();
  if (required && s.empty())
    return Status::Invalid(std::string("field 'origin.") + field + "' is empty");
  return s;
}

}  // namespace

bool CaseOrigin::operator==(const CaseOrigin& o) const {
  return format == o.format && file == o.file && line == o.line && name == o.name &&
         repro == o.repro && via == o.via;
}

json OriginToJson(const CaseOrigin& o) {
  json j = {{"format", o.format}, {"file", o.file}, {"line", o.line}};
  if (!o.name.empty()) j["name"] = o.name;
  if (!o.repro.empty()) j["repro"] = o.repro;
  if (!o.via.empty()) j["via"] = o.via;
  return j;
}

Result<CaseOrigin> OriginFromJson(const json& j) {
  if (!j.is_object())
    return Status::Invalid("field 'origin' must be an object, got " + std::string(j.type_name()));
  for (const auto& item : j.items()) {
    bool known = false;
    for (const char* name : kOriginFields) known |= item.key() == name;
    if (!known)
      return Status::Invalid("unknown field \"origin." + item.key() +
                             "\"; expected one of format, file, line, name, repro, via");
  }
  CaseOrigin o;
  Result<std::string> format = ReadText(j, "format", true);
  if (!format.ok()) return format.status();
  o.format = *format;
  Result<std::string> file = ReadText(j, "file", true);
  if (!file.ok()) return file.status();
  o.file = *file;
  if (!j.contains("line")) return Status::Invalid("field 'origin.line' is missing");
  const json& line = j.at("line");
  if (!line.is_number_integer()) return TypeError("line", "an integer", line);
  // Read unsigned first: a value above int64's range would wrap; it is no line number anyway.
  const bool in_range = line.is_number_unsigned()
                            ? line.get<uint64_t>() >= 1 && line.get<uint64_t>() <= (1ull << 62)
                            : line.get<int64_t>() >= 1;
  if (!in_range)
    return Status::Invalid("field 'origin.line' is " + line.dump() + ", expected a line number");
  o.line = line.get<int64_t>();
  Result<std::string> name = ReadText(j, "name", false);
  if (!name.ok()) return name.status();
  o.name = *name;
  Result<std::string> repro = ReadText(j, "repro", false);
  if (!repro.ok()) return repro.status();
  o.repro = *repro;
  if (j.contains("via")) {
    const json& via = j.at("via");
    if (!via.is_array()) return TypeError("via", "an array of strings", via);
    if (via.size() > kMaxVia)
      return Status::Invalid("field 'origin.via' has " + std::to_string(via.size()) +
                             " entries, more than " + std::to_string(kMaxVia));
    for (const json& step : via) {
      if (!step.is_string()) return TypeError("via", "an array of strings", step);
      o.via.push_back(step.get<std::string>());
    }
  }
  return o;
}

}  // namespace convparity
