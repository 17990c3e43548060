#include "core/descriptor.h"

#include <gtest/gtest.h>
#include <rapidcheck.h>
#include <rapidcheck/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "core/prng.h"
#include "generators/problem_gen.h"

namespace convparity {
namespace {

constexpr int64_t kMaxDescriptorValue = int64_t{1} << 40;

// Any problem a descriptor can spell, valid or not: round-trip must not depend on Validate().
// Values lean small (where defaults and symmetric padding are likely) but reach the 2^40 limit.
rc::Gen<int64_t> GenValue() {
  return rc::gen::weightedOneOf<int64_t>({{6, rc::gen::inRange<int64_t>(0, 5)},
                                          {2, rc::gen::inRange<int64_t>(0, kMaxDescriptorValue)},
                                          {1, rc::gen::just(kMaxDescriptorValue)}});
}

Dims DrawDims() { return {*GenValue(), *GenValue(), *GenValue()}; }

rc::Gen<ConvProblem> GenSpellableProblem() {
  return rc::gen::exec([] {
    ConvProblem p;
    p.rank = *rc::gen::inRange(1, kMaxSpatialRank + 1);
    p.transposed = *rc::gen::arbitrary<bool>();
    p.batch = *GenValue();
    p.in_channels = *GenValue();
    p.out_channels = *GenValue();
    p.groups = *GenValue();
    p.input = DrawDims();
    p.kernel = DrawDims();
    p.stride = DrawDims();
    p.pad_begin = DrawDims();
    p.pad_end = *rc::gen::arbitrary<bool>() ? p.pad_begin : DrawDims();
    p.dilation = DrawDims();
    p.output_padding = DrawDims();
    p.data_layout = *rc::gen::element(DataLayout::kChannelsFirst, DataLayout::kChannelsLast);
    p.weight_layout = *rc::gen::element(WeightLayout::kOI, WeightLayout::kIO,
                                        WeightLayout::kSpatialIO, WeightLayout::kOSpatialI);
    p.bias = *rc::gen::arbitrary<bool>();
    return p;
  });
}

std::vector<std::string> Split(const std::string& s, char sep) {
  std::vector<std::string> out(1);
  for (char c : s) {
    if (c == sep) {
      out.emplace_back();
    } else {
      out.back().push_back(c);
    }
  }
  return out;
}

std::string Join(const std::vector<std::string>& parts) {
  std::string s;
  for (size_t i = 0; i < parts.size(); ++i) s += (i ? "_" : "") + parts[i];
  return s;
}

// Whatever the input, the answer is a value or a one-line message that quotes the descriptor.
void ExpectWellFormedOutcome(const std::string& text) {
  Result<ParsedDescriptor> r = ParseDescriptor(text);
  if (r.ok()) {
    // Whatever parsed prints canonically and reparses to the same thing.
    std::string printed = ProblemDescriptor(r->problem);
    Result<ParsedDescriptor> again = ParseDescriptor(printed);
    RC_ASSERT(again.ok());
    RC_ASSERT(again->problem == r->problem);
    return;
  }
  const std::string& m = r.status().message();
  RC_ASSERT(r.status().code() == StatusCode::kInvalid);
  RC_ASSERT(m.rfind("descriptor \"", 0) == 0u);
  RC_ASSERT(m.find('\n') == std::string::npos);
  RC_ASSERT(m.size() < 500u);
}

RC_GTEST_PROP(DescriptorProperty, ParseOfShortFormGivesTheSameProblem, ()) {
  ConvProblem p = *GenSpellableProblem();
  std::string text = ProblemDescriptor(p);
  RC_LOG() << text << "\n";
  Result<ParsedDescriptor> r = ParseDescriptor(text);
  RC_ASSERT(r.ok());
  RC_ASSERT(r->problem == p);
  RC_ASSERT(!r->direction.has_value());
}

RC_GTEST_PROP(DescriptorProperty, ParseOfLongFormGivesTheSameProblem, ()) {
  ConvProblem p = *GenSpellableProblem();
  std::string text = ProblemDescriptor(p, /*long_form=*/true);
  RC_LOG() << text << "\n";
  Result<ParsedDescriptor> r = ParseDescriptor(text);
  RC_ASSERT(r.ok());
  RC_ASSERT(r->problem == p);
  // The long form spells every field, so it always has the same number of tokens.
  size_t tokens = Split(text, '_').size();
  bool asymmetric = text.find("_pb") != std::string::npos;
  RC_ASSERT(tokens == 14u + (asymmetric ? 1 : 0) + (p.bias ? 1 : 0));
}

RC_GTEST_PROP(DescriptorProperty, GeneratedValidProblemsRoundTripAndStayValid, ()) {
  ConvProblem p = *GenProblem();
  for (bool long_form : {false, true}) {
    Result<ParsedDescriptor> r = ParseDescriptor(ProblemDescriptor(p, long_form));
    RC_ASSERT(r.ok());
    RC_ASSERT(r->problem == p);
    RC_ASSERT(Validate(r->problem).ok() == Validate(p).ok());
  }
}

RC_GTEST_PROP(DescriptorProperty, CaseDescriptorCarriesTheDirection, ()) {
  ConvProblem p = *GenSpellableProblem();
  Direction d = *rc::gen::elementOf(AllDirections());
  Result<ParsedDescriptor> r = ParseDescriptor(CaseDescriptor(p, d));
  RC_ASSERT(r.ok());
  RC_ASSERT(r->problem == p);
  RC_ASSERT(r->direction == std::optional<Direction>(d));
}

RC_GTEST_PROP(DescriptorProperty, TokenOrderAfterTheFirstDoesNotMatter, ()) {
  ConvProblem p = *GenSpellableProblem();
  bool long_form = *rc::gen::arbitrary<bool>();
  std::string canonical = ProblemDescriptor(p, long_form);
  std::vector<std::string> tokens = Split(canonical, '_');
  std::vector<std::string> rest(tokens.begin() + 1, tokens.end());
  std::vector<std::string> shuffled = {tokens[0]};
  while (!rest.empty()) {  // Fisher–Yates, drawing each pick so RapidCheck can shrink it
    size_t pick = *rc::gen::inRange<size_t>(0, rest.size());
    shuffled.push_back(rest[pick]);
    rest.erase(rest.begin() + pick);
  }
  std::string text = Join(shuffled);
  RC_LOG() << text << "\n";
  Result<ParsedDescriptor> r = ParseDescriptor(text);
  RC_ASSERT(r.ok());
  RC_ASSERT(r->problem == p);
  RC_ASSERT(ProblemDescriptor(r->problem, long_form) == canonical);
}

RC_GTEST_PROP(DescriptorProperty, SingleValueBroadcastsToAllDimensions, ()) {
  int rank = *rc::gen::inRange(1, kMaxSpatialRank + 1);
  int64_t v = *GenValue();
  std::string key =
      *rc::gen::elementOf(std::vector<std::string>{"i", "k", "s", "p", "pb", "pe", "d", "op"});
  std::string head = std::to_string(rank) + "d_ic4_oc4";
  std::string one = head + "_i9_k3_" + key + std::to_string(v);
  std::string all = key + std::to_string(v);
  for (int i = 1; i < rank; ++i) all += "x" + std::to_string(v);
  std::string many = head + "_i9_k3_" + all;
  if (key == "i" || key == "k") {  // they are required, so replace rather than add
    one = head + (key == "i" ? "_k3_" : "_i9_") + key + std::to_string(v);
    many = head + (key == "i" ? "_k3_" : "_i9_") + all;
  }
  Result<ParsedDescriptor> a = ParseDescriptor(one), b = ParseDescriptor(many);
  RC_ASSERT(a.ok());
  RC_ASSERT(b.ok());
  RC_ASSERT(a->problem == b->problem);
}

RC_GTEST_PROP(DescriptorProperty, ShortFormOmitsExactlyTheDefaults, ()) {
  ConvProblem p = *GenSpellableProblem();
  std::string text = "_" + ProblemDescriptor(p) + "_";
  auto has = [&](const std::string& token_start) {
    return text.find("_" + token_start) != std::string::npos;
  };
  RC_ASSERT(has("g") == (p.groups != 1));
  RC_ASSERT(has("mb") == (p.batch != 1));
  RC_ASSERT(has("b_") == p.bias);
  RC_ASSERT(!has("f32"));
  RC_ASSERT(has(WeightLayoutName(p.weight_layout, p.rank) + "_") ==
            (p.weight_layout != p.natural_weight_layout()));
  RC_ASSERT(has(DataLayoutName(p.data_layout, p.rank) + "_") ==
            (p.data_layout != DataLayout::kChannelsFirst));
}

RC_GTEST_PROP(DescriptorProperty, ArbitraryTextNeverCrashes, (const std::string& text)) {
  ExpectWellFormedOutcome(text);
}

RC_GTEST_PROP(DescriptorProperty, MutatedDescriptorsNeverCrash, ()) {
  ConvProblem p = *GenSpellableProblem();
  std::string text = *rc::gen::arbitrary<bool>() ? ProblemDescriptor(p, true)
                                                 : CaseDescriptor(p, Direction::kBackwardData);
  const std::string alphabet = "0123456789x_:tdbfgmiockspea-+ \x01\xff";
  int edits = *rc::gen::inRange(1, 6);
  for (int e = 0; e < edits && !text.empty(); ++e) {
    size_t at = *rc::gen::inRange<size_t>(0, text.size());
    char c = *rc::gen::elementOf(alphabet);
    switch (*rc::gen::inRange(0, 4)) {
      case 0:
        text.insert(at, 1, c);
        break;
      case 1:
        text.erase(at, 1);
        break;
      case 2:
        text[at] = c;
        break;
      default:
        text.insert(at, text.substr(at, *rc::gen::inRange<size_t>(1, 12)));
        break;
    }
  }
  RC_LOG() << text << "\n";
  ExpectWellFormedOutcome(text);
}

// Volume the properties above cannot give in their 100 runs: a deterministic burst of mutations.
TEST(DescriptorFuzz, ManyMutationsOfValidDescriptorsGiveValuesOrMessages) {
  const std::vector<std::string> seeds = {
      "bwd_weight:t2d_g2_mb1_ic4_oc6_i9x9_k3x3_s2x2_p1x1_d2x2_op1x0_nhwc_iohw_f32",
      "fwd:3d_ic1099511627776_oc1_i5x6x7_k1_pb0x1x2_pe2x1x0_ndhwc_dhwio_b",
      "1d_ic3_oc3_i100_k9_s4_d3_nwc_owi"};
  const std::string alphabet = "0123456789x_:tdbfgmiockspeanhwr-";
  Prng rng(20240601);
  for (int n = 0; n < 50000; ++n) {
    std::string text = seeds[rng.Below(seeds.size())];
    for (int e = 0, edits = 1 + static_cast<int>(rng.Below(4)); e < edits; ++e) {
      size_t at = rng.Below(text.size() + 1);
      char c = alphabet[rng.Below(alphabet.size())];
      if (rng.Below(2) && at < text.size()) {
        text[at] = c;
      } else {
        text.insert(at, 1, c);
      }
    }
    Result<ParsedDescriptor> r = ParseDescriptor(text);
    if (r.ok()) {
      Result<ParsedDescriptor> again = ParseDescriptor(ProblemDescriptor(r->problem));
      ASSERT_TRUE(again.ok()) << text;
      ASSERT_EQ(again->problem, r->problem) << text;
    } else {
      ASSERT_EQ(r.status().message().find('\n'), std::string::npos) << text;
    }
  }
}

TEST(DescriptorFuzz, EveryPrefixOfALongDescriptorIsHandled) {
  const std::string full =
      "bwd_data:t3d_g3_mb2_ic6_oc9_i4x5x6_k3x2x1_s2x1x3_pb1x0x2_pe0x1x0_d1x2x1_"
      "op1x0x2_ndhwc_odhwi_b_f32";
  for (size_t n = 0; n <= full.size(); ++n) {
    Result<ParsedDescriptor> r = ParseDescriptor(full.substr(0, n));
    if (!r.ok()) continue;
    Result<ParsedDescriptor> again = ParseDescriptor(ProblemDescriptor(r->problem));
    ASSERT_TRUE(again.ok()) << full.substr(0, n);
    EXPECT_EQ(again->problem, r->problem);
  }
  EXPECT_TRUE(ParseDescriptor(full).ok());
}

TEST(DescriptorExample, InterfacesExampleParsesToItsFields) {
  Result<ParsedDescriptor> r =
      ParseDescriptor("bwd_weight:t2d_g2_mb1_ic4_oc6_i9x9_k3x3_s2x2_p1x1_d2x2_op1x0_nhwc_iohw");
  ASSERT_TRUE(r.ok()) << r.status().message();
  const ConvProblem& p = r->problem;
  EXPECT_EQ(r->direction, std::optional<Direction>(Direction::kBackwardWeight));
  EXPECT_EQ(p.rank, 2);
  EXPECT_TRUE(p.transposed);
  EXPECT_EQ(p.groups, 2);
  EXPECT_EQ(p.batch, 1);
  EXPECT_EQ(p.in_channels, 4);
  EXPECT_EQ(p.out_channels, 6);
  EXPECT_EQ(p.input, (Dims{9, 9, 1}));
  EXPECT_EQ(p.kernel, (Dims{3, 3, 1}));
  EXPECT_EQ(p.stride, (Dims{2, 2, 1}));
  EXPECT_EQ(p.pad_begin, (Dims{1, 1, 0}));
  EXPECT_EQ(p.pad_end, (Dims{1, 1, 0}));
  EXPECT_EQ(p.dilation, (Dims{2, 2, 1}));
  EXPECT_EQ(p.output_padding, (Dims{1, 0, 0}));
  EXPECT_EQ(p.data_layout, DataLayout::kChannelsLast);
  EXPECT_EQ(p.weight_layout, WeightLayout::kIO);
  EXPECT_FALSE(p.bias);
  EXPECT_EQ(p.dtype, DType::kFloat32);
  // mb1 and iohw (natural for a transposed problem) are defaults: the short form drops them.
  EXPECT_EQ(ProblemDescriptor(p), "t2d_g2_ic4_oc6_i9x9_k3x3_s2x2_p1x1_d2x2_op1x0_nhwc");
  EXPECT_EQ(CaseDescriptor(p, Direction::kBackwardWeight),
            "bwd_weight:t2d_g2_ic4_oc6_i9x9_k3x3_s2x2_p1x1_d2x2_op1x0_nhwc");
  EXPECT_EQ(ProblemDescriptor(p, true),
            "t2d_g2_mb1_ic4_oc6_i9x9_k3x3_s2x2_p1x1_d2x2_op1x0_nhwc_iohw_f32");
}

TEST(DescriptorExample, NonNaturalWeightLayoutIsKept) {
  Result<ParsedDescriptor> r =
      ParseDescriptor("bwd_weight:t2d_g2_ic4_oc6_i9x9_k3x3_s2x2_p1x1_d2x2_op1x0_nhwc_hwio");
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(r->problem.weight_layout, WeightLayout::kSpatialIO);
  EXPECT_EQ(ProblemDescriptor(r->problem),
            "t2d_g2_ic4_oc6_i9x9_k3x3_s2x2_p1x1_d2x2_op1x0_nhwc_hwio");
}

TEST(DescriptorExample, MinimalDescriptorTakesEveryDefault) {
  Result<ParsedDescriptor> r = ParseDescriptor("2d_ic4_oc8_i9_k3");
  ASSERT_TRUE(r.ok()) << r.status().message();
  ConvProblem expected;
  expected.in_channels = 4;
  expected.out_channels = 8;
  expected.input = {9, 9, 1};
  expected.kernel = {3, 3, 1};
  EXPECT_EQ(r->problem, expected);
  EXPECT_FALSE(r->direction.has_value());
  EXPECT_EQ(ProblemDescriptor(r->problem), "2d_ic4_oc8_i9x9_k3x3");
  EXPECT_EQ(ProblemDescriptor(r->problem, true),
            "2d_g1_mb1_ic4_oc8_i9x9_k3x3_s1x1_p0x0_d1x1_op0x0_nchw_oihw_f32");
}

TEST(DescriptorExample, TransposedDefaultsToTheIoWeightLayout) {
  Result<ParsedDescriptor> r = ParseDescriptor("t1d_ic2_oc2_i5_k3");
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->problem.weight_layout, WeightLayout::kIO);
  // An ordinary problem with the IO layout must say so.
  r = ParseDescriptor("1d_ic2_oc2_i5_k3_iow");
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(ProblemDescriptor(r->problem), "1d_ic2_oc2_i5_k3_iow");
}

TEST(DescriptorExample, AsymmetricPaddingPrintsBeginAndEnd) {
  Result<ParsedDescriptor> r = ParseDescriptor("3d_ic1_oc1_i8_k3_pb1x0x2_pe0x1x2_b");
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(r->problem.pad_begin, (Dims{1, 0, 2}));
  EXPECT_EQ(r->problem.pad_end, (Dims{0, 1, 2}));
  EXPECT_TRUE(r->problem.bias);
  EXPECT_EQ(ProblemDescriptor(r->problem), "3d_ic1_oc1_i8x8x8_k3x3x3_pb1x0x2_pe0x1x2_b");
  // pb alone leaves the end unpadded; pb = pe prints as p.
  r = ParseDescriptor("2d_ic1_oc1_i8_k3_pb2");
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->problem.pad_end, (Dims{0, 0, 0}));
  r = ParseDescriptor("2d_ic1_oc1_i8_k3_pb2x1_pe2x1");
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(ProblemDescriptor(r->problem), "2d_ic1_oc1_i8x8_k3x3_p2x1");
}

