// Plugin ABI version 4 (harness/plugin/convparity_plugin.h): version-3 plugins keep loading and
// nothing past their table is read; a model reader's table is checked on load (a format convparity
// writes, and its run_model), and a model reader declines buffers; a buffer plugin gets the case's
// spelling as text in its problem. The model readers' runs are the frontends' tests
// (tests/adapters/frontends_test.cc).
#include <dlfcn.h>
#include <gtest/gtest.h>

#include <cstddef>
#include <memory>
#include <string>
#include <vector>

#include "core/descriptor.h"
#include "core/spelling.h"
#include "harness/engine/case_runner.h"
#include "harness/engine/check_case.h"
#include "harness/plugin/plugin_sut.h"
#include "harness/suts/adapter_suts.h"
#include "harness/suts/sut_registry.h"
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

const std::string kSpellingPlugin = std::string(kPluginSutPrefix) + CONVPARITY_SPELLING_PLUGIN;

// A spelled case of a problem the spelling fits (CheckSpelling), as a case file would hold it.
ConvCase SpelledCase(const std::string& descriptor, const std::string& spelling, Direction d) {
  Result<ParsedDescriptor> parsed = ParseDescriptor(descriptor);
  EXPECT_TRUE(parsed.ok()) << descriptor << ": " << parsed.status().message();
  Result<Spelling> s = ParseSpellingText(spelling);
  EXPECT_TRUE(s.ok()) << spelling << ": " << s.status().message();
  ConvCase c{parsed.ok() ? parsed->problem : ConvProblem{}, d, kSpellingPlugin, Fill::kExact, 7};
  if (s.ok()) c.spelling = *s;
  EXPECT_TRUE(CheckSpelling(c.spelling, c.problem).ok()) << descriptor << " " << spelling;
  return c;
}

// Each spelling's text in the table's order (SpellingText's), so that what arrives is compared
// with what the case says, character for character; the plain spelling is "".
const std::pair<const char*, const char*> kSpelledProblems[] = {
    {"2d_ic2_oc3_i5x4_k3x2_p1x0_b", ""},
    {"2d_ic2_oc3_i5_k3_p1_b", "pads=same_upper,bias=add"},
    {"1d_mb2_ic3_oc2_i7_k3_s2_pb1_pe2", "pads=pad_op,norm=identity_batch_norm"},
    {"t2d_ic2_oc2_i3_k3_s2_p1_op1", "output_size=output_shape,weight=transposed"},
    {"2d_g3_ic3_oc6_i5_k3_nhwc_b", "data_format=transposes,depthwise=multiplier,bias=fused"},
};

// The spelling plugin records what it received (harness/plugin/test_plugins/spelling_plugin.c),
// after checking CONVPARITY_PROBLEM_HAS; the SUTs are made as campaigns and check make them: from a
// `plugin:` name, and under an adapter's name (harness/suts/adapter_suts.h).
TEST(PluginAbi4, ABufferPluginGetsTheCasesSpellingExactlyInEveryDirection) {
  std::vector<std::unique_ptr<Sut>> suts;
  Result<std::unique_ptr<Sut>> made = MakeSut(kSpellingPlugin);
  ASSERT_TRUE(made.ok()) << made.status().message();
  suts.push_back(std::move(made).value());
  Result<std::unique_ptr<PluginSut>> loaded = PluginSut::Load(CONVPARITY_SPELLING_PLUGIN);
  ASSERT_TRUE(loaded.ok()) << loaded.status().message();
  suts.push_back(PluginAsSut(std::move(loaded).value(), "my-frontend"));
  for (const std::unique_ptr<Sut>& sut : suts)
    for (const auto& [descriptor, spelling] : kSpelledProblems)
      for (Direction d : AllDirections()) {
        ConvCase c = SpelledCase(descriptor, spelling, d);
        c.sut = sut->name();
        ASSERT_EQ(SpellingText(c.spelling), spelling);
        const CaseOutcome out = CheckCase(c, *sut);
        EXPECT_EQ(out.verdict, Verdict::kPassed) << CaseTitle(c) << ": " << out.reason;
        EXPECT_EQ(out.notes.implementation, std::string("spelling [") + spelling + "]")
            << CaseTitle(c);
      }
}

// In a worker process, as a campaign or `check` runs it: the spelling travels with the case.
TEST(PluginAbi4, ABufferPluginGetsTheSpellingInAWorker) {
  std::unique_ptr<CaseRunner> runner = MakeIsolatedRunner(CONVPARITY_EXE, 30);
  for (const char* spelling : {"pads=same_upper,bias=add", ""}) {
    const std::vector<CaseOutcome> out =
        runner->Check(SpelledCase("2d_ic2_oc3_i5_k3_p1_b", spelling, Direction::kBackwardData),
                      {kSpellingPlugin});
    ASSERT_EQ(out.size(), 1u);
    EXPECT_EQ(out[0].verdict, Verdict::kPassed) << out[0].reason;
    EXPECT_EQ(out[0].notes.implementation, std::string("spelling [") + spelling + "]");
  }
}

// A plugin built against this header, called by a convparity from before the field (its smaller
// struct_size), sees through CONVPARITY_PROBLEM_HAS that the field is not there.
TEST(PluginAbi4, APluginTellsFromStructSizeWhetherTheSpellingIsFilled) {
  void* handle = dlopen(CONVPARITY_SPELLING_PLUGIN, RTLD_NOW | RTLD_LOCAL);
  ASSERT_NE(handle, nullptr) << dlerror();
  using EntryFn = const convparity_plugin* (*)();
  const convparity_plugin* table =
      reinterpret_cast<EntryFn>(dlsym(handle, CONVPARITY_PLUGIN_ENTRY_SYMBOL))();
  convparity_problem s = PluginStructFromProblem(ParseDescriptor("1d_ic1_oc1_i3_k1")->problem);
  EXPECT_STREQ(s.spelling, "");
  const float x[3] = {1, 2, 3}, w[1] = {2};
  float y[3];
  auto received = [&] {
    EXPECT_EQ(table->forward(&s, x, w, nullptr, y), CONVPARITY_OK);
    convparity_run_notes notes{};
    notes.struct_size = sizeof notes;
    table->describe_last_run(&notes);
    return std::string(notes.implementation);
  };
  s.spelling = "bias=add";
  EXPECT_EQ(received(), "spelling [bias=add]");
  s.struct_size = offsetof(convparity_problem, spelling);
  EXPECT_EQ(received(), "no spelling field");
  dlclose(handle);
}

}  // namespace
}  // namespace convparity
