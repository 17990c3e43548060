// Plugin ABI version 3 (harness/plugin/convparity_plugin.h): version-2 plugins keep loading and
// nothing past their table is read; a plugin's declaration of what it can run is read on load,
// and one that is not JSON of the capabilities vocabulary refuses the plugin in one line.
#include <gtest/gtest.h>

#include <memory>
#include <string>

#include "core/capabilities.h"
#include "core/descriptor.h"
#include "harness/engine/check_case.h"
#include "harness/plugin/plugin_sut.h"
#include "plugin_paths.h"

namespace convparity {
namespace {

using nlohmann::json;

ConvProblem Parse(const std::string& descriptor) {
  Result<ParsedDescriptor> parsed = ParseDescriptor(descriptor);
  EXPECT_TRUE(parsed.ok()) << descriptor << ": " << parsed.status().message();
  return parsed.ok() ? parsed->problem : ConvProblem{};
}

TEST(PluginAbi3, AVersion2PluginLoadsRunsAndIsNeverReadPastItsTable) {
  Result<std::unique_ptr<PluginSut>> v2 = PluginSut::Load(CONVPARITY_ODD_PLUGIN_V2);
  ASSERT_TRUE(v2.ok()) << v2.status().message();
  EXPECT_EQ((*v2)->abi_version(), 2);
  EXPECT_FALSE((*v2)->capabilities().declared);
  const CaseOutcome out = CheckCase(
      ConvCase{Parse("2d_ic2_oc2_i5_k3"), Direction::kForward, (*v2)->name(), Fill::kExact, 7},
      **v2);
  EXPECT_EQ(out.verdict, Verdict::kSkipped) << out.reason;
}

TEST(PluginAbi3, ADeclarationIsReadOnLoad) {
  Result<std::unique_ptr<PluginSut>> plugin = PluginSut::Load(CONVPARITY_ODD_PLUGIN_DECLINING);
  ASSERT_TRUE(plugin.ok()) << plugin.status().message();
  const Capabilities& caps = (*plugin)->capabilities();
  ASSERT_TRUE(caps.declared);
  const ConvProblem p = Parse("2d_ic2_oc2_i5_k3");
  EXPECT_EQ(WhyOutside(caps, "conv", Direction::kForward, p),
            "outside its declaration: direction fwd is not among bwd_data");
  EXPECT_EQ(WhyOutside(caps, "conv", Direction::kBackwardData, p), std::nullopt);
}

TEST(PluginAbi3, AVariantDeclaresItsOwnOrThePluginsOrNothing) {
  const ConvProblem p = Parse("2d_ic2_oc2_i5_k3");
  auto declared = [](const std::string& variant) {
    PluginSut::Options options;
    options.variant = variant;
    Result<std::unique_ptr<PluginSut>> plugin =
        PluginSut::Load(CONVPARITY_ODD_PLUGIN_VARIANT_DECLARATIONS, options);
    EXPECT_TRUE(plugin.ok()) << variant << ": " << plugin.status().message();
    return plugin.ok() ? (*plugin)->capabilities() : Capabilities{};
  };
  const Capabilities own = declared("own"), none = declared("none"), rank1 = declared("rank1");
  EXPECT_EQ(CapabilitiesToJson(own), CapabilitiesToJson(declared("")));
  EXPECT_FALSE(none.declared);
  // Within the table's directions (forward and backward-data) and the conv form.
  EXPECT_EQ(CapabilitiesToJson(rank1),
            json::parse(R"([{"forms": ["conv"], "directions": ["fwd", "bwd_data"],
                             "ranks": [1]}])"));
  EXPECT_EQ(WhyOutside(rank1, "conv", Direction::kForward, p),
            "outside its declaration: rank 2 is not among 1");
}

TEST(PluginAbi3, AMalformedDeclarationIsAOneLineLoadError) {
  const std::pair<const char*, const char*> cases[] = {
      {CONVPARITY_ODD_PLUGIN_CAPABILITIES_RANK, "capabilities[0].ranks: 4 is not a rank (1, 2, 3)"},
      {CONVPARITY_ODD_PLUGIN_CAPABILITIES_JSON, "malformed capabilities JSON: "},
  };
  for (const auto& [path, what] : cases) {
    Result<std::unique_ptr<PluginSut>> plugin = PluginSut::Load(path);
    ASSERT_FALSE(plugin.ok()) << path;
    const std::string& m = plugin.status().message();
    EXPECT_EQ(m.rfind(std::string("plugin ") + path + ": " + what, 0), 0u) << m;
    EXPECT_EQ(m.find('\n'), std::string::npos) << m;
  }
}

}  // namespace
}  // namespace convparity
