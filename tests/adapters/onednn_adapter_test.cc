// The oneDNN adapter (adapters/onednn) through the registry, as a campaign's worker makes it: every
// member agrees with the oracle on fixed problems in every direction, convolution and
// deconvolution, where it accepts them, and together they reach jit, gemm and reference
// implementations; what oneDNN cannot express is declined with a reason; its Winograd results are
// flagged inexact and stay within the plane bound on every fill, and the figures that justify
// c_inexact are printed. Skipped when the adapter was not built (no libdnnl-dev).
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "core/descriptor.h"
#include "harness/engine/check_case.h"
#include "harness/suts/adapter_suts.h"
#include "harness/suts/sut_registry.h"

namespace convparity {
namespace {

bool OneDnnBuilt() {
  for (const AdapterSutInfo& a : AdapterSuts())
    if (a.name == "onednn") return AdapterBuilt(a);
  return false;
}

// ctest's adapter_tests_onednn reports a skip on "is not built here".
#define SKIP_WITHOUT_ADAPTER() \
  if (!OneDnnBuilt()) GTEST_SKIP() << "onednn is not built here (libdnnl-dev missing)"

ConvProblem Parse(const std::string& descriptor) {
  Result<ParsedDescriptor> parsed = ParseDescriptor(descriptor);
  EXPECT_TRUE(parsed.ok()) << descriptor << ": " << parsed.status().message();
  EXPECT_TRUE(Validate(parsed->problem).ok()) << descriptor;
  return parsed.ok() ? parsed->problem : ConvProblem{};
}

std::vector<std::unique_ptr<Sut>> Members(const std::vector<std::string>& names) {
  std::vector<std::unique_ptr<Sut>> suts;
  for (const std::string& name : names) {
    Result<std::unique_ptr<Sut>> sut = MakeSut(name);
    EXPECT_TRUE(sut.ok()) << name << ": " << sut.status().message();
    if (sut.ok()) suts.push_back(std::move(sut).value());
  }
  return suts;
}

std::vector<std::string> AllMembers() {
  Result<std::vector<std::string>> names = ExpandAdapterSuts({"onednn#all"});
  EXPECT_TRUE(names.ok()) << names.status().message();
  return names.ok() ? *names : std::vector<std::string>{};
}

bool Passed(Verdict v) { return v == Verdict::kPassed || v == Verdict::kMistrusted; }

// Problems oneDNN supports, chosen to reach each format policy (plain, any, channels-last) and the
// features of the adapter's mapping: groups and depthwise, dilation, asymmetric padding,
// output_padding (a negative padding_r), bias, 1-3 spatial dimensions.
const char* const kSupported[] = {
    "2d_mb2_ic16_oc16_i8_k3_p1",                     // plain: gemm, reference
    "2d_mb2_ic16_oc32_i7x6_k3_p1_iohw_b",            // any: jit, brgemm, gemm, reference
    "2d_mb2_ic16_oc16_i8_k3_pb1x0_pe2x1_nhwc_ohwi",  // channels-last, any weights
    "1d_g2_ic4_oc6_i9_k3_s2_d2_pb1_pe2",
    "1d_g8_ic8_oc16_i11_k5_d2_p2_nwc_oiw",  // depthwise, multiplier 2
    "3d_ic3_oc5_i4x5x6_k2x3x2_s2x1x1_p1x0x1_b",
    "t2d_g2_ic4_oc6_i5_k3_s2_op1",               // deconvolution, padding_r -1
    "t2d_ic16_oc16_i5x4_k3_s2_p1_op1x0_oihw_b",  // any
    "t1d_ic3_oc2_i7_k4_s3_d2_pb2_pe1_op2_nwc",   // padding_r 1 - 2 = -1 > -(3 - 1)
    "t3d_ic2_oc4_i3x2x3_k3x2x2_s2x1x2_p1x0x0_op1x0x1_ndhwc_b",
};

TEST(OneDnnAdapter, EveryMemberAgreesWithTheOracleWhereItAcceptsAndTogetherTheyReachEveryKind) {
  SKIP_WITHOUT_ADAPTER();
  std::vector<std::unique_ptr<Sut>> members = Members(AllMembers());
  ASSERT_GE(members.size(), 3u);
  std::map<std::string, int> implementations;  // what ran, how often
  for (const char* descriptor : kSupported)
    for (Direction d : AllDirections())
      for (Fill fill : {Fill::kExact, Fill::kUniform}) {
        int accepted = 0;
        for (const std::unique_ptr<Sut>& sut : members) {
          const CaseOutcome out =
              CheckCase(ConvCase{Parse(descriptor), d, sut->name(), fill, 3}, *sut);
          SCOPED_TRACE(std::string(descriptor) + " " + DirectionName(d) + " " + FillName(fill) +
                       " " + sut->name());
          if (out.verdict == Verdict::kSkipped) continue;
          ++accepted;
          EXPECT_TRUE(Passed(out.verdict)) << out.reason;
          EXPECT_FALSE(out.notes.implementation.empty());
          EXPECT_EQ(out.notes.inexact, out.notes.implementation.find("wino") != std::string::npos);
          ++implementations[out.notes.implementation];
        }
        EXPECT_GE(accepted, 1) << descriptor << " " << DirectionName(d)
                               << ": no member accepted it";
      }
  std::string reached;
  for (const auto& [name, n] : implementations) reached += " " + name + "×" + std::to_string(n);
  std::printf("[onednn implementations reached]%s\n", reached.c_str());
  auto reached_kind = [&](const std::string& kind) {
    return std::any_of(implementations.begin(), implementations.end(),
                       [&](const auto& e) { return e.first.find(kind) != std::string::npos; });
  };
  for (const char* kind : {"jit", "gemm", "ref"}) EXPECT_TRUE(reached_kind(kind)) << kind;
}

std::string SkipReason(const std::string& descriptor, Direction d, const std::string& sut_name) {
  std::vector<std::unique_ptr<Sut>> suts = Members({sut_name});
  if (suts.empty()) return "";
  const CaseOutcome out =
      CheckCase(ConvCase{Parse(descriptor), d, sut_name, Fill::kExact, 1}, *suts[0]);
  EXPECT_EQ(out.verdict, Verdict::kSkipped) << descriptor << ": " << out.reason;
  return out.reason;
}

TEST(OneDnnAdapter, WhatOneDnnCannotExpressIsDeclinedWithAReason) {
  SKIP_WITHOUT_ADAPTER();
  // output_padding 2 ≥ stride (allowed by dilation 3) leaves padding_r = 0 - 2 < -(2 - 1).
  const std::string too_much = "t1d_ic2_oc2_i4_k2_s2_d3_op2";
  for (Direction d : AllDirections())
    EXPECT_NE(SkipReason(too_much, d, "onednn")
                  .find("needs padding_r -2 in dimension 0, but oneDNN accepts no less than "
                        "-(stride - 1) = -1"),
              std::string::npos);
  EXPECT_NE(SkipReason("2d_ic16_oc16_i8_k3_p1", Direction::kForward, "onednn#12")
                .find("implementations of oneDNN accept this problem"),
            std::string::npos);
  EXPECT_NE(SkipReason("1d_ic2_oc2_i8_k3", Direction::kForward, "onednn#winograd")
                .find("oneDNN has no Winograd"),
            std::string::npos);
}

TEST(OneDnnAdapter, TheRegistryNamesEveryMemberAndRefusesUnknownVariants) {
  SKIP_WITHOUT_ADAPTER();
  const std::vector<std::string> members = AllMembers();
  ASSERT_FALSE(members.empty());
  EXPECT_EQ(members.front(), "onednn");
  EXPECT_NE(std::find(members.begin(), members.end(), "onednn#2"), members.end());
  EXPECT_NE(std::find(members.begin(), members.end(), "onednn#winograd"), members.end());
  std::set<std::string> listed;
  for (const auto& [name, what] : ListSuts(SutConfig{})) listed.insert(name);
  for (const std::string& m : members) EXPECT_TRUE(listed.count(m)) << m;
  Result<std::unique_ptr<Sut>> bogus = MakeSut("onednn#fastest");
  ASSERT_FALSE(bogus.ok());
  EXPECT_NE(bogus.status().message().find("no variant 'fastest'"), std::string::npos)
      << bogus.status().message();
  EXPECT_FALSE(MakeSut("onednn#all").ok());  // a --sut shorthand, never a case's SUT
}

// Winograd (2-D, 3×3, stride 1) on shapes it accepts, in every direction and fill: correct results
// are flagged inexact and stay within c_inexact·u·√K·max(A over the plane). The largest bound use
// seen with c_inexact = 1, printed, is what c_inexact was chosen from.
TEST(OneDnnAdapter, WinogradIsFlaggedInexactAndStaysWithinThePlaneBoundOnEveryFill) {
  SKIP_WITHOUT_ADAPTER();
  std::vector<std::unique_ptr<Sut>> wino = Members({"onednn#winograd"});
  ASSERT_EQ(wino.size(), 1u);
  std::map<std::string, double> worst_use;  // fill → max bound use
  std::map<std::string, int64_t> elements;
  int ran = 0;
  for (const char* descriptor : {"2d_mb2_ic16_oc16_i8_k3_p1", "2d_ic32_oc16_i13x9_k3_pb1x0_pe0x2",
                                 "2d_mb3_ic16_oc32_i6_k3_b", "t2d_ic16_oc16_i7_k3_p1_oihw",
                                 "2d_ic64_oc16_i10x12_k3_p1_iohw"})
    for (Direction d : AllDirections())
      for (Fill fill : {Fill::kExact, Fill::kUniform, Fill::kPositive, Fill::kWide})
        for (uint64_t seed = 1; seed <= 3; ++seed) {
          const CaseOutcome out =
              CheckCase(ConvCase{Parse(descriptor), d, wino[0]->name(), fill, seed}, *wino[0]);
          if (out.verdict == Verdict::kSkipped) continue;
          ++ran;
          SCOPED_TRACE(std::string(descriptor) + " " + DirectionName(d) + " " + FillName(fill));
          EXPECT_TRUE(Passed(out.verdict)) << out.reason;
          EXPECT_TRUE(out.notes.inexact) << out.notes.implementation;
          worst_use[FillName(fill)] =
              std::max(worst_use[FillName(fill)], out.judgement.max_bound_use);
          elements[FillName(fill)] += out.judgement.elements;
        }
  if (ran == 0) GTEST_SKIP() << "oneDNN has no Winograd implementation on this CPU";
  for (const auto& [fill, use] : worst_use)
    std::printf("[winograd] %s: %lld elements, max bound use %.3f (c_inexact = %.1f)\n",
                fill.c_str(), static_cast<long long>(elements[fill]), use, ErrorBound{}.c_inexact);
}

}  // namespace
}  // namespace convparity
