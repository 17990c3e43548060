// Plugins (harness/plugin): the loader says in one line what is wrong with a library that is not a
// usable plugin; the problem struct round-trips and its decoder is total; the example plugin passes
// the parity property in every direction and layout; the buggy plugin is caught and shrunk to a
// small case that shows its bug; the crashing plugin is correct where it does not crash (its bad
// configurations are left to the worker-isolation tests: here they would end the test process).
#include <gtest/gtest.h>
#include <rapidcheck.h>
#include <rapidcheck/gtest.h>

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "core/descriptor.h"
#include "generators/problem_gen.h"
#include "harness/engine/check_case.h"
#include "harness/engine/shrink_search.h"
#include "harness/plugin/plugin_sut.h"
#include "plugin_paths.h"

namespace convparity {
namespace {

std::unique_ptr<PluginSut> MustLoad(const std::string& path) {
  Result<std::unique_ptr<PluginSut>> sut = PluginSut::Load(path);
  EXPECT_TRUE(sut.ok()) << sut.status().message();
  return sut.ok() ? std::move(sut).value() : nullptr;
}

CaseOutcome Check(const ConvProblem& p, Direction d, Sut& sut, Fill fill = Fill::kExact,
                  uint64_t seed = 1) {
  return CheckCase(ConvCase{p, d, sut.name(), fill, seed}, sut);
}

bool Passed(Verdict v) { return v == Verdict::kPassed || v == Verdict::kMistrusted; }

ConvProblem Parse(const std::string& descriptor) {
  Result<ParsedDescriptor> parsed = ParseDescriptor(descriptor);
  EXPECT_TRUE(parsed.ok()) << descriptor << ": " << parsed.status().message();
  return parsed.ok() ? parsed->problem : ConvProblem{};
}

// ---- Loading --------------------------------------------------------------------------------

TEST(PluginLoad, ExamplePluginLoadsWithItsNameAndEveryDirection) {
  Result<std::unique_ptr<Sut>> sut = LoadPluginSut(CONVPARITY_EXAMPLE_PLUGIN);
  ASSERT_TRUE(sut.ok()) << sut.status().message();
  EXPECT_EQ((*sut)->name(), std::string("plugin:") + CONVPARITY_EXAMPLE_PLUGIN);
  std::unique_ptr<PluginSut> plugin = MustLoad(CONVPARITY_EXAMPLE_PLUGIN);
  ASSERT_NE(plugin, nullptr);
  EXPECT_EQ(plugin->plugin_name(), "example: naive direct convolution");
  EXPECT_EQ(plugin->directions(), CONVPARITY_ALL_DIRECTIONS);
  for (Direction d : AllDirections()) EXPECT_TRUE(plugin->Implements(d)) << DirectionName(d);
}

// Loading `path` fails with one line of Invalid that names the path and contains `what`.
void ExpectLoadError(const std::string& path, const std::string& what) {
  Result<std::unique_ptr<Sut>> sut = LoadPluginSut(path);
  ASSERT_FALSE(sut.ok()) << path;
  const std::string& m = sut.status().message();
  EXPECT_EQ(sut.status().code(), StatusCode::kInvalid) << m;
  EXPECT_EQ(m.find('\n'), std::string::npos) << m;
  EXPECT_EQ(m.rfind("plugin " + path + ": ", 0), 0u) << m;
  EXPECT_NE(m.find(what), std::string::npos) << "expected '" << what << "' in: " << m;
  std::printf("[plugin load error] %s\n", m.c_str());
}

TEST(PluginLoad, EveryUnusableLibraryIsOneLineOfInvalidNamingPathAndProblem) {
  ExpectLoadError("/nonexistent/libnothing.so", "cannot load: ");
  const std::string text = testing::TempDir() + "not_a_plugin.so";
  std::ofstream(text) << "this is not a shared library\n";
  ExpectLoadError(text, "cannot load: ");
  ExpectLoadError(CONVPARITY_ODD_PLUGIN_NO_ENTRY,
                  "not a convparity plugin (no symbol convparity_plugin_entry)");
  ExpectLoadError("libm.so.6", "not a convparity plugin (no symbol convparity_plugin_entry)");
  ExpectLoadError(CONVPARITY_ODD_PLUGIN_ABI_999, "ABI version 999, this convparity speaks 1 to 4");
  ExpectLoadError(CONVPARITY_ODD_PLUGIN_NULL_ENTRY, "convparity_plugin_entry() returned NULL");
  ExpectLoadError(CONVPARITY_ODD_PLUGIN_NULL_FUNCTION,
                  "directions declares backward_weight but its function pointer is NULL");
  ExpectLoadError(CONVPARITY_ODD_PLUGIN_NO_NAME, "no name");
  Result<std::unique_ptr<Sut>> empty = LoadPluginSut("");
  ASSERT_FALSE(empty.ok());
  EXPECT_EQ(empty.status().code(), StatusCode::kInvalid);
}

TEST(PluginRun, DeclinedAndUnimplementedAreSkippedOtherCodesAreErrors) {
  std::unique_ptr<PluginSut> odd = MustLoad(CONVPARITY_ODD_PLUGIN_DECLINING);
  ASSERT_NE(odd, nullptr);
  EXPECT_TRUE(odd->Implements(Direction::kForward));
  EXPECT_FALSE(odd->Implements(Direction::kBackwardWeight));
  const ConvProblem p = Parse("2d_ic2_oc2_i4_k3");
  const CaseOutcome fwd = Check(p, Direction::kForward, *odd);
  EXPECT_EQ(fwd.verdict, Verdict::kSkipped) << fwd.reason;
  EXPECT_NE(fwd.reason.find("odd declined the configuration (this plugin declines everything)"),
            std::string::npos)
      << fwd.reason;
  const CaseOutcome bwd_data = Check(p, Direction::kBackwardData, *odd);
  EXPECT_EQ(bwd_data.verdict, Verdict::kCrashed) << bwd_data.reason;
  EXPECT_NE(bwd_data.reason.find("plugin returned code 42 (this plugin declines everything)"),
            std::string::npos)
      << bwd_data.reason;
  const CaseOutcome bwd_weight = Check(p, Direction::kBackwardWeight, *odd);
  EXPECT_EQ(bwd_weight.verdict, Verdict::kSkipped) << bwd_weight.reason;
  EXPECT_NE(bwd_weight.reason.find("odd does not implement bwd_weight"), std::string::npos)
      << bwd_weight.reason;
}

// ---- The problem struct ---------------------------------------------------------------------

RC_GTEST_PROP(PluginStruct, RoundTripsEveryGeneratedProblem, ()) {
  const ConvProblem p = *GenProblem();
  const convparity_problem s = PluginStructFromProblem(p);
  RC_ASSERT(s.struct_size == sizeof(convparity_problem));
  const Dims out = p.output();
  for (int i = 0; i < CONVPARITY_MAX_RANK; ++i) {
    RC_ASSERT(s.output[i] == (i < p.rank ? out[i] : 1));
    if (i >= p.rank)  // the header's promise for unused entries
      RC_ASSERT(s.input[i] == 1 && s.kernel[i] == 1 && s.stride[i] == 1 && s.dilation[i] == 1 &&
                s.pad_begin[i] == 0 && s.pad_end[i] == 0 && s.output_padding[i] == 0);
  }
  const Result<ConvProblem> back = ProblemFromPluginStruct(s);
  RC_ASSERT(back.ok());
  RC_ASSERT(*back == p);
}

// The fields a plugin reads: everything but struct_size and the spatial entries beyond rank.
bool SameUsedFields(const convparity_problem& a, const convparity_problem& b) {
  if (a.rank != b.rank || a.transposed != b.transposed || a.has_bias != b.has_bias ||
      a.data_layout != b.data_layout || a.weight_layout != b.weight_layout || a.batch != b.batch ||
      a.in_channels != b.in_channels || a.out_channels != b.out_channels || a.groups != b.groups)
    return false;
  for (int i = 0; i < a.rank; ++i)
    if (a.input[i] != b.input[i] || a.kernel[i] != b.kernel[i] || a.stride[i] != b.stride[i] ||
        a.pad_begin[i] != b.pad_begin[i] || a.pad_end[i] != b.pad_end[i] ||
        a.dilation[i] != b.dilation[i] || a.output_padding[i] != b.output_padding[i] ||
        a.output[i] != b.output[i])
      return false;
  return true;
}

// Whatever the bytes, the decoder returns; what it accepts is exactly a struct the encoder makes.
void ExpectTotalAndExact(const convparity_problem& s) {
  const Result<ConvProblem> p = ProblemFromPluginStruct(s);
  if (!p.ok()) {
    RC_ASSERT(p.status().code() == StatusCode::kInvalid);
    RC_ASSERT(!p.status().message().empty());
    RC_ASSERT(p.status().message().find('\n') == std::string::npos);
    return;
  }
  RC_ASSERT(Validate(*p).ok());
  RC_ASSERT(SameUsedFields(s, PluginStructFromProblem(*p)));
}

RC_GTEST_PROP(PluginStruct, DecodingRandomBytesNeverCrashesAndAcceptsOnlyEncodedStructs, ()) {
  const std::vector<uint8_t> bytes = *rc::gen::container<std::vector<uint8_t>>(
      sizeof(convparity_problem), rc::gen::arbitrary<uint8_t>());
  convparity_problem s;
  std::memcpy(&s, bytes.data(), sizeof s);
  ExpectTotalAndExact(s);
}

RC_GTEST_PROP(PluginStruct, DecodingAValidStructWithOneSlotOverwrittenIsTotalAndExact, ()) {
  // Mostly-valid structs reach the checks behind the first one, which random bytes rarely pass.
  convparity_problem s = PluginStructFromProblem(*GenProblem());
  constexpr size_t kSlots = (sizeof(convparity_problem) - offsetof(convparity_problem, batch)) / 8;
  const int header_slot = *rc::gen::inRange(0, 6), slot = *rc::gen::inRange<int>(0, kSlots);
  const int64_t value =
      *rc::gen::oneOf(rc::gen::inRange<int64_t>(-3, 12), rc::gen::arbitrary<int64_t>());
  if (*rc::gen::arbitrary<bool>()) {
    int32_t v32 = static_cast<int32_t>(value);
    std::memcpy(reinterpret_cast<char*>(&s) + 4 * header_slot, &v32, 4);
  } else {
    std::memcpy(reinterpret_cast<char*>(&s) + offsetof(convparity_problem, batch) + 8 * slot,
                &value, 8);
  }
  ExpectTotalAndExact(s);
}

TEST(PluginStruct, RejectionsNameTheField) {
  const convparity_problem good = PluginStructFromProblem(Parse("t2d_g2_ic4_oc6_i5_k3_s2_op1"));
  ASSERT_TRUE(ProblemFromPluginStruct(good).ok());
  auto message = [&](const std::function<void(convparity_problem&)>& spoil) {
    convparity_problem s = good;
    spoil(s);
    const Result<ConvProblem> p = ProblemFromPluginStruct(s);
    EXPECT_FALSE(p.ok());
    return p.ok() ? std::string() : p.status().message();
  };
  EXPECT_NE(message([](auto& s) { s.struct_size = 8; }).find("struct_size"), std::string::npos);
  EXPECT_NE(message([](auto& s) { s.rank = 4; }).find("rank"), std::string::npos);
  EXPECT_NE(message([](auto& s) { s.transposed = 2; }).find("transposed"), std::string::npos);
  EXPECT_NE(message([](auto& s) { s.has_bias = -1; }).find("has_bias"), std::string::npos);
  EXPECT_NE(message([](auto& s) { s.data_layout = 2; }).find("data_layout"), std::string::npos);
  EXPECT_NE(message([](auto& s) { s.weight_layout = 4; }).find("weight_layout"), std::string::npos);
  EXPECT_NE(message([](auto& s) { s.groups = 4; }).find("divisible by groups"), std::string::npos);
  EXPECT_NE(message([](auto& s) { s.output[1] = 99; }).find("output must be"), std::string::npos);
  EXPECT_NE(message([](auto& s) { s.dilation[0] = 0; }).find("dilation"), std::string::npos);
}

// ---- The example plugins against the oracle -------------------------------------------------

ProblemSpace SmallSpace() {
  ProblemSpace space;
  space.max_macs = 20000;  // the naive plugin and the oracle stay well under a millisecond
  return space;
}

// The parity property, with our layouts converted to and from PyTorch's by PluginSut.
RC_GTEST_PROP(ExamplePluginParity, AgreesWithOracleInEveryDirectionAndLayoutExactAndRandom, ()) {
  static std::unique_ptr<PluginSut> plugin = MustLoad(CONVPARITY_EXAMPLE_PLUGIN);
  RC_ASSERT(plugin != nullptr);
  const ConvProblem p = *GenProblem(SmallSpace());
  const Direction d = *rc::gen::elementOf(AllDirections());
  const uint64_t seed = *rc::gen::arbitrary<uint64_t>();
  const Fill random = *rc::gen::element(Fill::kUniform, Fill::kPositive, Fill::kWide);
  RC_CLASSIFY(p.data_layout == DataLayout::kChannelsLast, "channels-last");
  RC_CLASSIFY(p.weight_layout != p.natural_weight_layout(), "other weight layout");
  RC_CLASSIFY(p.transposed, "transposed");
  for (Fill fill : {Fill::kExact, random}) {
    const CaseOutcome out = Check(p, d, *plugin, fill, seed);
    RC_CLASSIFY(out.verdict == Verdict::kMistrusted, "mistrusted");
    if (!Passed(out.verdict) && out.verdict != Verdict::kSkipped)
      RC_FAIL(CaseDescriptor(p, d) + " " + FillName(fill) + ": " + VerdictName(out.verdict) + ": " +
              out.reason);
  }
}

TEST(ExamplePluginParity, PassesOnLayoutCasesOfEveryKindAndDirection) {
  std::unique_ptr<PluginSut> plugin = MustLoad(CONVPARITY_EXAMPLE_PLUGIN);
  ASSERT_NE(plugin, nullptr);
  for (const char* descriptor :
       {"2d_g2_ic4_oc6_i5x4_k3x2_s2x1_pb1x0_pe0x2_d1x2_nhwc_hwio_b",
        "t2d_g2_ic4_oc6_i3x4_k3x2_s2x1_pb1x0_pe0x1_d1x2_op1x0_nhwc_ohwi_b",
        "t3d_ic2_oc3_i2x3x2_k2_s2_op1_ndhwc_oidhw", "1d_mb2_ic3_oc2_i7_k3_s2_p1_nwc_iow"})
    for (Direction d : AllDirections()) {
      const ConvProblem p = Parse(descriptor);
      const CaseOutcome out = Check(p, d, *plugin);
      EXPECT_TRUE(Passed(out.verdict))
          << CaseDescriptor(p, d) << ": " << VerdictName(out.verdict) << ": " << out.reason;
    }
}

struct DrawnCase {
  ConvProblem problem;
  Direction direction = Direction::kForward;
};

rc::Gen<DrawnCase> GenCase() {
  return rc::gen::apply(
      [](ConvProblem p, Direction d) {
        return DrawnCase{p, d};
      },
      GenProblem(SmallSpace()), rc::gen::elementOf(AllDirections()));
}

TEST(BuggyPlugin, ParityPropertyFailsAndShrinksToDilatedBackwardData) {
  std::unique_ptr<PluginSut> buggy = MustLoad(CONVPARITY_BUGGY_PLUGIN);
  std::unique_ptr<PluginSut> example = MustLoad(CONVPARITY_EXAMPLE_PLUGIN);
  ASSERT_NE(buggy, nullptr);
  ASSERT_NE(example, nullptr);
  std::function<bool(const DrawnCase&)> fails = [&](const DrawnCase& c) {
    return IsDiscrepancy(Check(c.problem, c.direction, *buggy).verdict);
  };
  SearchOptions options;
  options.seed = 20261122;
  options.max_cases = 500;
  options.max_seconds = 30;
  const SearchResult<DrawnCase> r = FindAndShrink(GenCase(), fails, options);
  ASSERT_TRUE(r.found) << "no failure in " << r.cases << " cases";
  const DrawnCase& shrunk = *r.shrunk;
  const std::string descriptor = CaseDescriptor(shrunk.problem, shrunk.direction);
  std::printf("[buggy plugin] failure after %lld cases (%.3f s); shrunk in %lld steps: %s\n",
              static_cast<long long>(r.cases), r.search_seconds,
              static_cast<long long>(r.shrink_steps), descriptor.c_str());
  EXPECT_TRUE(r.shrink_complete);
  EXPECT_EQ(shrunk.direction, Direction::kBackwardData) << descriptor;
  bool dilated_tap = false;
  for (int i = 0; i < shrunk.problem.rank; ++i)
    dilated_tap |= shrunk.problem.dilation[i] > 1 && shrunk.problem.kernel[i] > 1;
  EXPECT_TRUE(dilated_tap) << descriptor;
  EXPECT_LE(shrunk.problem.macs(), 16) << descriptor;
  EXPECT_TRUE(fails(shrunk)) << descriptor;
  EXPECT_TRUE(Passed(Check(shrunk.problem, shrunk.direction, *example).verdict)) << descriptor;
}

// Its crashing configurations are for the worker-isolation tests; everything else must pass.
bool CrashingPluginMisbehaves(const ConvProblem& p) {
  if (p.groups > 1) return true;
  for (int i = 0; i < p.rank; ++i)
    if (p.stride[i] == 3 || p.dilation[i] == 3) return true;
  return false;
}

TEST(CrashingPlugin, IsCorrectWhereItDoesNotMisbehave) {
  std::unique_ptr<PluginSut> plugin = MustLoad(CONVPARITY_CRASHING_PLUGIN);
  ASSERT_NE(plugin, nullptr);
  const rc::Gen<DrawnCase> gen = GenCase();
  rc::Random random(5);
  int checked = 0;
  for (int draw = 0; draw < 2000 && checked < 60; ++draw) {
    const DrawnCase c = gen(random.split(), 50).value();
    if (CrashingPluginMisbehaves(c.problem)) continue;
    ++checked;
    const CaseOutcome out = Check(c.problem, c.direction, *plugin);
    EXPECT_TRUE(Passed(out.verdict)) << CaseDescriptor(c.problem, c.direction) << ": "
                                     << VerdictName(out.verdict) << ": " << out.reason;
  }
  EXPECT_GE(checked, 60);
}

}  // namespace
}  // namespace convparity
