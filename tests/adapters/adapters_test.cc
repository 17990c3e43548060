// Adapters to other people's libraries (adapters/): each one, made by name through the registry
// (which loads its plugin from lib/convparity/adapters beside this executable), agrees with the
// oracle on a fixed set of problems it supports, in exact and random fills, and declines with a
// reason what it does not support. A test is skipped when its adapter is not built here (its
// library was not found at configure time).
#include <gtest/gtest.h>

#include <algorithm>
#include <memory>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "core/capabilities.h"
#include "core/descriptor.h"
#include "core/prng.h"
#include "generators/problem_gen.h"
#include "harness/engine/check_case.h"
#include "harness/suts/adapter_suts.h"
#include "harness/suts/sut_registry.h"

namespace convparity {
namespace {

struct AdapterCase {
  const char* sut;
  const char* descriptor;  // with its direction
  const char* why;         // what the case covers
};
void PrintTo(const AdapterCase& a, std::ostream* os) { *os << a.sut << " " << a.descriptor; }

// The SUT, or nullptr (and the test skips) when its adapter is not built.
std::unique_ptr<Sut> MakeOrSkip(const std::string& name) {
  for (const AdapterSutInfo& a : AdapterSuts())
    if (a.name == name.substr(0, name.find('#')) && !AdapterBuilt(a)) return nullptr;
  Result<std::unique_ptr<Sut>> sut = MakeSut(name);
  EXPECT_TRUE(sut.ok()) << sut.status().message();
  return sut.ok() ? std::move(sut).value() : nullptr;
}

ConvCase CaseOf(const AdapterCase& a, Fill fill) {
  Result<ParsedDescriptor> parsed = ParseDescriptor(a.descriptor);
  EXPECT_TRUE(parsed.ok()) << a.descriptor;
  ConvCase c;
  c.problem = parsed->problem;
  c.direction = parsed->direction.value_or(Direction::kForward);
  c.sut = a.sut;
  c.fill = fill;
  c.seed = 7;
  return c;
}

class AdapterAgrees : public testing::TestWithParam<AdapterCase> {};

TEST_P(AdapterAgrees, WithTheOracleInExactAndRandomFill) {
  const AdapterCase& a = GetParam();
  std::unique_ptr<Sut> sut = MakeOrSkip(a.sut);
  if (!sut) GTEST_SKIP() << a.sut << " is not built here";
  EXPECT_EQ(sut->name(), a.sut);  // case files record the adapter's name, not a path
  for (Fill fill : {Fill::kExact, Fill::kUniform, Fill::kWide}) {
    const CaseOutcome out = CheckCase(CaseOf(a, fill), *sut);
    EXPECT_EQ(out.verdict, Verdict::kPassed)
        << a.sut << " " << a.descriptor << " (" << a.why << "), " << FillName(fill)
        << " fill: " << VerdictName(out.verdict) << ": " << out.reason;
  }
}

class AdapterDeclines : public testing::TestWithParam<AdapterCase> {};

TEST_P(AdapterDeclines, WithAReason) {
  const AdapterCase& a = GetParam();
  std::unique_ptr<Sut> sut = MakeOrSkip(a.sut);
  if (!sut) GTEST_SKIP() << a.sut << " is not built here";
  const CaseOutcome out = CheckCase(CaseOf(a, Fill::kExact), *sut);
  EXPECT_EQ(out.verdict, Verdict::kSkipped) << a.descriptor << ": " << out.reason;
  EXPECT_NE(out.reason.find(a.why), std::string::npos)
      << "expected '" << a.why << "' in: " << out.reason;
}

std::string CaseName(const testing::TestParamInfo<AdapterCase>& info) {
  std::string name = std::string(info.param.sut) + "_" + std::to_string(info.index);
  for (char& ch : name)
    if (!isalnum(static_cast<unsigned char>(ch))) ch = '_';
  return name;
}

// What each adapter maps (adapters/*/README.md), one case per feature or route.
const AdapterCase kSupported[] = {
    {"xnnpack", "fwd:2d_ic3_oc4_i7x7_k3x3", "plain; channels-first but not NCHW-operator shaped"},
    {"xnnpack", "fwd:2d_g2_ic4_oc6_i9x9_k3x3_s2x2_pb1x0_pe0x2_d2x2_nhwc_b",
     "groups, stride, dilation, asymmetric padding, bias"},
    {"xnnpack", "fwd:2d_g4_ic4_oc8_i7x7_k3x3_p1_nhwc_hwio",
     "depth multiplier 2, XNNPACK's depthwise weight layout"},
    {"xnnpack", "fwd:2d_mb2_g4_ic4_oc4_i7x7_k3x3_p1_b", "the NCHW operator's 3x3 depthwise"},
    {"xnnpack", "fwd:2d_ic5_oc3_i6x6_k1x1_b", "the NCHW operator's 1x1 (sparse) kernel"},
    {"xnnpack", "fwd:1d_ic3_oc5_i9_k3_s2_d2", "1-D as one row"},
    {"xnnpack", "fwd:t2d_ic3_oc2_i5x5_k3x3_s2x2_p1x1_op1x1_b", "deconvolution, adjustment"},
    {"xnnpack", "fwd:t2d_mb2_g2_ic4_oc6_i5x5_k3x3_nhwc", "grouped deconvolution (xnnpack-1951)"},
    {"xnnpack", "fwd:t2d_ic2_oc2_i5x5_k3x3_s2_d3_op2_pe2",
     "output_padding >= stride, taken from the end padding"},
    {"xnnpack", "fwd:t1d_ic2_oc3_i7_k4_s3_op2", "1-D deconvolution"},
    {"xnnpack:nchw", "fwd:2d_g4_ic4_oc4_i7x7_k3x3_p1", "3x3 depthwise"},
    {"xnnpack:nchw", "fwd:2d_g3_ic3_oc3_i9x9_k5x5_s2_p2_b", "5x5 stride-2 depthwise"},
    {"xnnpack:nchw", "fwd:2d_mb2_ic5_oc3_i6x6_k1x1_b", "1x1"},
    {"xnnpack:nchw", "fwd:2d_ic3_oc4_i7x7_k3x3_s2_p1_nhwc", "3x3 stride 2 from NHWC, 3 channels"},
    {"armnn", "fwd:2d_mb2_ic3_oc4_i7x7_k3x3", "Convolution2d, NCHW"},
    {"armnn", "fwd:2d_ic3_oc4_i9x9_k3x3_s2x2_pb1x0_pe0x2_d2x2_nhwc_b",
     "Convolution2d, NHWC, stride, dilation, asymmetric padding, bias"},
    {"armnn", "fwd:2d_g4_ic4_oc8_i7x7_k3x3_p1_b", "DepthwiseConvolution2d, multiplier 2, NCHW"},
    {"armnn", "fwd:2d_g3_ic3_oc3_i8x8_k3x3_s2_d2_nhwc", "DepthwiseConvolution2d, NHWC"},
    {"armnn", "fwd:1d_ic3_oc5_i9_k3_s2_d2", "1-D as one row"},
    {"armnn", "fwd:t2d_ic3_oc2_i5x5_k3x3_s2x2_p1x1_op1x1_b",
     "TransposeConvolution2d, output_padding as the output shape"},
    {"armnn", "fwd:t2d_ic2_oc3_i4x5_k2x3_s2x1_pb1x0_nhwc", "TransposeConvolution2d, NHWC"},
};
INSTANTIATE_TEST_SUITE_P(Adapters, AdapterAgrees, testing::ValuesIn(kSupported), CaseName);

// `why` is a piece of the reason each must give.
const AdapterCase kDeclined[] = {
    {"xnnpack", "fwd:3d_ic2_oc2_i4x4x4_k3x3x3", "no 3-D convolution"},
    {"xnnpack", "bwd_data:2d_ic2_oc2_i5x5_k3x3", "does not implement bwd_data"},
    {"xnnpack", "fwd:t2d_ic2_oc2_i5x5_k3x3_s2_d3_op2", "adjustment must be below the stride"},
    {"xnnpack:nchw", "fwd:2d_ic3_oc4_i7x7_k3x3", "XNNPACK rejects these parameters"},
    {"xnnpack:nchw", "fwd:t2d_ic3_oc4_i7x7_k3x3", "no NCHW deconvolution"},
    {"armnn", "fwd:2d_g2_ic4_oc6_i9x9_k3x3", "no grouped convolution"},
    {"armnn", "fwd:t2d_ic2_oc2_i5x5_k3x3_d2", "TransposeConvolution2d has no dilation"},
    {"armnn", "fwd:3d_ic2_oc2_i4x4x4_k3x3x3", "no 3-D convolution"},
    {"armnn", "bwd_weight:2d_ic2_oc2_i5x5_k3x3", "does not implement bwd_weight"},
};
INSTANTIATE_TEST_SUITE_P(Adapters, AdapterDeclines, testing::ValuesIn(kDeclined), CaseName);

// A case that one of the adapter's recorded findings (findings/README.md) crashes or aborts on,
// with room to spare: kept away from, since this test runs the adapter in its own process.
bool CrashesOnAFinding(const std::string& sut, const ConvProblem& p, Direction d) {
  const int r = p.rank;
  auto any = [r](const Dims& v, int64_t above) {
    return std::any_of(v.begin(), v.begin() + r, [above](int64_t x) { return x > above; });
  };
  if (sut == "armnn") return p.transposed && p.batch > 1;  // armnn-1
  if (sut == "xnnpack")  // xnnpack-1: strided, undilated transposed with padding
    return p.transposed && any(p.stride, 1) && !any(p.dilation, 1) &&
           (any(p.pad_begin, 0) || any(p.pad_end, 0));
  if (sut == "onednn") return r == 3 && d == Direction::kBackwardWeight;  // onednn-2, on AVX-512
  return false;
}

// The edges of the adapters' declarations, beside the drawn cases: output_padding at and above the
// stride (within the end padding, within stride + end padding), 3-D, groups, depthwise, dilation
// with and without stride, transposed and not.
const char* const kDeclarationEdges[] = {
    "t1d_ic1_oc1_i5_k2_d3_op2",
    "t1d_ic1_oc1_i5_k2_d3_pb0_pe2_op2",
    "t1d_ic1_oc1_i5_k2_s2_d3_pb0_pe1_op2",
    "3d_ic2_oc2_i4_k3",
    "t3d_ic2_oc2_i3_k2",
    "2d_g2_ic4_oc4_i5_k3",
    "2d_g4_ic4_oc8_i5_k3",
    "t2d_g2_ic2_oc2_i4_k3",
    "2d_ic2_oc2_i9_k3_s2_d2",
    "t2d_ic2_oc2_i5_k3_d2",
    "1d_ic2_oc3_i7_k3",
    "t2d_ic2_oc3_i4_k3_s2",
};

class AdapterKeepsItsDeclaration : public testing::TestWithParam<const char*> {};

// Small cases drawn as a campaign draws them, and the edges above, in every direction: the adapter
// declines each one outside its declaration (ABI 3) and runs each one inside it (to any verdict
// but skipped).
TEST_P(AdapterKeepsItsDeclaration, DecliningExactlyTheCasesOutsideIt) {
  const std::string name = GetParam();
  std::unique_ptr<Sut> sut = MakeOrSkip(name);
  if (!sut) GTEST_SKIP() << name << " is not built here";
  Result<Capabilities> caps = AdapterCapabilities(name);
  ASSERT_TRUE(caps.ok()) << caps.status().message();
  ASSERT_TRUE(caps->declared) << name << " declares nothing";
  ProblemSpace space;
  space.max_macs = 20000;
  space.max_kernel = 5;
  space.large_percent = 0;
  int inside = 0, outside = 0;
  std::vector<std::string> broken;
  std::vector<ConvProblem> problems;
  for (const char* edge : kDeclarationEdges) {
    Result<ParsedDescriptor> parsed = ParseDescriptor(edge);
    ASSERT_TRUE(parsed.ok()) << edge;
    problems.push_back(parsed->problem);
  }
  for (uint64_t i = 0; i < 150; ++i)
    problems.push_back(GenProblem(space)(rc::Random(MixSeed(20261127, i)), 0).value());
  for (size_t i = 0; i < problems.size(); ++i) {
    const ConvProblem& p = problems[i];
    for (Direction d : AllDirections()) {
      if (CrashesOnAFinding(name, p, d)) continue;
      ConvCase c;
      c.problem = p;
      c.direction = d;
      c.sut = name;
      c.seed = i;
      const std::optional<std::string> why = WhyOutside(*caps, ConvForm().name, d, p);
      const CaseOutcome out = CheckCase(c, *sut);
      ++(why ? outside : inside);
      if ((out.verdict == Verdict::kSkipped) == why.has_value()) continue;
      broken.push_back(
          CaseDescriptor(p, d) + ": " +
          (why ? "ran outside its declaration (" + *why + "): " + VerdictName(out.verdict)
               : "declined inside its declaration: " + out.reason));
    }
  }
  std::string shown;
  for (size_t i = 0; i < std::min<size_t>(broken.size(), 8); ++i) shown += "\n  " + broken[i];
  EXPECT_TRUE(broken.empty()) << broken.size() << " of " << inside + outside << " cases:" << shown;
  EXPECT_GT(inside, 50) << "too few cases inside the declaration to tell";
  EXPECT_GT(outside, 0) << "no case outside the declaration";
}

INSTANTIATE_TEST_SUITE_P(Adapters, AdapterKeepsItsDeclaration,
                         testing::Values("xnnpack", "armnn", "onednn", "torchscript",
                                         "torchscript#inference", "torchscript#mobile"),
                         // <library>_…: the library's ctest entry runs it (tests/CMakeLists.txt).
                         [](const testing::TestParamInfo<const char*>& info) {
                           std::string name = std::string(info.param) + "_declaration";
                           for (char& ch : name)
                             if (!isalnum(static_cast<unsigned char>(ch))) ch = '_';
                           return name;
                         });

TEST(AdapterRegistry, EveryAdapterIsListedAndNamesItsLibraryWhenNotBuilt) {
  const auto listed = ListSuts(SutConfig{});
  for (const AdapterSutInfo& a : AdapterSuts()) {
    bool found = false;
    for (const auto& [name, what] : listed) found |= name == a.name;
    EXPECT_TRUE(found) << a.name;
    EXPECT_TRUE(IsAdapterSutName(a.name));
    if (AdapterBuilt(a)) continue;
    Result<std::unique_ptr<Sut>> sut = MakeSut(a.name);
    ASSERT_FALSE(sut.ok());
    EXPECT_NE(sut.status().message().find(a.library), std::string::npos) << sut.status().message();
  }
  EXPECT_FALSE(IsAdapterSutName("plugin:xnnpack"));
}

}  // namespace
}  // namespace convparity
