#include "harness/suts/sut_registry.h"

#include "harness/suts/sut_family.h"

namespace convparity {

std::vector<std::string> OurSutNames() {
  std::vector<std::string> names;
  for (const SutFamily& family : SutFamilies())
    for (std::string& name : family.default_members()) names.push_back(std::move(name));
  return names;
}

std::vector<std::pair<std::string, std::string>> ListSuts(const SutConfig& config) {
  std::vector<std::pair<std::string, std::string>> all;
  for (const auto& [name, spec] : config.map)
    all.emplace_back(name, "stands for " + spec + " (--sut-map / --config)");
  for (const SutFamily& family : SutFamilies())
    for (SutListing& l : family.list())
      all.emplace_back(std::move(l.name), std::move(l.description));
  return all;
}

const SutFamily* FamilyOf(const std::string& name) {
  for (const SutFamily& family : SutFamilies())
    if (family.owns(name)) return &family;
  return nullptr;
}

Result<std::unique_ptr<Sut>> MakeSut(const std::string& name, const SutConfig& config) {
  // A mapping never stands for another mapped name (SutConfig::CheckMappings): this resolves once.
  const std::string spec = config.Resolve(name);
  if (const SutFamily* family = FamilyOf(spec)) return family->make(spec, config);
  return Status::Invalid("unknown system under test '" + spec + "' (see `convparity list`)");
}

Result<std::unique_ptr<Sut>> MakeSut(const std::string& name) { return MakeSut(name, SutConfig{}); }

std::vector<std::string> DefaultCaseSuts(uint64_t seed, int64_t index) {
  std::vector<std::string> names;
  for (const SutFamily& family : SutFamilies())
    for (std::string& name : family.case_members(seed, index)) names.push_back(std::move(name));
  return names;
}

bool RunsGraphs(const std::string& sut, const SutConfig& config) {
  const std::string spec = config.Resolve(sut);
  const SutFamily* family = FamilyOf(spec);
  return family && family->runs_graphs(spec);
}

bool ReadsModels(const std::string& sut, const SutConfig& config) {
  const std::string spec = config.Resolve(sut);
  const SutFamily* family = FamilyOf(spec);
  return family && family->reads_models(spec);
}

void DescribeFinding(Finding& f) {
  if (const SutFamily* family = FamilyOf(f.minimized.sut)) family->describe_finding(f);
}

}  // namespace convparity
