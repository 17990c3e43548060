#include "harness/suts/sut_config.h"

#include <cctype>
#include <nlohmann/json.hpp>

#include "harness/exec/exec_adapters.h"
#include "harness/io/files.h"

namespace convparity {
namespace {

using nlohmann::json;

constexpr const char* kConfigSchema = "convparity.config/1";
constexpr size_t kMaxConfigBytes = 1 << 20;
constexpr size_t kMaxNameBytes = 64;
constexpr size_t kMaxSpecBytes = 4096;

bool IsLogicalName(const std::string& name) {
  if (name.empty() || name.size() > kMaxNameBytes) return false;
  for (char c : name)
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '_' || c == '-'))
      return false;
  return true;
}

std::string Quoted(const std::string& s) {
  std::string shown;
  for (char ch : s.substr(0, 120)) {
    const unsigned char c = static_cast<unsigned char>(ch);
    shown += (c < 0x20 || c == 0x7f) ? '?' : ch;
  }
  return "'" + shown + (s.size() > 120 ? "...'" : "'");
}

}  // namespace

bool LoadsOrRunsCode(const std::string& spec) {
  return spec.rfind("plugin:", 0) == 0 || spec.rfind("exec:", 0) == 0;
}

Status SutConfig::AddMapping(const std::string& text, bool from_file) {
  const size_t eq = text.find('=');
  const std::string name = text.substr(0, eq == std::string::npos ? text.size() : eq);
  if (eq == std::string::npos || !IsLogicalName(name))
    return Status::Invalid(
        "--sut-map: expected NAME=SPEC with NAME of letters, digits, '.', '_' "
        "or '-' (at most 64), like mylib=plugin:/opt/lib/libmylib.so, got " +
        Quoted(text));
  const std::string spec = text.substr(eq + 1);
  if (spec.empty() || spec.size() > kMaxSpecBytes)
    return Status::Invalid("--sut-map " + name + ": the SUT it stands for must have 1 to " +
                           std::to_string(kMaxSpecBytes) + " bytes");
  if (map.count(spec) != 0 || spec == name)
    return Status::Invalid("--sut-map " + name +
                           ": a name must stand for a SUT, not for another "
                           "mapped name (" +
                           Quoted(spec) + ")");
  map[name] = spec;
  if (from_file) from_config_file.insert(name);
  if (LoadsOrRunsCode(spec)) allowed.insert(spec);
  return Status::Ok();
}

Status SutConfig::LoadFile(const std::string& path) {
  Result<std::string> text = ReadFile(path, kMaxConfigBytes);
  if (!text.ok()) return text.status().WithContext("--config");
  const json j = json::parse(*text, nullptr, /*allow_exceptions=*/false);
  const std::string where = "--config " + path;
  if (j.is_discarded() || !j.is_object()) return Status::Invalid(where + ": not a JSON object");
  if (j.value("schema", json()) != json(kConfigSchema))
    return Status::Invalid(where + ": expected \"schema\": \"" + kConfigSchema + "\"");
  for (const auto& [key, value] : j.items())
    if (key != "schema" && key != "suts")
      return Status::Invalid(where + ": unknown field \"" + key.substr(0, 40) +
                             "\" (known: schema, suts)");
  if (!j.contains("suts") || !j["suts"].is_object())
    return Status::Invalid(where + ": expected \"suts\": {\"NAME\": \"SPEC\", ...}");
  for (const auto& [name, spec] : j["suts"].items()) {
    if (!spec.is_string())
      return Status::Invalid(where + ": suts." + name.substr(0, 64) + " must be a string");
    CP_RETURN_IF_ERROR(
        AddMapping(name + "=" + spec.get<std::string>(), /*from_file=*/true).WithContext(where));
  }
  config_file = path;
  return Status::Ok();
}

Status SutConfig::CheckMappings() const {
  for (const auto& [name, spec] : map)
    if (map.count(spec) != 0)
      return Status::Invalid("--sut-map " + name +
                             ": a name must stand for a SUT, not for "
                             "another mapped name (" +
                             Quoted(spec) + ")");
  return Status::Ok();
}

std::string SutConfig::Resolve(const std::string& name) const {
  auto it = map.find(name);
  return it == map.end() ? name : it->second;
}

Status SutConfig::AllowsFromCaseFile(const std::string& sut) const {
  if (map.count(sut) != 0 || !LoadsOrRunsCode(sut) || allowed.count(sut) != 0) return Status::Ok();
  const bool plugin = sut.rfind("plugin:", 0) == 0;
  return Status::Invalid(
      "the case names the SUT " + Quoted(sut) + ", which " +
      (plugin ? "loads a library" : "runs a command") +
      "; a case file is data and names its SUT logically: map the name with --sut-map "
      "NAME=SPEC or --config FILE, or approve this one with --allow-sut " +
      ShellWord(sut));
}

std::string SutConfig::ReproFlags(const std::string& sut) const {
  if (map.count(sut) != 0) {
    if (from_config_file.count(sut) != 0) return " --config " + ShellWord(config_file);
    return " --sut-map " + ShellWord(sut + "=" + map.at(sut));
  }
  if (LoadsOrRunsCode(sut)) return " --allow-sut " + ShellWord(sut);
  return "";
}

std::string SutConfigArgument(const SutConfig& config) {
  const json j = {{"map", config.map}, {"timeout", config.case_timeout_seconds}};
  return j.dump();  // throws on a spec that is not UTF-8 (main() then exits with an internal error)
}

Result<SutConfig> ParseSutConfigArgument(const std::string& text) {
  SutConfig config;
  const json j = json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded() || !j.is_object() || j.size() != 2 || !j.contains("map") ||
      !j["map"].is_object() || !j.contains("timeout") || !j["timeout"].is_number() ||
      !(j["timeout"].get<double>() > 0))
    return Status::Internal("worker --suts: expected {\"map\": {...}, \"timeout\": seconds}");
  for (const auto& [name, spec] : j["map"].items()) {
    if (!spec.is_string()) return Status::Internal("worker --suts: map values are strings");
    config.map[name] = spec.get<std::string>();
  }
  config.case_timeout_seconds = j["timeout"].get<double>();
  return config;
}

Status CheckCaseSutsAllowed(const std::vector<ConvCase>& cases,
                            const std::vector<std::string>& sources, const SutConfig& config) {
  for (size_t i = 0; i < cases.size(); ++i)
    CP_RETURN_IF_ERROR(config.AllowsFromCaseFile(cases[i].sut)
                           .WithContext(i < sources.size() ? sources[i] : "a case"));
  return Status::Ok();
}

}  // namespace convparity
