#include "harness/engine/sut_cache.h"

#include <utility>

#include "harness/suts/sut_registry.h"

namespace convparity {

Result<Sut*> SutCache::Get(const std::string& name) {
  auto it = suts_.find(name);
  if (it == suts_.end()) {
    Result<std::unique_ptr<Sut>> made = MakeSut(name, config_);
    if (!made.ok()) return made.status();
    it = suts_.emplace(name, std::move(made).value()).first;
  }
  return it->second.get();
}

CaseOutcome VerdictOutcome(Verdict v, std::string reason) {
  CaseOutcome out;
  out.verdict = v;
  out.reason = std::move(reason);
  return out;
}

CaseOutcome RunOne(const PreparedCase& prep, SutCache& cache, const std::string& name) {
  Result<Sut*> sut = cache.Get(name);
  if (!sut.ok()) return VerdictOutcome(Verdict::kInvalid, sut.status().message());
  return RunPrepared(prep, **sut);
}

}  // namespace convparity
