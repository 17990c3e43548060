// The table of SUT families and the families of our own code and ATen's.
#include <cstring>

#include "harness/plugin/plugin_sut.h"
#include "harness/suts/adapter_suts.h"
#include "harness/suts/sut_family.h"
#include "harness/suts/transform_sut.h"
#include "kernels/direct_conv.h"
#include "kernels/known_bugs/known_bugs.h"
#include "oracles/torch_f32_sut.h"
#include "oracles/torch_oracle.h"

namespace convparity {

// Each family is defined beside the code it runs and declared only here, next to its entry.
SutFamily DirectFamily();       // below: our direct kernel, in several summation orders
SutFamily TransformFamily();    // transform_sut.cc: transform:<pass>,…
SutFamily KnownBugFamily();     // below: known-bug:<id>, kernel and transform reproductions
SutFamily TorchF32Family();     // below: ATen's own float32 paths
SutFamily PluginFamily();       // below: plugin:<path.so>, the C plugin ABI
SutFamily ExecAdapterFamily();  // exec_families.cc: the adapters of adapters/ that speak the
                                // process protocol (tfjs-wasm, …)
SutFamily ExecFamily();         // exec_families.cc: exec:<command line>, the process protocol

// The families, in the order `convparity list` shows them (after the user's logical names, which
// the registry resolves first: sut_registry.cc). The adapters to libraries loaded as plugins are
// one family per library (adapter_suts.cc).
const std::vector<SutFamily>& SutFamilies() {
  static const std::vector<SutFamily> families = {
      DirectFamily(),
      TransformFamily(),
      KnownBugFamily(),
      TorchF32Family(),
      AdapterFamily("xnnpack"),
      AdapterFamily("armnn"),
      AdapterFamily("onednn"),
      AdapterFamily("opencv"),       // a frontend: it reads the ONNX models convparity writes
      AdapterFamily("torchscript"),  // LibTorch's rewrites
      PluginFamily(),
      ExecAdapterFamily(),
      ExecFamily(),
  };
  return families;
}

std::function<bool(const std::string&)> OwnsOneOf(std::vector<std::string> members) {
  return [members = std::move(members)](const std::string& sut) {
    for (const std::string& m : members)
      if (m == sut) return true;
    return false;
  };
}

std::function<bool(const std::string&)> OwnsPrefix(std::string prefix) {
  return [prefix = std::move(prefix)](const std::string& sut) {
    return sut.compare(0, prefix.size(), prefix) == 0;
  };
}

namespace {

// Correct kernels that differ only in the order they add terms in.
const SumOrder kOurOrders[] = {SumOrder::kSequential, SumOrder::kReverse, SumOrder::kPairwise,
                               SumOrder::kBlocked};

std::vector<std::string> DirectNames() {
  std::vector<std::string> names;
  for (SumOrder o : kOurOrders) names.push_back(DirectConv(o).name());
  return names;
}

constexpr char kKnownBugPrefix[] = "known-bug:";

}  // namespace

SutFamily DirectFamily() {
  SutFamily f;
  f.name = "direct";
  f.owns = OwnsOneOf(DirectNames());
  f.make = [](const std::string& sut, const SutConfig&) -> Result<std::unique_ptr<Sut>> {
    for (SumOrder o : kOurOrders)
      if (sut == DirectConv(o).name()) return std::unique_ptr<Sut>(new DirectConv(o));
    return Status::Invalid("unknown direct kernel '" + sut + "'");
  };
  f.list = [] {
    std::vector<SutListing> all;
    for (SumOrder o : kOurOrders)
      all.push_back({DirectConv(o).name(), std::string("direct convolution, terms added in ") +
                                               SumOrderName(o) + " order"});
    return all;
  };
  f.default_members = DirectNames;
  return f;
}

SutFamily KnownBugFamily() {
  SutFamily f;
  f.name = "known-bug";
  f.owns = OwnsPrefix(kKnownBugPrefix);
  f.make = [](const std::string& sut, const SutConfig&) -> Result<std::unique_ptr<Sut>> {
    const std::string id = sut.substr(std::strlen(kKnownBugPrefix));
    if (std::unique_ptr<Sut> bug = MakeKnownBug(id)) return bug;
    if (const KnownBugInfo* info = FindKnownBug(id); info && info->kind == KnownBugKind::kTransform)
      return MakeTransformSut(kTransformSutPrefix + info->pipeline, sut);
    return Status::Invalid("unknown system under test '" + sut + "' (see `convparity list`)");
  };
  f.list = [] {
    std::vector<SutListing> all;
    for (const KnownBugInfo& bug : KnownBugs())
      all.push_back(
          {kKnownBugPrefix + bug.id, bug.kind == KnownBugKind::kTransform
                                         ? bug.summary + " (transform:" + bug.pipeline + ")"
                                         : bug.summary});
    return all;
  };
  f.runs_graphs = [](const std::string& sut) { return !TransformSutOf(sut).empty(); };
  f.describe_finding = AddTransformGraphs;
  return f;
}

SutFamily TorchF32Family() {
  SutFamily f;
  f.name = "torch-f32";
  f.owns = OwnsOneOf(TorchF32SutNames());
  f.make = [](const std::string& sut, const SutConfig&) -> Result<std::unique_ptr<Sut>> {
    // ATen's paths live in the oracle's library, loaded now.
    if (Status loaded = TorchOracle::Available(); !loaded.ok()) return loaded;
    return std::unique_ptr<Sut>(MakeTorchF32Sut(sut));
  };
  f.list = [] {
    std::vector<SutListing> all;
    for (const std::string& name : TorchF32SutNames()) {
      const char* path = name == "torch-f32"        ? "its default path, oneDNN where it picks it"
                         : name == "torch-f32-slow" ? "oneDNN disabled"
                                                    : "channels-last tensors";
      all.push_back({name, std::string("ATen's own float32 convolution (") + path +
                               "), checked against float64"});
    }
    return all;
  };
  return f;
}

SutFamily PluginFamily() {
  SutFamily f;
  f.name = "plugin";
  f.owns = OwnsPrefix(kPluginSutPrefix);
  f.make = [](const std::string& sut, const SutConfig&) -> Result<std::unique_ptr<Sut>> {
    Result<std::unique_ptr<PluginSut>> plugin =
        LoadPluginSut(sut.substr(std::strlen(kPluginSutPrefix)));
    if (!plugin.ok()) return plugin.status();
    // A model reader (ABI 4) runs the models harness/models writes.
    if ((*plugin)->model_format().empty()) return std::unique_ptr<Sut>(std::move(plugin).value());
    const std::string name = (*plugin)->name();
    return PluginAsSut(std::move(plugin).value(), name);
  };
  f.list = [] {
    return std::vector<SutListing>{
        {std::string(kPluginSutPrefix) + "<path.so>",
         "a kernel library through the C plugin ABI (convparity/convparity_plugin.h)"}};
  };
  return f;
}

}  // namespace convparity