TEST(DescriptorExample, LimitValueIsAcceptedAndLeadingZerosAreRead) {
  Result<ParsedDescriptor> r = ParseDescriptor("1d_ic1099511627776_oc007_i9_k3");
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(r->problem.in_channels, kMaxDescriptorValue);
  EXPECT_EQ(r->problem.out_channels, 7);
}

TEST(DescriptorExample, ParsingDoesNotValidate) {
  // Zero sizes, groups that do not divide, op on an ordinary conv: syntax is fine, Validate
  // decides.
  Result<ParsedDescriptor> r = ParseDescriptor("2d_g3_mb0_ic4_oc4_i0_k0_s0_op5");
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_FALSE(Validate(r->problem).ok());
}

TEST(DescriptorExample, PrintingAnUnspellableProblemDoesNotCrash) {
  ConvProblem p;
  p.rank = 7;
  p.pad_begin = {-1, -2, -3};
  std::string text = ProblemDescriptor(p, true);
  EXPECT_EQ(text.rfind("7d_", 0), 0u);
  EXPECT_FALSE(ParseDescriptor(text).ok());
  p.rank = 0;
  EXPECT_FALSE(ParseDescriptor(ProblemDescriptor(p)).ok());
}

struct ErrorCase {
  const char* name;
  std::string text;
  std::vector<std::string> message_parts;
  friend void PrintTo(const ErrorCase& c, std::ostream* os) { *os << c.name; }
};

