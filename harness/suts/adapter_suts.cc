#include "harness/suts/adapter_suts.h"

#include <unistd.h>

#include <utility>

#include "harness/engine/case_runner.h"
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

 private:
  std::string name_;
  std::unique_ptr<PluginSut> plugin_;
};

std::string PathOf(const AdapterSutInfo& adapter) {
  return AdapterDirectory() + "/" + adapter.library;
}

Result<std::unique_ptr<PluginSut>> LoadAdapter(const std::string& name) {
  for (const AdapterSutInfo& a : AdapterSuts()) {
    if (a.name != name) continue;
    const std::string path = PathOf(a);
    if (!AdapterBuilt(a))
      return Status::Invalid("adapter '" + name + "' is not built here: " + path +
                             " does not exist (adapters are built when their library is found; "
                             "scripts/setup.sh installs them)");
    Result<std::unique_ptr<PluginSut>> plugin = PluginSut::Load(path);
    if (!plugin.ok()) return plugin.status().WithContext("adapter " + name);
    return plugin;
  }
  return Status::Invalid("unknown adapter '" + name + "'");
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
  };
  return adapters;
}

SutFamily AdapterFamily(const std::string& family) {
  std::vector<std::string> members;
  for (const AdapterSutInfo& a : AdapterSuts())
    if (a.family == family) members.push_back(a.name);
  SutFamily f;
  f.name = family;
  f.owns = OwnsOneOf(members);
  f.make = MakeAdapterSut;
  f.list = [family] {
    std::vector<SutListing> all;
    for (const AdapterSutInfo& a : AdapterSuts())
      if (a.family == family)
        all.push_back({a.name, a.description + (AdapterBuilt(a) ? "" : " (not built here)")});
    return all;
  };
  return f;
}

SutFamily XnnpackFamily() { return AdapterFamily("xnnpack"); }
SutFamily ArmnnFamily() { return AdapterFamily("armnn"); }

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
  for (const AdapterSutInfo& a : AdapterSuts())
    if (a.name == name) return true;
  return false;
}

Result<std::unique_ptr<ConvSut>> MakeAdapterSut(const std::string& name) {
  Result<std::unique_ptr<PluginSut>> plugin = LoadAdapter(name);
  if (!plugin.ok()) return plugin.status();
  return std::unique_ptr<ConvSut>(new AdapterSut(name, std::move(plugin).value()));
}

Result<std::vector<Direction>> AdapterDirections(const std::string& name) {
  Result<std::unique_ptr<PluginSut>> plugin = LoadAdapter(name);
  if (!plugin.ok()) return plugin.status();
  std::vector<Direction> directions;
  for (Direction d : AllDirections())
    if ((*plugin)->Implements(d)) directions.push_back(d);
  return directions;
}

}  // namespace convparity
