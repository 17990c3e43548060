// Systems under test by name: our kernels, `known-bug:<id>` reproductions of historical bugs,
// adapters to other people's libraries (`xnnpack`, `armnn`, … as plugins; `tfjs-wasm`, … through
// the process protocol), plugins, exec: children, and the user's logical names.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "core/features.h"
#include "core/status.h"
#include "core/sut.h"
#include "harness/suts/sut_config.h"

namespace convparity {

// Our own kernels: what a default campaign checks.
std::vector<std::string> OurSutNames();
// Every name MakeSut accepts, with a one-line description, for `convparity list`: the user's
// logical names first, then the families'.
std::vector<std::pair<std::string, std::string>> ListSuts(const SutConfig& config);
// Resolves `name` through the user's `config` first (a logical name wins over a built-in one).
// Makes what it is told: whether a case file may name a SUT is the callers' gate
// (CheckCaseSutsAllowed). The commands and workers pass the config of the CheckContext they were
// given; the one-argument form, with no user configuration, is for tests, benchmarks and the
// libFuzzer targets.
Result<std::unique_ptr<Sut>> MakeSut(const std::string& name, const SutConfig& config);
Result<std::unique_ptr<Sut>> MakeSut(const std::string& name);
// The SUTs a default campaign adds to case `index` of run `seed` alone (SutFamily::case_members).
std::vector<std::string> DefaultCaseSuts(uint64_t seed, int64_t index);

// Whether the SUT a name makes runs graphs (transform pipelines, known transform bugs): it takes
// cases of every graph form (a ConvSut declines all but the convolution). The one answer, asked
// before any SUT is made (a campaign's schedule, the byte decoder). Decided by the family of what
// the name stands for in `config` (a logical name of --sut-map answers as the SUT it maps to),
// without making the SUT.
bool RunsGraphs(const std::string& sut, const SutConfig& config = {});
// Whether `sut` reads a model format (harness/models/model_sut.h), decided the same way.
bool ReadsModels(const std::string& sut, const SutConfig& config = {});

// Lets the family of the finding's SUT describe it (SutFamily::describe_finding): a transform
// finding's report and case then show its pipeline and graphs.
void DescribeFinding(Finding& f);

// The channel multiple a campaign over `suts` should also draw (ProblemSpace::channel_multiple):
// the largest any of them asks for, 0 for none.
int64_t ChannelMultipleFor(const std::vector<std::string>& suts, const SutConfig& config);

}  // namespace convparity