class DescriptorErrorTest : public testing::TestWithParam<ErrorCase> {};

TEST_P(DescriptorErrorTest, IsInvalidWithAOneLineMessageNamingTheProblem) {
  const ErrorCase& c = GetParam();
  Result<ParsedDescriptor> r = ParseDescriptor(c.text);
  ASSERT_FALSE(r.ok()) << c.text;
  EXPECT_EQ(r.status().code(), StatusCode::kInvalid);
  const std::string& m = r.status().message();
  EXPECT_EQ(m.find('\n'), std::string::npos) << m;
  for (const std::string& part : c.message_parts)
    EXPECT_NE(m.find(part), std::string::npos) << "message: " << m << "\nexpected: " << part;
}

const char kOk[] = "2d_ic4_oc4_i9_k3";  // a valid base the cases append to

INSTANTIATE_TEST_SUITE_P(
    All, DescriptorErrorTest,
    testing::Values(
        ErrorCase{"Empty", "", {"empty descriptor", "e.g. 2d_"}},
        ErrorCase{"WrongSizeCount",
                  "2d_ic4_oc4_i9_k3_s2x2x2",
                  {"descriptor \"2d_ic4_oc4_i9_k3_s2x2x2\": s has 3 values, expected 2 for a "
                   "2-D problem"}},
        ErrorCase{"TwoKernelValuesIn1d",
                  "1d_ic4_oc4_i9_k3x3",
                  {"k has 2 values, expected 1 for a 1-D problem"}},
        ErrorCase{"UnknownDirection",
                  "forward:2d_ic4_oc4_i9_k3",
                  {"unknown direction \"forward\"", "fwd, bwd_data or bwd_weight"}},
        ErrorCase{"NothingAfterDirection", "fwd:", {"nothing after the direction"}},
        ErrorCase{"TwoColons", "fwd:fwd:2d_ic4", {"unexpected character \":\" at offset 7"}},
        ErrorCase{"RankFour", "4d_ic4_oc4_i9_k3", {"first token \"4d\"", "rank 1, 2 or 3"}},
        ErrorCase{"NoRank", "ic4_oc4_i9_k3", {"first token \"ic4\""}},
        ErrorCase{"Uppercase", "2D_ic4_oc4_i9_k3", {"unexpected character \"D\" at offset 1"}},
        ErrorCase{"Space", "2d_ic4_oc4_i9_k3 ", {"unexpected character \" \" at offset 16"}},
        ErrorCase{"Sign", "2d_ic4_oc4_i9_k3_p-1", {"unexpected character \"-\""}},
        ErrorCase{"ControlByte", "2d_ic4\x01", {"\"\\x01\"", "2d_ic4\\x01"}},
        ErrorCase{"DoubledUnderscore", "2d__ic4_oc4_i9_k3", {"empty token at offset 3"}},
        ErrorCase{"TrailingUnderscore", std::string(kOk) + "_", {"empty token at offset 17"}},
        ErrorCase{"DataLayoutOfOtherRank",
                  std::string(kOk) + "_ncw",
                  {"layout \"ncw\" is for 1-D problems, but this is a 2-D problem"}},
        ErrorCase{"WeightLayoutOfOtherRank",
                  std::string(kOk) + "_dhwio",
                  {"layout \"dhwio\" is for 3-D problems, but this is a 2-D problem"}},
        ErrorCase{"TwoDataLayouts",
                  std::string(kOk) + "_nchw_nhwc",
                  {"two data layouts, \"nchw\" and \"nhwc\""}},
        ErrorCase{"TwoWeightLayouts",
                  std::string(kOk) + "_oihw_ohwi",
                  {"two weight layouts, \"oihw\" and \"ohwi\""}},
        ErrorCase{"DuplicateBias", std::string(kOk) + "_b_b", {"duplicate token \"b\""}},
        ErrorCase{"DuplicateDtype", std::string(kOk) + "_f32_f32", {"duplicate data type"}},
        ErrorCase{"UnknownDtype", std::string(kOk) + "_f16", {"unknown token \"f16\""}},
        ErrorCase{
            "DuplicateKey", "2d_ic4_oc4_ic8_i9_k3", {"duplicate key ic (\"ic4\" and \"ic8\")"}},
        ErrorCase{"DuplicateDimsKey", std::string(kOk) + "_s1_s2", {"duplicate key s"}},
        ErrorCase{"KeyWithoutValue", "2d_ic_oc4_i9_k3", {"ic (input channels) needs a value"}},
        ErrorCase{"SizeForScalarKey", "2d_ic4x4_oc4_i9_k3", {"ic value \"4x4\" is not a number"}},
        ErrorCase{"LettersInSize", "2d_ic4_oc4_i9_k3a", {"k value \"3a\" is not a size"}},
        ErrorCase{
            "EmptyLeadingNumber", "2d_ic4_oc4_i9_kx3", {"k value \"x3\" has an empty number"}},
        ErrorCase{"EmptyTrailingNumber", "2d_ic4_oc4_i9_k3x", {"has an empty number"}},
        ErrorCase{"OverLimit",
                  "2d_ic1099511627777_oc4_i9_k3",
                  {"ic value \"1099511627777\" is over the limit of 2^40"}},
        ErrorCase{"FarOverLimit",
                  "2d_ic4_oc4_i9_k3_d" + std::string(300, '9'),
                  {"over the limit of 2^40", "...\""}},
        ErrorCase{"MissingIc", "2d_oc4_i9_k3", {"missing ic (input channels)"}},
        ErrorCase{"MissingOc", "2d_ic4_i9_k3", {"missing oc (output channels)"}},
        ErrorCase{"MissingInput", "2d_ic4_oc4_k3", {"missing i (input size)"}},
        ErrorCase{"MissingKernel", "2d_ic4_oc4_i9", {"missing k (kernel size)"}},
        ErrorCase{
            "SymmetricAndBeginPadding", std::string(kOk) + "_p1_pb1", {"both \"p1\" and \"pb1\""}},
        ErrorCase{
            "SymmetricAndEndPadding", std::string(kOk) + "_pe2_p1", {"both \"p1\" and \"pe2\""}},
        ErrorCase{"UnknownKey", std::string(kOk) + "_foo3", {"unknown token \"foo3\""}},
        ErrorCase{"BareNumber", std::string(kOk) + "_9", {"unknown token \"9\""}},
        ErrorCase{"TooLong",
                  "2d_ic4_oc4_i9_k3_" + std::string(5000, 'b'),
                  {"5017 characters long, over the limit of 4096"}}),
    [](const testing::TestParamInfo<ErrorCase>& p) { return std::string(p.param.name); });

}  // namespace
}  // namespace convparity
