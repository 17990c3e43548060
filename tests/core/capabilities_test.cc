// Capabilities: each predicate of a region holds for the cases it names and no others, a
// declaration is the union of its regions, and the JSON form reads strictly and writes back.
#include "core/capabilities.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "core/descriptor.h"

namespace convparity {
namespace {

using nlohmann::json;

ConvProblem Problem(const std::string& descriptor) {
  Result<ParsedDescriptor> d = ParseDescriptor(descriptor);
  EXPECT_TRUE(d.ok()) << d.status().message();
  EXPECT_TRUE(Validate(d->problem).ok()) << descriptor << ": " << Validate(d->problem).message();
  return d->problem;
}

CapabilityRegion Region(const json& j) {
  Result<Capabilities> caps = CapabilitiesFromJson(json::array({j}));
  EXPECT_TRUE(caps.ok()) << caps.status().message();
  return caps.ok() ? caps->regions.at(0) : CapabilityRegion{};
}

// "" when the region holds the forward conv case, else why not.
std::string Why(const json& region, const std::string& descriptor,
                Direction d = Direction::kForward, const std::string& form = "conv") {
  return WhyOutside(Region(region), form, d, Problem(descriptor)).value_or("");
}

TEST(Capabilities, GroupKindsPartitionTheProblems) {
  EXPECT_EQ(GroupKindOf(Problem("2d_ic4_oc8_i5_k3")), GroupKind::kPlain);
  EXPECT_EQ(GroupKindOf(Problem("2d_g2_ic4_oc8_i5_k3")), GroupKind::kGrouped);
  EXPECT_EQ(GroupKindOf(Problem("2d_g4_ic4_oc4_i5_k3")), GroupKind::kDepthwise);
  EXPECT_EQ(GroupKindOf(Problem("2d_g4_ic4_oc8_i5_k3")), GroupKind::kDepthwiseMultiplier);
  EXPECT_EQ(GroupKindOf(Problem("2d_ic1_oc1_i5_k3")), GroupKind::kPlain);
}

TEST(Capabilities, EachSetHoldsForItsValuesOnly) {
  EXPECT_EQ(Why({{"ranks", {1, 2}}}, "2d_ic1_oc1_i5_k3"), "");
  EXPECT_EQ(Why({{"ranks", {1, 2}}}, "3d_ic1_oc1_i5_k3"), "rank 3 is not among 1, 2");
  EXPECT_EQ(Why({{"directions", {"fwd"}}}, "2d_ic1_oc1_i5_k3", Direction::kBackwardData),
            "direction bwd_data is not among fwd");
  EXPECT_EQ(Why({{"kinds", {"ordinary"}}}, "t2d_ic1_oc1_i5_k3"),
            "kind transposed is not among ordinary");
  EXPECT_EQ(Why({{"groups", {"plain", "depthwise"}}}, "2d_g4_ic4_oc4_i5_k3"), "");
  EXPECT_EQ(Why({{"groups", {"plain", "depthwise"}}}, "2d_g2_ic4_oc4_i5_k3"),
            "group kind grouped is not among plain, depthwise");
  EXPECT_EQ(Why({{"forms", {"conv"}}}, "2d_ic1_oc1_i5_k3", Direction::kForward, "chain"),
            "form chain is not among conv");
  EXPECT_EQ(Why({{"data_layouts", {"channels_first"}}}, "2d_ic1_oc1_i5_k3_nhwc"),
            "data layout channels_last is not among channels_first");
  EXPECT_EQ(Why({{"weight_layouts", {"oi", "io"}}}, "2d_ic1_oc1_i5_k3_hwio"),
            "weight layout spatial_io is not among oi, io");
}

TEST(Capabilities, EachRuleHoldsForWhatItAllows) {
  EXPECT_EQ(Why({{"dilation", false}}, "2d_ic1_oc1_i9_k3_d1x2"), "dilation (1, 2) is not none");
  EXPECT_EQ(Why({{"stride_with_dilation", false}}, "2d_ic1_oc1_i9_k3_d2"), "");
  EXPECT_EQ(Why({{"stride_with_dilation", false}}, "2d_ic1_oc1_i9_k3_s2x1_d1x2"),
            "stride (2, 1) with dilation (1, 2) is both at once");
  EXPECT_EQ(Why({{"unit_channels_per_group", true}}, "2d_g4_ic4_oc4_i5_k3"), "");
  EXPECT_EQ(Why({{"unit_channels_per_group", true}}, "2d_g4_ic4_oc8_i5_k3"),
            "channels per group 1 in, 2 out, are not 1");
  EXPECT_EQ(Why({{"kernel", 3}}, "2d_ic1_oc1_i5_k3x1"), "kernel (3, 1) is not all 3");
  EXPECT_EQ(Why({{"stride", 2}}, "2d_ic1_oc1_i5_k3_s2"), "");
}

TEST(Capabilities, OutputPaddingRulesAreThoseOfTheStacks) {
  // op 2 with stride 1 is legal through dilation 3 (op < max(stride, dilation)).
  const std::string op2 = "t1d_ic1_oc1_i5_k2_d3_op2";
  const std::string op2_end2 = "t1d_ic1_oc1_i5_k2_d3_pb0_pe2_op2";
  const std::string op2_end1 = "t1d_ic1_oc1_i5_k2_d3_pb0_pe1_op2";
  EXPECT_EQ(Why({{"output_padding", "any"}}, op2), "");
  EXPECT_EQ(Why({{"output_padding", "below_stride"}}, op2),
            "output_padding 2 on axis 0 is not below_stride (stride 1, pad_end 0)");
  EXPECT_EQ(Why({{"output_padding", "below_stride_or_end_pad"}}, op2_end2), "");
  EXPECT_NE(Why({{"output_padding", "below_stride_or_end_pad"}}, op2_end1), "");
  // oneDNN's: op < stride + pad_end, which stride 2 and pad_end 1 meet where XNNPACK's does not.
  const std::string op2_s2_end1 = "t1d_ic1_oc1_i5_k2_s2_d3_pb0_pe1_op2";
  EXPECT_EQ(Why({{"output_padding", "below_stride_plus_end_pad"}}, op2_s2_end1), "");
  EXPECT_NE(Why({{"output_padding", "below_stride_or_end_pad"}}, op2_s2_end1), "");
  EXPECT_NE(Why({{"output_padding", "below_stride_plus_end_pad"}}, op2_end1), "");
  EXPECT_EQ(Why({{"output_padding", "below_stride"}}, "1d_ic1_oc1_i5_k2"), "");  // ordinary
}

TEST(Capabilities, TensorFlowPaddingIsValidOrSame) {
  const json same = {{"padding", "tf_valid_or_same"}};
  EXPECT_EQ(Why(same, "3d_ic1_oc1_i5_k3_s2"), "");  // VALID
  // SAME, input 5, stride 2: output 3, needing 2·2 + 3 - 5 = 2 more, one on each side.
  EXPECT_EQ(Why(same, "3d_ic1_oc1_i5_k3_s2_p1"), "");
  EXPECT_EQ(Why(same, "3d_ic1_oc1_i5_k3_s2_pb0_pe2"),
            "padding (0, 0, 0) to (2, 2, 2) is neither TensorFlow's VALID nor SAME");
  // An odd excess puts the larger half at the end: input 6, kernel 4, stride 1 needs 3.
  EXPECT_EQ(Why(same, "1d_ic1_oc1_i6_k4_pb1_pe2"), "");
  EXPECT_NE(Why(same, "1d_ic1_oc1_i6_k4_pb2_pe1"), "");
  // Transposed: the rule over its output, 7 here, which needs one on each side (over its input,
  // 4, it would need one at the end only).
  EXPECT_EQ(Why(same, "t1d_ic1_oc1_i4_k3_s2_p1"), "");
  EXPECT_NE(Why(same, "t1d_ic1_oc1_i4_k3_s2_pb1_pe0"), "");
  EXPECT_EQ(Why({{"padding", "none"}}, "2d_ic1_oc1_i5_k3_p1"),
            "padding (1, 1) to (1, 1) is not none");
}

TEST(Capabilities, ADeclarationIsTheUnionOfItsRegions) {
  Result<Capabilities> caps = CapabilitiesFromJson(json::parse(R"([
      {"kinds": ["ordinary"], "groups": ["plain", "depthwise", "depthwise_multiplier"]},
      {"kinds": ["transposed"], "groups": ["plain"], "dilation": false}])"));
  ASSERT_TRUE(caps.ok()) << caps.status().message();
  auto why = [&](const std::string& descriptor) {
    return WhyOutside(*caps, "conv", Direction::kForward, Problem(descriptor)).value_or("");
  };
  EXPECT_EQ(why("2d_g4_ic4_oc8_i5_k3"), "");
  EXPECT_EQ(why("t2d_ic4_oc8_i5_k3"), "");
  EXPECT_EQ(why("t2d_g2_ic4_oc8_i5_k3"),
            "outside its declaration: kind transposed is not among ordinary; group kind grouped "
            "is not among plain");
  const ConvProblem any = Problem("t3d_g2_ic4_oc8_i5_k3");
  EXPECT_EQ(WhyOutside(Capabilities{}, "chain", Direction::kBackwardWeight, any), std::nullopt)
      << "nothing declared holds every case";
  Result<Capabilities> none = CapabilitiesFromJson(json::array());
  ASSERT_TRUE(none.ok());
  EXPECT_EQ(WhyOutside(*none, "conv", Direction::kForward, any),
            "outside its declaration, which holds no case");
}

// Every predicate that fails is named, in order; one that fails alone is just outside.
TEST(Capabilities, ACaseOffARegionByOnePredicateIsJustOutside) {
  const json region = {{"ranks", {1, 2}}, {"kinds", {"ordinary"}}, {"dilation", false}};
  const ConvProblem rank3 = Problem("3d_ic1_oc1_i3x3x3_k2x2x2");
  const ConvProblem rank3_transposed_dilated = Problem("t3d_ic1_oc1_i3x3x3_k2x2x2_d2x1x1");
  EXPECT_TRUE(
      ReasonsOutside(Region(region), "conv", Direction::kForward, Problem("2d_ic1_oc1_i3x3_k2x2"))
          .empty());
  EXPECT_EQ(
      ReasonsOutside(Region(region), "conv", Direction::kForward, rank3_transposed_dilated),
      (std::vector<std::string>{"rank 3 is not among 1, 2", "kind transposed is not among ordinary",
                                "dilation (2, 1, 1) is not none"}));
  Result<Capabilities> caps = CapabilitiesFromJson(json::array({region}));
  ASSERT_TRUE(caps.ok());
  EXPECT_TRUE(JustOutside(*caps, "conv", Direction::kForward, rank3));
  EXPECT_FALSE(JustOutside(*caps, "conv", Direction::kForward, rank3_transposed_dilated));
  EXPECT_FALSE(JustOutside(*caps, "conv", Direction::kForward, Problem("1d_ic1_oc1_i3_k2")));
  // Off one region by one predicate is enough, however far from the others.
  caps = CapabilitiesFromJson(json::array({region, {{"kinds", {"transposed"}}, {"ranks", {1}}}}));
  ASSERT_TRUE(caps.ok());
  EXPECT_TRUE(JustOutside(*caps, "conv", Direction::kForward, Problem("t2d_ic1_oc1_i3x3_k2x2")));
  EXPECT_FALSE(JustOutside(Capabilities{}, "conv", Direction::kForward, rank3));
}

TEST(Capabilities, WithinNarrowsEveryRegionToItsFormsAndDirections) {
  EXPECT_EQ(DirectionMask({}), 0u);
  EXPECT_EQ(DirectionMask({Direction::kForward, Direction::kBackwardWeight}),
            1u << static_cast<int>(Direction::kForward) |
                1u << static_cast<int>(Direction::kBackwardWeight));
  Result<Capabilities> caps =
      CapabilitiesFromJson(json::parse(R"([{"ranks": [1]}, {"directions": ["bwd_data"]}])"));
  ASSERT_TRUE(caps.ok());
  const Capabilities within = Within(*caps, kConvFormBit, DirectionMask({Direction::kForward}));
  EXPECT_EQ(CapabilitiesToJson(within),
            json::parse(R"([{"forms": ["conv"], "directions": ["fwd"], "ranks": [1]},
                            {"forms": ["conv"], "directions": []}])"));
  EXPECT_TRUE(WhyOutside(within, "conv", Direction::kBackwardData, Problem("1d_ic1_oc1_i3_k2")));
  EXPECT_FALSE(WhyOutside(within, "conv", Direction::kForward, Problem("1d_ic1_oc1_i3_k2")));
}

TEST(Capabilities, TheUnionOfDeclarationsDeclaresNothingWhenOneDeclaresNothing) {
  Result<Capabilities> rank1 = CapabilitiesFromJson(json::parse(R"([{"ranks": [1]}])"));
  Result<Capabilities> rank2 = CapabilitiesFromJson(json::parse(R"([{"ranks": [2]}])"));
  Result<Capabilities> none = CapabilitiesFromJson(json::array());
  ASSERT_TRUE(rank1.ok() && rank2.ok() && none.ok());
  const Capabilities both = Union({*rank1, *none, *rank2});
  EXPECT_TRUE(both.declared);
  EXPECT_EQ(both.regions.size(), 2u);
  EXPECT_FALSE(WhyOutside(both, "conv", Direction::kForward, Problem("2d_ic1_oc1_i3x3_k2x2")));
  EXPECT_TRUE(WhyOutside(both, "conv", Direction::kForward, Problem("3d_ic1_oc1_i3x3x3_k2x2x2")));
  EXPECT_FALSE(Union({*rank1, Capabilities{}}).declared);
  EXPECT_FALSE(Union({}).declared);
  const Capabilities empty = Union({*none});
  EXPECT_TRUE(empty.declared);
  EXPECT_TRUE(WhyOutside(empty, "conv", Direction::kForward, Problem("1d_ic1_oc1_i3_k2")));
}

TEST(Capabilities, ARegionWithoutPredicatesHoldsEveryProblem) {
  EXPECT_TRUE(HoldsEveryProblem(Region(json::object())));
  EXPECT_TRUE(HoldsEveryProblem(Region({{"directions", {"fwd"}}})));
  EXPECT_TRUE(HoldsEveryProblem(Region({{"ranks", {1, 2, 3}}, {"dilation", true}})));
  for (const json& some : {json{{"ranks", {1, 2}}}, json{{"groups", {"plain"}}},
                           json{{"data_layouts", {"channels_first"}}}, json{{"dilation", false}},
                           json{{"output_padding", "below_stride"}}, json{{"kernel", 1}}})
    EXPECT_FALSE(HoldsEveryProblem(Region(some))) << some.dump();
}

TEST(Capabilities, JsonReadsStrictlyAndWritesBack) {
  const json text = json::parse(R"([
      {"directions": ["fwd"], "ranks": [1, 2], "kinds": ["ordinary"],
       "groups": ["plain", "depthwise", "depthwise_multiplier"], "stride_with_dilation": false},
      {"directions": ["bwd_data", "bwd_weight"], "ranks": [3], "groups": ["plain"],
       "dilation": false, "padding": "tf_valid_or_same"},
      {"forms": ["conv"], "output_padding": "below_stride", "kernel": 3, "stride": 1,
       "unit_channels_per_group": true, "data_layouts": ["channels_last"],
       "weight_layouts": ["spatial_io"]},
      {}])");
  Result<Capabilities> caps = CapabilitiesFromJson(text);
  ASSERT_TRUE(caps.ok()) << caps.status().message();
  EXPECT_EQ(CapabilitiesToJson(*caps), text);
  for (const auto& [bad, message] : std::vector<std::pair<std::string, std::string>>{
           {R"({"ranks": [4]})", "capabilities[0].ranks: 4 is not a rank (1, 2, 3)"},
           {R"({"ranks": [0]})", "capabilities[0].ranks: 0 is not a rank (1, 2, 3)"},
           {R"({"directions": ["forward"]})",
            "capabilities[0].directions: \"forward\" is not a direction (fwd, bwd_data, "
            "bwd_weight)"},
           {R"({"groups": "plain"})", "capabilities[0].groups: expected a non-empty array"},
           {R"({"ranks": []})", "capabilities[0].ranks: expected a non-empty array"},
           {R"({"ranks": ["2"]})", "capabilities[0].ranks: \"2\" is not a rank (1, 2, 3)"},
           {R"({"directions": ["fwd", "fwd"]})",
            "capabilities[0].directions: \"fwd\" is listed twice"},
           {R"({"a\nb": 1})", "capabilities[0]: unknown predicate \"a\\nb\"; expected one of "},
           {R"({"dilation": 1})", "capabilities[0].dilation: expected true or false"},
           {R"({"padding": "same"})",
            "capabilities[0].padding: expected one of any, none, tf_valid_or_same"},
           {R"({"kernel": 0})", "capabilities[0].kernel: expected an integer from 1 to 2^30"},
           {R"({"rank": [1]})", "capabilities[0]: unknown predicate \"rank\""},
           {R"(["fwd"])", "capabilities[0]: expected an object"},
       }) {
    Result<Capabilities> r = CapabilitiesFromJson(json::array({json::parse(bad)}));
    ASSERT_FALSE(r.ok()) << bad;
    EXPECT_EQ(r.status().code(), StatusCode::kInvalid);
    EXPECT_EQ(r.status().message().rfind(message, 0), 0u) << r.status().message();
    EXPECT_EQ(r.status().message().find('\n'), std::string::npos) << r.status().message();
  }
  EXPECT_FALSE(CapabilitiesFromJson(json::object()).ok()) << "not an array";
  Result<Capabilities> undeclared = CapabilitiesFromJson(nullptr);
  ASSERT_TRUE(undeclared.ok());
  EXPECT_FALSE(undeclared->declared);
  EXPECT_EQ(CapabilitiesToJson(*undeclared), nullptr);
}

}  // namespace
}  // namespace convparity
