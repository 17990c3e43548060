// Plugin ABI version 4 (harness/plugin/convparity_plugin.h): version-3 plugins keep loading and
// nothing past their table is read; a model reader's table is checked on load (a format convparity
// writes, and its run_model), and a model reader declines buffers. The model readers' runs are the
// frontends' tests (tests/adapters/frontends_test.cc).
#include <gtest/gtest.h>

#include <memory>
#include <string>

#include "core/descriptor.h"
#include "harness/engine/check_case.h"
#include "harness/plugin/plugin_sut.h"
#include "plugin_paths.h"

namespace convparity {
namespace {

TEST(PluginAbi4, AVersion3PluginLoadsRunsAndIsNeverReadPastItsTable) {
  Result<std::unique_ptr<PluginSut>> v3 = PluginSut::Load(CONVPARITY_ODD_PLUGIN_V3);
  ASSERT_TRUE(v3.ok()) << v3.status().message();
  EXPECT_EQ((*v3)->abi_version(), 3);
  EXPECT_EQ((*v3)->model_format(), "");
  const CaseOutcome out = CheckCase(ConvCase{ParseDescriptor("2d_ic2_oc2_i5_k3")->problem,
                                             Direction::kForward, (*v3)->name(), Fill::kExact, 7},
                                    **v3);
  EXPECT_EQ(out.verdict, Verdict::kSkipped) << out.reason;
}

TEST(PluginAbi4, AModelReaderNamesAFormatConvparityWritesAndItsRunFunction) {
  Result<std::unique_ptr<PluginSut>> tflite = PluginSut::Load(CONVPARITY_ODD_PLUGIN_MODEL_FORMAT);
  ASSERT_FALSE(tflite.ok());
  EXPECT_NE(tflite.status().message().find(
                ": model_format is \"tflite\"; convparity writes onnx or tfjs-graph"),
            std::string::npos)
      << tflite.status().message();
  Result<std::unique_ptr<PluginSut>> no_run = PluginSut::Load(CONVPARITY_ODD_PLUGIN_MODEL_NO_RUN);
  ASSERT_FALSE(no_run.ok());
  EXPECT_NE(no_run.status().message().find(": model_format is set but run_model is NULL"),
            std::string::npos)
      << no_run.status().message();
}

}  // namespace
}  // namespace convparity
