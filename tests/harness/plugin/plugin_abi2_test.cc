// Plugin ABI version 2 (harness/plugin/convparity_plugin.h): version-1 plugins keep loading and
// nothing past their table is read; variants are named, checked and reached as "<sut>#<variant>";
// run notes reach the outcome and the worker protocol; an inexact result of an exact fill is judged
// within the random-mode bound, so that noise within it passes and an error beyond it is caught.
#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "core/descriptor.h"
#include "harness/engine/check_case.h"
#include "harness/engine/outcome_wire.h"
#include "harness/plugin/plugin_sut.h"
#include "plugin_paths.h"

namespace convparity {
namespace {

std::unique_ptr<Sut> MustMake(const std::string& spec) {
  Result<std::unique_ptr<Sut>> sut = LoadPluginSut(spec);
  EXPECT_TRUE(sut.ok()) << spec << ": " << sut.status().message();
  return sut.ok() ? std::move(sut).value() : nullptr;
}

ConvProblem Parse(const std::string& descriptor) {
  Result<ParsedDescriptor> parsed = ParseDescriptor(descriptor);
  EXPECT_TRUE(parsed.ok()) << descriptor << ": " << parsed.status().message();
  return parsed.ok() ? parsed->problem : ConvProblem{};
}

CaseOutcome Check(const std::string& descriptor, Direction d, Sut& sut, Fill fill,
                  uint64_t seed = 7) {
  return CheckCase(ConvCase{Parse(descriptor), d, sut.name(), fill, seed}, sut);
}

bool Passed(Verdict v) { return v == Verdict::kPassed || v == Verdict::kMistrusted; }

// Problems that reach groups, stride, dilation, asymmetric padding, output_padding, bias, layouts.
const char* const kProblems[] = {
    "2d_ic3_oc4_i6x5_k3x2_p1x0_b",
    "1d_g2_mb2_ic4_oc6_i9_k3_s2_d2_pb1_pe2",
    "t2d_g2_ic4_oc2_i4x3_k3x3_s2x1_op1x0_nhwc_hwio",
    "t3d_ic2_oc3_i3x2x2_k2x2x2_s2x1x1_ndhwc_b",
};

// ---- Loading --------------------------------------------------------------------------------

TEST(PluginAbi2, AVersion1PluginLoadsRunsAndIsNeverReadPastItsTable) {
  Result<std::unique_ptr<PluginSut>> v1 = PluginSut::Load(CONVPARITY_ODD_PLUGIN_V1);
  ASSERT_TRUE(v1.ok()) << v1.status().message();
  EXPECT_EQ((*v1)->abi_version(), 1);
  EXPECT_TRUE((*v1)->variant_names().empty());
  for (Direction d : AllDirections()) {
    // describe_last_run would be followed here if the loader read the garbage after the table.
    const CaseOutcome out = Check(kProblems[1], d, **v1, Fill::kExact);
    EXPECT_TRUE(Passed(out.verdict)) << DirectionName(d) << ": " << out.reason;
    EXPECT_TRUE(out.notes.empty());
  }
  Result<std::unique_ptr<Sut>> variant =
      LoadPluginSut(std::string(CONVPARITY_ODD_PLUGIN_V1) + "#fast");
  ASSERT_FALSE(variant.ok());
  EXPECT_NE(variant.status().message().find("no variant 'fast' (it offers none)"),
            std::string::npos)
      << variant.status().message();
}

TEST(PluginAbi2, VariantsAreNamedAfterTheSutAndReachedByName) {
  Result<std::unique_ptr<PluginSut>> plugin = PluginSut::Load(CONVPARITY_INEXACT_PLUGIN);
  ASSERT_TRUE(plugin.ok()) << plugin.status().message();
  EXPECT_EQ((*plugin)->abi_version(), CONVPARITY_PLUGIN_ABI_VERSION);
  EXPECT_EQ((*plugin)->variant_names(), (std::vector<std::string>{"beyond", "unflagged"}));
  const std::string path = CONVPARITY_INEXACT_PLUGIN;
  std::unique_ptr<Sut> beyond = MustMake(path + "#beyond");
  ASSERT_NE(beyond, nullptr);
  EXPECT_EQ(beyond->name(), "plugin:" + path + "#beyond");
  PluginSut::Options named;
  named.variant = "unflagged";
  named.sut_name = "noisy#unflagged";
  Result<std::unique_ptr<PluginSut>> renamed = PluginSut::Load(path, named);
  ASSERT_TRUE(renamed.ok()) << renamed.status().message();
  EXPECT_EQ((*renamed)->name(), "noisy#unflagged");
  EXPECT_EQ((*renamed)->variant(), "unflagged");

  Result<std::unique_ptr<Sut>> unknown = LoadPluginSut(path + "#fast");
  ASSERT_FALSE(unknown.ok());
  EXPECT_EQ(unknown.status().message(),
            "plugin " + path + ": no variant 'fast' (it offers beyond, unflagged)");
  Result<std::unique_ptr<Sut>> empty = LoadPluginSut(path + "#");
  ASSERT_FALSE(empty.ok());
  EXPECT_NE(empty.status().message().find("no variant name after '#'"), std::string::npos);
}

TEST(PluginAbi2, MalformedVariantTablesAreOneLineErrors) {
  const std::pair<const char*, const char*> cases[] = {
      {CONVPARITY_ODD_PLUGIN_VARIANT_COUNT, "variant_count must be 0 to 64, but it is -1"},
      {CONVPARITY_ODD_PLUGIN_VARIANT_NULL, "variant_count is 2 but variant_names is NULL"},
      {CONVPARITY_ODD_PLUGIN_VARIANT_NAME, "variant_names[1] 'a b' must be made of [A-Za-z0-9_.-]"},
      {CONVPARITY_ODD_PLUGIN_VARIANT_TWICE, "variant_names[1] 'fast' is not unique"},
  };
  for (const auto& [path, what] : cases) {
    Result<std::unique_ptr<Sut>> sut = LoadPluginSut(path);
    ASSERT_FALSE(sut.ok()) << path;
    const std::string& m = sut.status().message();
    EXPECT_EQ(m, std::string("plugin ") + path + ": " + what);
  }
}

// ---- Run notes and inexact judging ----------------------------------------------------------

TEST(InexactJudging, NoiseWithinTheBoundPassesAnExactFillWhenTheResultIsFlaggedInexact) {
  std::unique_ptr<Sut> within = MustMake(CONVPARITY_INEXACT_PLUGIN);
  ASSERT_NE(within, nullptr);
  for (const char* problem : kProblems)
    for (Direction d : AllDirections()) {
      const CaseOutcome out = Check(problem, d, *within, Fill::kExact);
      SCOPED_TRACE(std::string(problem) + " " + DirectionName(d));
      EXPECT_TRUE(Passed(out.verdict)) << out.reason;
      EXPECT_EQ(out.notes, (RunNotes{"noise-within", true}));
      // The noise is there (not bitwise equal), and judged against a bound, not zero.
      EXPECT_GT(out.judgement.max_abs_error, 0.0);
      ASSERT_TRUE(out.judgement.worst);
      EXPECT_GT(out.judgement.worst->bound, 0.0);
      EXPECT_LT(out.judgement.max_bound_use, 1.0);
    }
}

TEST(InexactJudging, AnErrorBeyondTheBoundIsCaughtInAnInexactResult) {
  std::unique_ptr<Sut> beyond = MustMake(std::string(CONVPARITY_INEXACT_PLUGIN) + "#beyond");
  ASSERT_NE(beyond, nullptr);
  for (const char* problem : kProblems)
    for (Direction d : AllDirections())
      for (Fill fill : {Fill::kExact, Fill::kUniform}) {
        const CaseOutcome out = Check(problem, d, *beyond, fill);
        SCOPED_TRACE(std::string(problem) + " " + DirectionName(d) + " " + FillName(fill));
        EXPECT_EQ(out.verdict, Verdict::kFailed) << out.reason;
        EXPECT_EQ(out.judgement.mismatches, 1);
        EXPECT_EQ(out.notes, (RunNotes{"noise-beyond", true}));
      }
}

TEST(InexactJudging, WithoutTheFlagTheSameNoiseFailsAnExactFillButPassesARandomOne) {
  std::unique_ptr<Sut> unflagged = MustMake(std::string(CONVPARITY_INEXACT_PLUGIN) + "#unflagged");
  ASSERT_NE(unflagged, nullptr);
  for (const char* problem : kProblems) {
    const CaseOutcome exact = Check(problem, Direction::kForward, *unflagged, Fill::kExact);
    EXPECT_EQ(exact.verdict, Verdict::kFailed) << problem << ": " << exact.reason;
    EXPECT_EQ(exact.notes, (RunNotes{"noise-within", false}));
    const CaseOutcome random = Check(problem, Direction::kForward, *unflagged, Fill::kUniform);
    EXPECT_TRUE(Passed(random.verdict)) << problem << ": " << random.reason;
  }
}

TEST(InexactJudging, RunNotesTravelTheWorkerProtocol) {
  std::unique_ptr<Sut> within = MustMake(CONVPARITY_INEXACT_PLUGIN);
  ASSERT_NE(within, nullptr);
  const CaseOutcome out = Check(kProblems[0], Direction::kForward, *within, Fill::kExact);
  Result<CaseOutcome> back = DecodeOutcome(EncodeOutcome(out));
  ASSERT_TRUE(back.ok()) << back.status().message();
  EXPECT_EQ(back->notes, out.notes);
  EXPECT_EQ(back->notes, (RunNotes{"noise-within", true}));
  CaseOutcome quiet = out;
  quiet.notes = {};
  Result<CaseOutcome> quiet_back = DecodeOutcome(EncodeOutcome(quiet));
  ASSERT_TRUE(quiet_back.ok());
  EXPECT_TRUE(quiet_back->notes.empty());
}

}  // namespace
}  // namespace convparity
