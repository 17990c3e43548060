// SUT instances by name, made once per process (a plugin is loaded once, an exec: child started
// once), and running one on a prepared case: what the in-process runner and a worker share.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <utility>

#include "core/sut.h"
#include "core/verdict.h"
#include "harness/engine/check_case.h"
#include "harness/suts/sut_config.h"

namespace convparity {

class SutCache {
 public:
  // Makes SUTs with the user's `config` (a worker's comes from its parent's command line).
  explicit SutCache(SutConfig config) : config_(std::move(config)) {}
  Result<Sut*> Get(const std::string& name);

 private:
  SutConfig config_;
  std::map<std::string, std::unique_ptr<Sut>> suts_;
};

// `name`'s outcome on `prep`; a name MakeSut refuses is the verdict invalid.
CaseOutcome RunOne(const PreparedCase& prep, SutCache& cache, const std::string& name);

// An outcome that is only a verdict and its reason.
CaseOutcome VerdictOutcome(Verdict v, std::string reason);

}  // namespace convparity
