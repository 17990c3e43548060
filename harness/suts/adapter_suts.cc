#include "harness/suts/adapter_suts.h"

#include <unistd.h>

#include <utility>

#include "harness/engine/case_runner.h"
#include "harness/models/model_sut.h"
#include "harness/plugin/plugin_sut.h"

namespace convparity {
namespace {

// A plugin under the adapter's own name: case files and reports say `xnnpack`, not the path of the
// .so, so that a case replays on any installation.
class AdapterSut : public ConvSut {
 public:
  AdapterSut(std::string name, std::unique_ptr<PluginSut> plugin)
      : name_(std::move(name)), plugin_(std::move(plugin)) {}
  std::string name() const override { return name_; }
  Status Run(const ConvProblem& p, Direction d, const ConvBuffers& buffers) override {
    return plugin_->Run(p, d, buffers);
  }
  Status RunSpelled(const ConvProblem& p, Direction d, const Spelling& spelling,
                    const ConvBuffers& buffers) override {
    return plugin_->RunSpelled(p, d, spelling, buffers);
  }
  RunNotes LastRunNotes() const override { return plugin_->LastRunNotes(); }
  const Capabilities& capabilities() const override { return plugin_->capabilities(); }

 private:
  std::string name_;
  std::unique_ptr<PluginSut> plugin_;
};

std::string PathOf(const AdapterSutInfo& adapter) {
  return AdapterDirectory() + "/" + adapter.library;
}

// The adapter a SUT name belongs to, and the variant it names ("" for the adapter itself).
const AdapterSutInfo* Split(const std::string& name, std::string* variant) {
  for (const AdapterSutInfo& a : AdapterSuts()) {
    if (a.name == name) {
      variant->clear();
      return &a;
    }
    const std::string prefix = a.name + kVariantSeparator;
    if (a.variants && name.size() > prefix.size() && name.compare(0, prefix.size(), prefix) == 0) {
      *variant = name.substr(prefix.size());
      return &a;
    }
  }
  return nullptr;
}

// `variant` "" loads the adapter itself; kAllMembers loads it too (to ask for its variants).
Result<std::unique_ptr<PluginSut>> LoadAdapter(const std::string& name) {
  std::string variant;
  const AdapterSutInfo* a = Split(name, &variant);
  if (a == nullptr) return Status::Invalid("unknown adapter '" + name + "'");
  const std::string path = PathOf(*a);
  if (!AdapterBuilt(*a))
    return Status::Invalid("adapter '" + a->name + "' is not built here: " + path +
                           " does not exist (adapters are built when their library is found; "
                           "scripts/setup.sh installs them)");
  PluginSutOptions options;
  options.variant = variant == kAllMembers ? "" : variant;
  options.sut_name = name;
  options.deep_bind = a->deep_bind;
  Result<std::unique_ptr<PluginSut>> plugin = PluginSut::Load(path, options);
  if (!plugin.ok()) return plugin.status().WithContext("adapter " + name);
  return plugin;
}

std::string DescribeOneDnnVariant(const std::string& variant) {
  if (variant == "winograd")
    return "oneDNN's Winograd algorithm where it has one (inexact: judged within the plane bound)";
  return "oneDNN's implementation number " + variant +
         " of those that accept the problem, in its order of preference";
}

std::string DescribeTorchScriptVariant(const std::string& variant) {
  if (variant == "inference")
    return "torch::jit::optimize_for_inference: oneDNN prepacked convolutions "
           "(prim::mkldnn_convolution), 2-D and 3-D convolution";
  if (variant == "mobile")
    return "torch::jit::optimizeForMobile: XNNPACK prepacked conv2d_clamp / "
           "conv2d_transpose_clamp, 1-D and 2-D";
  return "variant " + variant;
}

}  // namespace

const std::vector<AdapterSutInfo>& AdapterSuts() {
  static const std::vector<AdapterSutInfo> adapters = {
      {"xnnpack", "xnnpack", "libconvparity_xnnpack.so",
       "XNNPACK's NHWC (de)convolution operators, forward, 1-D and 2-D; its NCHW convolution "
       "operator for the channels-first cases it accepts"},
      {"xnnpack", "xnnpack:nchw", "libconvparity_xnnpack_nchw.so",
       "XNNPACK's NCHW convolution operator only (1x1, 3x3 and 5x5 depthwise, 3x3 stride 2 from "
       "NHWC), forward"},
      {"armnn", "armnn", "libconvparity_armnn.so",
       "Arm NN's Convolution2d, DepthwiseConvolution2d and TransposeConvolution2d on its CpuRef "
       "backend, NCHW and NHWC, forward, 1-D and 2-D"},
      {"onednn", "onednn", "libconvparity_onednn.so",
       "oneDNN's convolution and deconvolution primitives, every direction, 1-3-D: its first "
       "choice of implementation (adapters/onednn)",
       /*variants=*/true, DescribeOneDnnVariant, /*deep_bind=*/true},
      {"opencv", "opencv-dnn", "libconvparity_opencv_dnn.so",
       "OpenCV DNN's ONNX importer (cv::dnn::readNetFromONNX, from memory) on its default CPU "
       "backend, forward, 1-3-D, convolutions and chains in every ONNX spelling: the models "
       "convparity writes (adapters/opencv_dnn)",
       /*variants=*/false, nullptr, /*deep_bind=*/false, /*reads_models=*/true},
      {"torchscript", "torchscript", "libconvparity_torchscript.so",
       "LibTorch's own rewrites of a TorchScript convolution module, forward, 1-3-D: "
       "torch::jit::freeze (batch norm and scale folded into the weights) (adapters/torchscript)",
       /*variants=*/true, DescribeTorchScriptVariant},
  };
  return adapters;
}

SutFamily AdapterFamily(const std::string& family) {
  std::vector<std::string> members;
  for (const AdapterSutInfo& a : AdapterSuts())
    if (a.family == family) members.push_back(a.name);
  SutFamily f;
  f.name = family;
  f.owns = [family](const std::string& sut) {
    std::string variant;
    const AdapterSutInfo* a = Split(sut, &variant);
    return a != nullptr && a->family == family;
  };
  f.make = [](const std::string& sut, const SutConfig&) { return MakeAdapterSut(sut); };
  // A model reader runs every graph form its format writes, in every spelling.
  f.runs_graphs = [](const std::string& sut) {
    std::string variant;
    const AdapterSutInfo* a = Split(sut, &variant);
    return a != nullptr && a->reads_models;
  };
  f.reads_models = f.runs_graphs;
  f.list = [family] {
    std::vector<SutListing> all;
    for (const AdapterSutInfo& a : AdapterSuts()) {
      if (a.family != family) continue;
      all.push_back({a.name, a.description + (AdapterBuilt(a) ? "" : " (not built here)")});
      if (!a.variants || !AdapterBuilt(a)) continue;
      Result<std::unique_ptr<PluginSut>> plugin = LoadAdapter(a.name);
      if (!plugin.ok()) continue;
      for (const std::string& v : (*plugin)->variant_names())
        all.push_back({a.name + kVariantSeparator + v,
                       a.describe_variant ? a.describe_variant(v) : "variant " + v});
      all.push_back({a.name + kVariantSeparator + kAllMembers,
                     "every member of " + a.name + " above (for --sut)"});
    }
    return all;
  };
  return f;
}

std::string AdapterDirectory() {
  const std::string exe = SelfExecutable();
  const size_t slash = exe.rfind('/');
  const std::string dir = slash == std::string::npos ? "." : exe.substr(0, slash);
  return dir + "/../" + CONVPARITY_ADAPTER_DIR;
}

bool AdapterBuilt(const AdapterSutInfo& adapter) {
  return access(PathOf(adapter).c_str(), R_OK) == 0;
}

bool IsAdapterSutName(const std::string& name) {
  std::string variant;
  return Split(name, &variant) != nullptr;
}

std::unique_ptr<Sut> PluginAsSut(std::unique_ptr<PluginSut> plugin, const std::string& name) {
  const std::string format = plugin->model_format();
  if (format.empty()) return std::make_unique<AdapterSut>(name, std::move(plugin));
  const Capabilities capabilities = plugin->capabilities();
  const std::string version =
      plugin->plugin_name() + " (plugin ABI " + std::to_string(plugin->abi_version()) + ")";
  // The runner owns the plugin: the SUT and its library live and go together.
  std::shared_ptr<PluginSut> owned(std::move(plugin));
  return std::make_unique<ModelSut>(
      name, format,
      [owned](ModelRun& run) {
        return owned->RunModel(*run.problem, run.direction, SpellingText(*run.spelling), run.model,
                               run.input, run.input_shape, run.output, run.output_shape,
                               &run.result_shape);
      },
      version, capabilities, [owned] { return owned->LastRunNotes(); });
}

Result<std::unique_ptr<Sut>> MakeAdapterSut(const std::string& name) {
  std::string variant;
  if (Split(name, &variant) != nullptr && variant == kAllMembers)
    return Status::Invalid("'" + name +
                           "' names every member of an adapter: give it to --sut, "
                           "not to a case");
  Result<std::unique_ptr<PluginSut>> plugin = LoadAdapter(name);
  if (!plugin.ok()) return plugin.status();
  return PluginAsSut(std::move(plugin).value(), name);
}

Result<std::vector<Direction>> AdapterDirections(const std::string& name) {
  Result<std::unique_ptr<PluginSut>> plugin = LoadAdapter(name);
  if (!plugin.ok()) return plugin.status();
  std::vector<Direction> directions;
  for (Direction d : AllDirections())
    if ((*plugin)->Implements(d)) directions.push_back(d);
  return directions;
}

Result<Capabilities> AdapterCapabilities(const std::string& name) {
  std::string variant;
  if (Split(name, &variant) != nullptr && variant == kAllMembers)
    return Status::Invalid("'" + name + "' names every member of an adapter, each with its own");
  Result<std::unique_ptr<PluginSut>> plugin = LoadAdapter(name);
  if (!plugin.ok()) return plugin.status();
  return (*plugin)->capabilities();
}

Result<std::vector<std::string>> ExpandAdapterSuts(const std::vector<std::string>& names) {
  std::vector<std::string> expanded;
  for (const std::string& name : names) {
    std::string variant;
    const AdapterSutInfo* a = Split(name, &variant);
    if (a == nullptr || variant != kAllMembers) {
      expanded.push_back(name);
      continue;
    }
    Result<std::unique_ptr<PluginSut>> plugin = LoadAdapter(a->name);
    if (!plugin.ok()) return plugin.status();
    expanded.push_back(a->name);
    for (const std::string& v : (*plugin)->variant_names())
      expanded.push_back(a->name + kVariantSeparator + v);
  }
  return expanded;
}

}  // namespace convparity
