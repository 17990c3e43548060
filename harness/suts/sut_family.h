// Systems under test come in families: our direct kernels, transform pipelines, known-bug
// reproductions, ATen's float32 paths, plugins, and adapters to other people's libraries. A family
// says in one place which names are its own, how to make one, what `convparity list` shows of it
// and which of its members a default campaign checks. The registry (sut_registry.h) only reads the
// table of families (SutFamilies, sut_families.cc): adding a family is its own file (under
// harness/suts/, which CMake globs) and one entry in that table, which declares the function it
// names right beside it.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "core/features.h"
#include "core/status.h"
#include "core/sut.h"
#include "harness/suts/sut_config.h"

namespace convparity {

struct SutListing {
  std::string name;  // a SUT name, or a pattern such as plugin:<path.so>
  std::string description;
};

struct SutFamily {
  std::string name;  // direct, transform, known-bug, torch-f32, plugin, …
  // Whether a SUT name is this family's. Families own disjoint names.
  std::function<bool(const std::string& sut)> owns;
  // Makes a member; kInvalid naming the problem for a name it owns but cannot make. `config` is
  // the user's (exec: children take their timeout from it).
  std::function<Result<std::unique_ptr<Sut>>(const std::string& sut, const SutConfig& config)> make;
  // Its members, or a pattern for open-ended names, for `convparity list`.
  std::function<std::vector<SutListing>()> list;
  // The members a campaign checks when the user names no SUT; none for code not ours.
  std::function<std::vector<std::string>()> default_members = [] {
    return std::vector<std::string>{};
  };
  // Besides those: the members a default campaign checks case `index` of run `seed` against
  // alone (a transform pipeline drawn from the two).
  std::function<std::vector<std::string>(uint64_t seed, int64_t index)> case_members =
      [](uint64_t, int64_t) { return std::vector<std::string>{}; };
  // Whether a member runs graphs (a Sut that is no ConvSut, core/sut.h), known from its name
  // alone: such members take cases of every graph form.
  std::function<bool(const std::string& sut)> runs_graphs = [](const std::string&) {
    return false;
  };
  // Whether a member reads a model format (harness/models/model_sut.h), known from its name alone:
  // such members take cases in every spelling.
  std::function<bool(const std::string& sut)> reads_models = [](const std::string&) {
    return false;
  };
  // Adds what a member knows of its own finding to it, for its report and case file (a transform
  // pipeline: its steps and its graphs before and after). Nothing by default.
  std::function<void(Finding& f)> describe_finding = [](Finding&) {};
};

// The families, in the order `convparity list` shows them.
const std::vector<SutFamily>& SutFamilies();

// A family of exactly the names in `members`.
std::function<bool(const std::string&)> OwnsOneOf(std::vector<std::string> members);
// A family of the names that start with `prefix`.
std::function<bool(const std::string&)> OwnsPrefix(std::string prefix);

}  // namespace convparity
