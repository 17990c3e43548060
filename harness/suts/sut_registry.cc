#include "harness/suts/sut_registry.h"

#include <cstring>

#include "harness/plugin/plugin_sut.h"
#include "harness/suts/transform_sut.h"
#include "kernels/direct_conv.h"
#include "kernels/known_bugs/known_bugs.h"
#include "oracles/torch_f32_sut.h"

namespace convparity {
namespace {

constexpr const char* kKnownBugPrefix = "known-bug:";

// Correct kernels that differ only in the order they add terms in.
const SumOrder kOurOrders[] = {SumOrder::kSequential, SumOrder::kReverse, SumOrder::kPairwise,
                               SumOrder::kBlocked};

}  // namespace

std::vector<std::string> OurSutNames() {
  std::vector<std::string> names;
  for (SumOrder o : kOurOrders) names.push_back(DirectConv(o).name());
  for (const std::string& t : DefaultTransformSuts()) names.push_back(t);
  return names;
}

std::vector<std::pair<std::string, std::string>> ListSuts() {
  std::vector<std::pair<std::string, std::string>> all;
  for (SumOrder o : kOurOrders)
    all.emplace_back(DirectConv(o).name(), std::string("direct convolution, terms added in ") +
                                               SumOrderName(o) + " order");
  for (const std::string& t : DefaultTransformSuts())  // one-pass pipelines are listed with the passes
    if (t.find(',') != std::string::npos)
      all.emplace_back(t, "a transform pipeline run on our kernels (any passes below, comma-separated)");
  for (const auto& [pass, what] : ListTransforms())
    all.emplace_back(kTransformSutPrefix + pass, what);
  for (const std::string& id : KnownBugIds())
    all.emplace_back(kKnownBugPrefix + id, FindKnownBug(id)->summary);
  for (const TransformBug& bug : TransformBugs())
    all.emplace_back(kKnownBugPrefix + bug.id, bug.summary + " (transform:" + bug.pipeline + ")");
  for (const std::string& name : TorchF32SutNames())
    all.emplace_back(
        name, "ATen's own float32 convolution (" +
                  std::string(name == "torch-f32" ? "its default path, oneDNN where it picks it"
                              : name == "torch-f32-slow" ? "oneDNN disabled"
                                                         : "channels-last tensors") +
                  "), checked against float64");
  all.emplace_back(std::string(kPluginSutPrefix) + "<path.so>",
                   "a kernel library through the C plugin ABI (convparity/convparity_plugin.h)");
  return all;
}

Result<std::unique_ptr<ConvSut>> MakeSut(const std::string& name) {
  for (SumOrder o : kOurOrders)
    if (name == DirectConv(o).name()) return std::unique_ptr<ConvSut>(new DirectConv(o));
  if (name.rfind(kKnownBugPrefix, 0) == 0) {
    std::unique_ptr<ConvSut> bug = MakeKnownBug(name.substr(std::string(kKnownBugPrefix).size()));
    if (bug) return bug;
    const std::string transform = TransformSutOf(name);
    if (!transform.empty()) return MakeTransformSut(transform, name);
  }
  if (IsTransformSutName(name)) return MakeTransformSut(name);
  if (std::unique_ptr<ConvSut> aten = MakeTorchF32Sut(name)) return aten;
  if (name.rfind(kPluginSutPrefix, 0) == 0)
    return LoadPluginSut(name.substr(std::strlen(kPluginSutPrefix)));
  return Status::Invalid("unknown system under test '" + name + "' (see `convparity list`)");
}

}  // namespace convparity
