#include "harness/suts/sut_version.h"

#include <cstdio>
#include <fstream>

#include "harness/exec/exec_sut.h"
#include "harness/models/model_sut.h"
#include "harness/plugin/plugin_sut.h"
#include "harness/suts/adapter_suts.h"
#include "harness/suts/sut_registry.h"
#include "oracles/torch_oracle.h"

namespace convparity {
namespace {

// 64-bit FNV-1a of a file's bytes, as 16 hex digits: two builds of a library differ in it, two
// copies of one build on two machines do not. "unreadable" when it cannot be read.
std::string FileHash(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return "unreadable";
  uint64_t h = 0xcbf29ce484222325ull;
  char buffer[1 << 16];
  while (in.read(buffer, sizeof buffer) || in.gcount() > 0) {
    for (std::streamsize i = 0; i < in.gcount(); ++i) {
      h ^= static_cast<unsigned char>(buffer[i]);
      h *= 0x100000001b3ull;
    }
  }
  char text[17];
  std::snprintf(text, sizeof text, "%016llx", static_cast<unsigned long long>(h));
  return text;
}

const AdapterSutInfo* AdapterOf(const std::string& spec) {
  for (const AdapterSutInfo& a : AdapterSuts())
    if (spec == a.name || spec.rfind(a.name + "#", 0) == 0) return &a;
  return nullptr;
}

}  // namespace

Result<std::string> SutVersion(const std::string& name, const SutConfig& config) {
  Result<std::unique_ptr<Sut>> sut = MakeSut(name, config);
  if (!sut.ok()) return sut.status();
  if (const auto* exec = dynamic_cast<const ExecSut*>(sut->get()))
    return exec->hello().name + " " + exec->hello().version;
  const std::string spec = config.Resolve(name);
  const AdapterSutInfo* adapter = AdapterOf(spec);
  // A frontend says what it is; an adapter's library is hashed besides, as a plugin's is.
  if (const auto* model = dynamic_cast<const ModelSut*>(sut->get()))
    return model->version() +
           (adapter ? " (library " + FileHash(AdapterDirectory() + "/" + adapter->library) + ")"
                    : "");
  if (const auto* plugin = dynamic_cast<const PluginSut*>(sut->get()))
    return plugin->plugin_name() + " (plugin ABI " + std::to_string(plugin->abi_version()) +
           ", library " + FileHash(plugin->path()) + ")";
  if (adapter)
    return adapter->name + " (library " + FileHash(AdapterDirectory() + "/" + adapter->library) +
           ")";
  const std::string what = spec == name ? "" : spec + ", ";
  if (spec.rfind("torch-f32", 0) == 0) return what + "LibTorch " + TorchOracle::TorchVersion();
  return what + "convparity " + CONVPARITY_VERSION;
}

Result<std::map<std::string, std::string>> SutVersions(const std::vector<std::string>& names,
                                                       const SutConfig& config) {
  std::map<std::string, std::string> versions;
  for (const std::string& name : names) {
    Result<std::string> version = SutVersion(name, config);
    if (!version.ok()) return version.status();
    versions[name] = *version;
  }
  return versions;
}

}  // namespace convparity
