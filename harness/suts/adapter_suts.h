// Adapters to other people's kernel libraries (adapters/): systems under test by name (`xnnpack`,
// `armnn`, …), one SUT family per library (sut_family.h). Each member is a plugin of the C ABI
// that convparity loads through its plugin loader from lib/convparity/adapters/ relative to its own
// executable — the same place in the build tree and in an install — and never from a path a case
// file names.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "core/capabilities.h"
#include "core/conv_problem.h"
#include "core/status.h"
#include "core/sut.h"
#include "harness/plugin/plugin_sut.h"
#include "harness/suts/sut_family.h"

namespace convparity {

struct AdapterSutInfo {
  std::string family;       // the library: xnnpack, armnn, onednn
  std::string name;         // the SUT name: what `--sut` takes and case files record
  std::string library;      // the plugin's file name in AdapterDirectory()
  std::string description;  // for `convparity list`
  // ABI 2 variants (convparity_plugin.h): "<name>#<variant>" runs one, "<name>#all" (for --sut
  // only) stands for the plugin and all of them.
  bool variants = false;
  // What a variant runs, for `convparity list`.
  std::string (*describe_variant)(const std::string& variant) = nullptr;
  // RTLD_DEEPBIND (PluginSutOptions): the library LibTorch links too (oneDNN) must be the one the
  // adapter was built against, not the process's.
  bool deep_bind = false;
  // A frontend (plugin ABI 4): it reads the models convparity writes, of every graph form.
  bool reads_models = false;
};
const std::vector<AdapterSutInfo>& AdapterSuts();

// The family of one library's adapters: its members, made by loading their plugins; listed with
// "(not built here)" when the plugin is missing; never in a default campaign.
SutFamily AdapterFamily(const std::string& family);

// <directory of this executable>/../lib/convparity/adapters
std::string AdapterDirectory();
// Whether the adapter's plugin is there (it is built only when its library was found).
bool AdapterBuilt(const AdapterSutInfo& adapter);

// "onednn#all": every member of an adapter with variants (ExpandAdapterSuts).
inline constexpr char kAllMembers[] = "all";

// An adapter's name, or "<name>#<variant>" of an adapter with variants ("#all" included).
bool IsAdapterSutName(const std::string& name);
// Loads the adapter named `name`. Invalid, in one line, when it is not built here.
Result<std::unique_ptr<Sut>> MakeAdapterSut(const std::string& name);
// A loaded plugin as the SUT `name`: a model reader (ABI 4) runs the models harness/models writes
// of each case; any other plugin runs the case's buffers.
std::unique_ptr<Sut> PluginAsSut(std::unique_ptr<PluginSut> plugin, const std::string& name);
// The directions the adapter implements (it is loaded to ask), for `convparity list --json` and
// the nightly campaign, which runs each adapter in its own directions only.
Result<std::vector<Direction>> AdapterDirections(const std::string& name);
// What the adapter, or its variant, declares it can run (ABI 3; it is loaded to ask).
Result<Capabilities> AdapterCapabilities(const std::string& name);
// Replaces each "<name>#all" by the adapter itself and its variants, in order; other names stay.
Result<std::vector<std::string>> ExpandAdapterSuts(const std::vector<std::string>& names);

}  // namespace convparity
