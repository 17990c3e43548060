#include "core/conv_case.h"

#include <gtest/gtest.h>
#include <rapidcheck.h>
#include <rapidcheck/gtest.h>

#include <limits>
#include <set>
#include <string>
#include <vector>

#include "core/descriptor.h"
#include "core/prng.h"
#include "generators/problem_gen.h"

namespace convparity {
namespace {

using nlohmann::json;

// Any int64, leaning on small values, the descriptor's 2^40 limit and negatives: a case file must
// carry every problem exactly, even those no descriptor can spell and Validate() rejects.
rc::Gen<int64_t> GenAnyInt() {
  return rc::gen::weightedOneOf<int64_t>(
      {{6, rc::gen::inRange<int64_t>(0, 6)},
       {1, rc::gen::inRange<int64_t>(-3, 0)},
       {1, rc::gen::element<int64_t>(int64_t{1} << 40, (int64_t{1} << 40) + 1,
                                     std::numeric_limits<int64_t>::max(),
                                     std::numeric_limits<int64_t>::min())},
       {1, rc::gen::arbitrary<int64_t>()}});
}

Dims DrawDims() { return {*GenAnyInt(), *GenAnyInt(), *GenAnyInt()}; }

rc::Gen<ConvProblem> GenAnyProblem() {
  return rc::gen::exec([] {
    ConvProblem p;
    p.rank = *rc::gen::inRange(1, kMaxSpatialRank + 1);
    p.transposed = *rc::gen::arbitrary<bool>();
    p.batch = *GenAnyInt();
    p.in_channels = *GenAnyInt();
    p.out_channels = *GenAnyInt();
    p.groups = *GenAnyInt();
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

// Printable ASCII keeps dump() valid UTF-8 so cases also round-trip through text.
rc::Gen<std::string> GenText() {
  return rc::gen::container<std::string>(rc::gen::inRange<char>(' ', '~' + 1));
}

// Every verdict a case can expect: all but invalid.
rc::Gen<Verdict> GenExpectedVerdict() {
  std::vector<Verdict> verdicts;
  for (int i = 0; i <= static_cast<int>(kLastVerdict); ++i)
    if (static_cast<Verdict>(i) != Verdict::kInvalid) verdicts.push_back(static_cast<Verdict>(i));
  return rc::gen::elementOf(verdicts);
}

rc::Gen<ConvCase> GenAnyCase() {
  return rc::gen::exec([] {
    ConvCase c;
    c.problem = *GenAnyProblem();
    c.direction = *rc::gen::elementOf(AllDirections());
    c.sut =
        *rc::gen::elementOf(std::vector<std::string>{"direct", "im2col", "plugin:/x/libfoo.so"});
    c.fill = *rc::gen::element(Fill::kExact, Fill::kUniform, Fill::kPositive, Fill::kWide);
    c.seed = *rc::gen::arbitrary<uint64_t>();
    c.expect = *GenExpectedVerdict();
    c.note = *GenText();
    c.graph = *rc::gen::element(&ConvForm(), &ChainForm());
    if (*rc::gen::arbitrary<bool>())
      c.transform = TransformGraph{{"fold_bn", *GenText()}, "%0 = conv(%x, %w) " + *GenText()};
    c.algorithm = *rc::gen::element(Algorithm::kDirect, Algorithm::kWinograd, Algorithm::kAuto);
    if (*rc::gen::arbitrary<bool>()) {
      c.origin.format = "benchdnn";
      c.origin.file = "x" + *GenText();
      c.origin.line = *rc::gen::inRange<int64_t>(1, int64_t{1} << 40);
      c.origin.name = *GenText();
      c.origin.repro = *GenText();
      c.origin.via =
          *rc::gen::container<std::vector<std::string>>(*rc::gen::inRange<size_t>(0, 4), GenText());
    }
    return c;
  });
}

ConvCase ExampleCase() {
  ConvCase c;
  c.problem = ParseDescriptor("t2d_g2_ic4_oc6_i9x9_k3x3_s2x2_p1x1_d2x2_op1x0_nhwc")->problem;
  c.direction = Direction::kBackwardWeight;
  c.sut = "direct";
  c.fill = Fill::kUniform;
  c.seed = 123;
  return c;
}

RC_GTEST_PROP(CaseProperty, FromJsonOfToJsonGivesTheSameCase, ()) {
  ConvCase c = *GenAnyCase();
  json j = CaseToJson(c);
  Result<ConvCase> back = CaseFromJson(j);
  RC_LOG() << j.dump() << "\n";
  RC_ASSERT(back.ok());
  RC_ASSERT(*back == c);
}

// Without its descriptor (the worker protocol's form) a case still reads back the same.
RC_GTEST_PROP(CaseProperty, FromJsonOfToJsonWithoutTheDescriptorGivesTheSameCase, ()) {
  ConvCase c = *GenAnyCase();
  json j = CaseToJson(c, /*with_descriptor=*/false);
  RC_ASSERT(!j.contains("descriptor"));
  Result<ConvCase> back = CaseFromJson(j);
  RC_LOG() << j.dump() << "\n";
  RC_ASSERT(back.ok());
  RC_ASSERT(*back == c);
}

RC_GTEST_PROP(CaseProperty, ParseOfDumpedTextGivesTheSameCase, ()) {
  ConvCase c = *GenAnyCase();
  std::string text = CaseToJson(c).dump(*rc::gen::element(-1, 2));
  Result<ConvCase> back = ParseCaseText(text);
  RC_LOG() << text << "\n" << back.status().message() << "\n";
  RC_ASSERT(back.ok());
  RC_ASSERT(*back == c);
}

RC_GTEST_PROP(CaseProperty, GeneratedValidProblemsAlwaysCarryADescriptor, ()) {
  ConvCase c = *GenAnyCase();
  c.problem = *GenProblem();
  json j = CaseToJson(c);
  RC_ASSERT(j.contains("descriptor"));
  Result<ConvCase> back = ParseCaseText(j.dump());
  RC_ASSERT(back.ok());
  RC_ASSERT(*back == c);
}

RC_GTEST_PROP(CaseProperty, DescriptorIsWrittenExactlyWhenItSpellsTheProblem, ()) {
  ConvCase c = *GenAnyCase();
  json j = CaseToJson(c);
  Result<ParsedDescriptor> parsed = ParseDescriptor(CaseDescriptor(c.problem, c.direction));
  bool spellable = parsed.ok() && parsed->problem == c.problem;
  RC_ASSERT(j.contains("descriptor") == spellable);
  if (spellable) RC_ASSERT(j["descriptor"] == CaseDescriptor(c.problem, c.direction));
}

// Folds every value into [0, 2^40], the range a descriptor can spell.
ConvProblem Spellable(ConvProblem p) {
  auto fold = [](int64_t& v) {
    uint64_t magnitude = v < 0 ? 0 - static_cast<uint64_t>(v) : static_cast<uint64_t>(v);
    v = static_cast<int64_t>(magnitude % ((uint64_t{1} << 40) + 1));
  };
  for (int64_t* v : {&p.batch, &p.in_channels, &p.out_channels, &p.groups}) fold(*v);
  for (Dims* d :
       {&p.input, &p.kernel, &p.stride, &p.pad_begin, &p.pad_end, &p.dilation, &p.output_padding})
    for (int64_t& v : *d) fold(v);
  return p;
}

RC_GTEST_PROP(CaseProperty, CaseWithOnlyTheDescriptorReadsBackTheSame, ()) {
  ConvCase c = *GenAnyCase();
  c.problem = Spellable(c.problem);
  json j = CaseToJson(c);
  RC_ASSERT(j.contains("descriptor"));
  j.erase("problem");
  j.erase("direction");  // the descriptor's prefix carries it
  Result<ConvCase> back = CaseFromJson(j);
  RC_ASSERT(back.ok());
  RC_ASSERT(*back == c);
}

RC_GTEST_PROP(CaseProperty, MutatedCaseTextNeverCrashes, ()) {
  std::string text = CaseToJson(*GenAnyCase()).dump();
  const std::string alphabet = "{}[]\":,0123456789-.eE tfnx\\\x01\xc3";
  for (int e = 0, edits = *rc::gen::inRange(1, 6); e < edits && !text.empty(); ++e) {
    size_t at = *rc::gen::inRange<size_t>(0, text.size());
    char c = *rc::gen::elementOf(alphabet);
    switch (*rc::gen::inRange(0, 3)) {
      case 0:
        text.insert(at, 1, c);
        break;
      case 1:
        text.erase(at, 1);
        break;
      default:
        text[at] = c;
        break;
    }
  }
  Result<ConvCase> r = ParseCaseText(text);
  RC_LOG() << text << "\n" << r.status().message() << "\n";
  if (!r.ok()) {
    RC_ASSERT(r.status().code() == StatusCode::kInvalid);
    RC_ASSERT(r.status().message().find('\n') == std::string::npos);
  }
}

// Each field replaced by a value of every other JSON type: an error naming the field, no exception,
// except for the replacements that make another valid case, listed here.
TEST(CaseFuzz, EveryFieldWithEveryWrongTypeIsAnErrorNamingIt) {
  // Only a SUT name: any other field of the example changed is refused, a problem field because the
  // descriptor then disagrees (and the seed 3, made here as a signed integer, which a parser only
  // makes of negative numbers).
  const std::set<std::pair<std::string, std::string>> accepted = {
      {"sut", "\"x\""},  // a SUT name (MakeSut decides whether it exists)
  };
  std::set<std::pair<std::string, std::string>> accepted_seen;
  const std::vector<json> values = {
      nullptr,        true,          -1, 3, 2.5, 1e300, "x", json::array(), json::array({1, 2}),
      json::object(), json{{"a", 1}}};
  const json base = CaseToJson(ExampleCase());
  std::vector<std::vector<std::string>> paths;
  for (const auto& item : base.items()) paths.push_back({item.key()});
  for (const auto& item : base["problem"].items()) paths.push_back({"problem", item.key()});
  for (const auto& path : paths) {
    for (const json& v : values) {
      json j = base;
      json& target = path.size() == 1 ? j[path[0]] : j[path[0]][path[1]];
      if (target == v) continue;
      target = v;
      Result<ConvCase> r = CaseFromJson(j);
      const std::string where = path.size() == 1 ? path[0] : path[0] + "." + path[1];
      if (r.ok()) {
        accepted_seen.insert({where, v.dump()});
        EXPECT_TRUE(accepted.count({where, v.dump()})) << where << " = " << v.dump() << " accepted";
        continue;
      }
      EXPECT_EQ(r.status().code(), StatusCode::kInvalid);
      EXPECT_NE(r.status().message().find(path.back()), std::string::npos) << r.status().message();
    }
  }
  EXPECT_EQ(accepted_seen, accepted);
}

TEST(CaseFuzz, EveryPrefixOfACaseTextIsMalformed) {
  std::string text = CaseToJson(ExampleCase()).dump(1);
  for (size_t n = 0; n < text.size(); ++n) {
    Result<ConvCase> r = ParseCaseText(text.substr(0, n));
    ASSERT_FALSE(r.ok()) << n;
    ASSERT_EQ(r.status().message().rfind("malformed case JSON: parse error at line ", 0), 0u)
        << r.status().message();
    ASSERT_EQ(r.status().message().find('\n'), std::string::npos);
  }
  EXPECT_TRUE(ParseCaseText(text).ok());
}

TEST(CaseFuzz, RandomBytesNeverCrash) {
  Prng rng(7);
  for (int n = 0; n < 20000; ++n) {
    std::string text(rng.Below(40), ' ');
    for (char& c : text) c = "{}[]\":,0123456789-.etrufalsn \x80"[rng.Below(30)];
    Result<ConvCase> r = ParseCaseText(text);
    ASSERT_FALSE(r.ok());
  }
}

TEST(FillNames, EachNameParsesBackAndOthersAreRejected) {
  for (Fill f : {Fill::kExact, Fill::kUniform, Fill::kPositive, Fill::kWide}) {
    Result<Fill> r = ParseFill(FillName(f));
    ASSERT_TRUE(r.ok());
    EXPECT_EQ(*r, f);
  }
  EXPECT_STREQ(FillName(Fill::kWide), "wide");
  Result<Fill> bad = ParseFill("random");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().message(),
            "unknown fill \"random\", expected exact, uniform, positive or wide");
}

TEST(CaseEquality, EveryFieldCounts) {
  const ConvCase a = ExampleCase();
  std::vector<ConvCase> others(12, a);
  others[0].problem.bias = true;
  others[1].direction = Direction::kForward;
  others[2].sut = "im2col";
  others[3].fill = Fill::kWide;
  others[4].seed = 124;
  others[5].expect = Verdict::kFailed;
  others[6].note = "pytorch#1";
  others[7].transform = TransformGraph{};
  others[8].graph = &ChainForm();
  others[9].algorithm = Algorithm::kWinograd;
  others[10].origin = {"benchdnn", "shapes_basic", 13, "", "", {}};
  others[11].origin = {"benchdnn", "shapes_basic", 13, "", "", {"test_conv_ci:19"}};
  EXPECT_TRUE(a == ExampleCase());
  for (const ConvCase& o : others) EXPECT_FALSE(a == o);
}

TEST(CaseJson, ExampleIsWrittenAsDocumented) {
  json expected = json::parse(R"({
    "schema": "convparity.case/1",
    "descriptor": "bwd_weight:t2d_g2_ic4_oc6_i9x9_k3x3_s2x2_p1x1_d2x2_op1x0_nhwc",
    "problem": {"rank": 2, "transposed": true, "batch": 1, "in_channels": 4, "out_channels": 6,
                "groups": 2, "input": [9, 9], "kernel": [3, 3], "stride": [2, 2],
                "pad_begin": [1, 1], "pad_end": [1, 1], "dilation": [2, 2],
                "output_padding": [1, 0], "data_layout": "nhwc", "weight_layout": "iohw",
                "bias": false, "dtype": "f32"},
    "direction": "bwd_weight", "sut": "direct", "fill": "uniform", "seed": 123,
    "expect": "passed"})");
  EXPECT_EQ(CaseToJson(ExampleCase()), expected) << CaseToJson(ExampleCase()).dump(2);
}

TEST(CaseJson, NoteAndTransformAreWrittenOnlyWhenSet) {
  ConvCase c = ExampleCase();
  EXPECT_FALSE(CaseToJson(c).contains("note"));
  EXPECT_FALSE(CaseToJson(c).contains("transform"));
  c.note = "pytorch/pytorch#12345";
  c.transform = TransformGraph{{"fuse"}, "%0 = conv(%x, %w)"};
  json j = CaseToJson(c);
  EXPECT_EQ(j["note"], "pytorch/pytorch#12345");
  EXPECT_EQ(j["transform"], (json{{"pipeline", {"fuse"}}, {"graph", "%0 = conv(%x, %w)"}}));
}

TEST(CaseJson, TheGraphFormIsWrittenOnlyForChainsAndReadStrictly) {
  ConvCase c = ExampleCase();
  EXPECT_FALSE(CaseToJson(c).contains("graph"));
  c.graph = &ChainForm();
  json j = CaseToJson(c);
  EXPECT_EQ(j["graph"], "chain");
  j["graph"] = "conv";
  EXPECT_EQ(CaseFromJson(j)->graph, &ConvForm());
  j["graph"] = "residual";
  Result<ConvCase> bad = CaseFromJson(j);
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().message(), "field 'graph' is \"residual\", expected conv or chain");
}

// `check` compares verdicts exactly (docs/INTERFACES.md): every verdict but invalid is an
// expectation of its own, and the old names, parity and discrepancy, read as passed and failed.
TEST(CaseJson, ExpectNamesAVerdictAndReadsTheOldNamesAsAliases) {
  json j = CaseToJson(ExampleCase());
  for (int i = 0; i <= static_cast<int>(kLastVerdict); ++i) {
    const Verdict v = static_cast<Verdict>(i);
    j["expect"] = VerdictName(v);
    Result<ConvCase> r = CaseFromJson(j);
    if (v == Verdict::kInvalid) {
      EXPECT_FALSE(r.ok());
      continue;
    }
    ASSERT_TRUE(r.ok()) << VerdictName(v) << ": " << r.status().message();
    EXPECT_EQ(r->expect, v);
    EXPECT_EQ(CaseToJson(*r)["expect"], VerdictName(v));
  }
  j["expect"] = "parity";
  EXPECT_EQ(CaseFromJson(j)->expect, Verdict::kPassed);
  j["expect"] = "discrepancy";
  Result<ConvCase> old = CaseFromJson(j);
  ASSERT_TRUE(old.ok()) << old.status().message();
  EXPECT_EQ(old->expect, Verdict::kFailed);
  EXPECT_EQ(CaseToJson(*old)["expect"], "failed");
}

TEST(CaseJson, AlgorithmAndOriginAreWrittenOnlyWhenSetAndReadStrictly) {
  ConvCase c = ExampleCase();
  EXPECT_FALSE(CaseToJson(c).contains("algorithm"));
  EXPECT_FALSE(CaseToJson(c).contains("origin"));
  c.algorithm = Algorithm::kWinograd;
  c.origin = {
      "benchdnn",          "inputs/conv/shapes_basic",        13,
      "conv_basic_2d:1st", "--conv --alg=wino ic3ih5oc16kh3", {"inputs/conv/test_conv_ci:19"}};
  json j = CaseToJson(c);
  EXPECT_EQ(j["algorithm"], "winograd");
  EXPECT_EQ(j["origin"], json::parse(R"({"format": "benchdnn", "file": "inputs/conv/shapes_basic",
      "line": 13, "name": "conv_basic_2d:1st", "repro": "--conv --alg=wino ic3ih5oc16kh3",
      "via": ["inputs/conv/test_conv_ci:19"]})"));
  EXPECT_TRUE(*CaseFromJson(j) == c);
  j["algorithm"] = "direct";  // the default, accepted when written out
  EXPECT_EQ(CaseFromJson(j)->algorithm, Algorithm::kDirect);
  struct Bad {
    json patch;
    const char* says;
  } bad[] = {
      {{{"algorithm", "fft"}},
       "field 'algorithm': unknown algorithm \"fft\", expected direct, winograd or auto"},
      {{{"algorithm", 1}}, "field 'algorithm' must be a string"},
      {{{"origin", "shapes"}}, "field 'origin' must be an object, got string"},
      {{{"origin", {{"lines", 1}}}}, "unknown field \"origin.lines\""},
      {{{"origin", {{"line", 0}}}}, "field 'origin.line' is 0, expected a line number"},
      {{{"origin", {{"line", -3}}}}, "field 'origin.line' is -3"},
      {{{"origin", {{"line", "13"}}}}, "field 'origin.line' must be an integer"},
      {{{"origin", {{"line", 1.5}}}}, "field 'origin.line' must be an integer"},
      {{{"origin", {{"line", 18446744073709551615ull}}}}, "expected a line number"},
      {{{"origin", {{"format", ""}}}}, "field 'origin.format' is empty"},
      {{{"origin", {{"file", 7}}}}, "field 'origin.file' must be a string"},
      {{{"origin", {{"via", "x"}}}}, "field 'origin.via' must be an array of strings"},
      {{{"origin", {{"via", {1}}}}}, "field 'origin.via' must be an array of strings"},
      {{{"origin", {{"via", json(std::vector<std::string>(65, "f:1"))}}}}, "more than 64"},
  };
  for (const Bad& b : bad) {
    json broken = j;
    broken.merge_patch(b.patch);
    Result<ConvCase> r = CaseFromJson(broken);
    ASSERT_FALSE(r.ok()) << b.patch.dump();
    EXPECT_NE(r.status().message().find(b.says), std::string::npos)
        << b.patch.dump() << ": " << r.status().message();
  }
  for (const char* required : {"format", "file", "line"}) {
    json broken = j;
    broken["origin"].erase(required);
    EXPECT_EQ(CaseFromJson(broken).status().message(),
              std::string("field 'origin.") + required + "' is missing");
  }
}

TEST(CaseJson, MinimalCaseTakesTheDefaults) {
  Result<ConvCase> r = ParseCaseText(
      R"({"schema": "convparity.case/1", "descriptor": "bwd_data:1d_ic2_oc3_i7_k3"})");
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(r->direction, Direction::kBackwardData);
  EXPECT_EQ(r->sut, "direct");
  EXPECT_EQ(r->fill, Fill::kExact);
  EXPECT_EQ(r->seed, 0u);
  EXPECT_EQ(r->expect, Verdict::kPassed);
  EXPECT_EQ(r->problem.kernel[0], 3);
  EXPECT_FALSE(r->transform.has_value());
  // The expanded problem alone needs only what a descriptor needs.
  r = ParseCaseText(R"({"schema": "convparity.case/1", "problem": {"rank": 3, "in_channels": 2,
                        "out_channels": 3, "input": [4, 5, 6], "kernel": [1, 2, 3],
                        "transposed": true}})");
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(r->direction, Direction::kForward);
  EXPECT_EQ(ProblemDescriptor(r->problem), "t3d_ic2_oc3_i4x5x6_k1x2x3");
}

TEST(CaseJson, ReadingDoesNotValidate) {
  json j = CaseToJson(ExampleCase());
  j.erase("descriptor");
  j["problem"]["batch"] = -3;
  j["problem"]["groups"] = 5;
  Result<ConvCase> r = CaseFromJson(j);
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(r->problem.batch, -3);
  EXPECT_FALSE(Validate(r->problem).ok());
}

TEST(CaseJson, SeedKeepsAll64Bits) {
  ConvCase c = ExampleCase();
  c.seed = std::numeric_limits<uint64_t>::max();
  std::string text = CaseToJson(c).dump();
  EXPECT_NE(text.find("\"seed\":18446744073709551615"), std::string::npos);
  EXPECT_EQ(ParseCaseText(text)->seed, c.seed);
  // Also as a decimal string, for tools whose JSON numbers are doubles.
  json j = CaseToJson(c);
  j["seed"] = "18446744073709551615";
  EXPECT_EQ(CaseFromJson(j)->seed, c.seed);
  j["seed"] = "9007199254740993";  // 2^53 + 1: a double would round it
  EXPECT_EQ(CaseFromJson(j)->seed, 9007199254740993u);
}

struct CaseErrorCase {
  const char* name;
  std::string text;  // a whole case file, or a patch of the example case (below)
  std::vector<std::string> message_parts;
  friend void PrintTo(const CaseErrorCase& c, std::ostream* os) { *os << c.name; }
};

class CaseErrorTest : public testing::TestWithParam<CaseErrorCase> {};

// A text starting with '+' is a JSON merge patch (RFC 7386) applied to the example case.
TEST_P(CaseErrorTest, IsInvalidWithAOneLineMessageNamingTheField) {
  const CaseErrorCase& c = GetParam();
  std::string text = c.text;
  if (!text.empty() && text[0] == '+') {
    json j = CaseToJson(ExampleCase());
    j.merge_patch(json::parse(text.substr(1)));
    text = j.dump();
  }
  Result<ConvCase> r = ParseCaseText(text);
  ASSERT_FALSE(r.ok()) << text;
  EXPECT_EQ(r.status().code(), StatusCode::kInvalid);
  const std::string& m = r.status().message();
  EXPECT_EQ(m.find('\n'), std::string::npos) << m;
  EXPECT_LT(m.size(), 600u) << m;
  for (const std::string& part : c.message_parts)
    EXPECT_NE(m.find(part), std::string::npos) << "message: " << m << "\nexpected: " << part;
}

INSTANTIATE_TEST_SUITE_P(
    All, CaseErrorTest,
    testing::Values(
        CaseErrorCase{"Empty", "", {"malformed case JSON: parse error at line 1, column 1"}},
        CaseErrorCase{"Truncated",
                      "{\"schema\": \"convparity.case/1\",\n \"seed\": 1",
                      {"malformed case JSON", "line 2, column 11", "unexpected end of input"}},
        CaseErrorCase{"UnterminatedLongString",
                      "{\"note\": \"" + std::string(100000, 'a'),
                      {"malformed case JSON", "last read: '\"aaa", "aaa..."}},
        CaseErrorCase{"TrailingGarbage", "{} {}", {"line 1, column 4", "expected end of input"}},
        CaseErrorCase{"Comment", "// x\n{}", {"malformed case JSON"}},
        CaseErrorCase{"NotAnObject", "[1, 2]", {"a case must be a JSON object, got array"}},
        CaseErrorCase{"DuplicateField",
                      R"({"schema": "convparity.case/1", "seed": 1, "seed": 2})",
                      {"duplicate field \"seed\""}},
        CaseErrorCase{"DuplicateNestedField",
                      R"({"schema": "convparity.case/1", "problem": {"rank": 1, "rank": 2}})",
                      {"duplicate field \"rank\""}},
        CaseErrorCase{"TooDeep",
                      std::string(100, '[') + std::string(100, ']'),
                      {"nests deeper than 64 levels"}},
        CaseErrorCase{
            "TooLarge", "\"" + std::string(5 << 20, 'a') + "\"", {"over the limit of 4194304"}},
        CaseErrorCase{"NoSchema",
                      R"({"descriptor": "2d_ic1_oc1_i3_k3"})",
                      {"field 'schema' is missing", "convparity.case/1"}},
        CaseErrorCase{"SchemaVersion",
                      R"(+{"schema": "convparity.case/2"})",
                      {"schema \"convparity.case/2\" is a version this build cannot read"}},
        CaseErrorCase{"OtherSchema",
                      R"(+{"schema": "convparity.report/1"})",
                      {"schema \"convparity.report/1\" is not a case file"}},
        CaseErrorCase{"SchemaType",
                      R"(+{"schema": 1})",
                      {"field 'schema' must be a string, got the integer 1"}},
        CaseErrorCase{"UnknownField",
                      R"(+{"seeds": 1})",
                      {"unknown field \"seeds\"; expected one of schema"}},
        CaseErrorCase{"UnknownProblemField",
                      R"(+{"problem": {"padding": [1, 1]}})",
                      {"unknown field \"problem.padding\""}},
        CaseErrorCase{"NeitherDescriptorNorProblem",
                      R"({"schema": "convparity.case/1"})",
                      {"needs field 'descriptor' or 'problem'"}},
        CaseErrorCase{"Disagree",
                      R"(+{"problem": {"kernel": [5, 5]}})",
                      {"fields 'descriptor' and 'problem' disagree on kernel: the descriptor "
                       "has (3, 3), the problem has (5, 5)"}},
        CaseErrorCase{"DisagreeOnRank",
                      R"(+{"descriptor": "1d_ic4_oc6_i9_k3"})",
                      {"disagree on rank: the descriptor has 1, the problem has 2"}},
        CaseErrorCase{"BadDescriptor",
                      R"(+{"descriptor": "2d_ic4_oc6_i9_k3_q1"})",
                      {"field 'descriptor': descriptor \"2d_ic4_oc6_i9_k3_q1\": unknown token"}},
        CaseErrorCase{"DescriptorType",
                      R"(+{"descriptor": ["2d"]})",
                      {"field 'descriptor' must be a string, got array"}},
        CaseErrorCase{"DirectionDisagrees",
                      R"(+{"direction": "fwd"})",
                      {"field 'direction' is \"fwd\" but the descriptor says \"bwd_weight\""}},
        CaseErrorCase{"UnknownDirection",
                      R"(+{"direction": "sideways"})",
                      {"field 'direction' is \"sideways\", expected fwd, bwd_data or bwd_weight"}},
        CaseErrorCase{
            "UnknownFill", R"(+{"fill": "random"})", {"field 'fill': unknown fill \"random\""}},
        CaseErrorCase{"UnknownExpect",
                      R"(+{"expect": "maybe"})",
                      {"field 'expect' is \"maybe\", expected a verdict: passed, failed, "
                       "shape_mismatch, unwritten, mistrusted, skipped, crashed, hung, "
                       "broken_promise (or parity, discrepancy)"}},
        CaseErrorCase{"ExpectInvalid",
                      R"(+{"expect": "invalid"})",
                      {"field 'expect' is \"invalid\", expected a verdict: passed, failed"}},
        CaseErrorCase{"EmptySut", R"(+{"sut": ""})", {"field 'sut' is empty"}},
        CaseErrorCase{"NoteType", R"(+{"note": 7})", {"field 'note' must be a string"}},
        CaseErrorCase{"TransformType",
                      R"(+{"transform": [1]})",
                      {"field 'transform' must be an object, got array"}},
        CaseErrorCase{"TransformUnknownField",
                      R"(+{"transform": {"passes": [], "pipeline": [], "graph": ""}})",
                      {"unknown field \"transform.passes\"; expected one of pipeline, graph"}},
        CaseErrorCase{"TransformMissingGraph",
                      R"(+{"transform": {"pipeline": ["legalize"]}})",
                      {"field 'transform.graph' is missing"}},
        CaseErrorCase{"TransformPipelineType",
                      R"(+{"transform": {"pipeline": "legalize", "graph": ""}})",
                      {"field 'transform.pipeline' must be an array of strings, got the string "
                       "\"legalize\""}},
        CaseErrorCase{"TransformPassType",
                      R"(+{"transform": {"pipeline": ["legalize", 3], "graph": ""}})",
                      {"field 'transform.pipeline[1]' must be a string, got the integer 3"}},
        CaseErrorCase{"NegativeSeed",
                      R"(+{"seed": -1})",
                      {"field 'seed' must be an integer in [0, 2^64 - 1]", "got the integer -1"}},
        CaseErrorCase{"FractionalSeed", R"(+{"seed": 1.5})", {"got the number 1.5"}},
        CaseErrorCase{"SeedOver64Bits",
                      R"(+{"seed": 18446744073709551616})",
                      {"field 'seed' must be an integer", "got the number 1.8446744073709552e+19"}},
        CaseErrorCase{
            "SeedStringOver64Bits",
            R"(+{"seed": "18446744073709551616"})",
            {"field 'seed' must be an integer", "got the string \"18446744073709551616\""}},
        CaseErrorCase{"SeedStringNotDigits", R"(+{"seed": "12a"})", {"field 'seed'", "\"12a\""}},
        CaseErrorCase{"SeedStringEmpty", R"(+{"seed": ""})", {"field 'seed'", "string \"\""}},
        CaseErrorCase{"MissingKernel",
                      R"({"schema": "convparity.case/1", "problem": {"rank": 1, "in_channels": 1,
                          "out_channels": 1, "input": [3]}})",
                      {"field 'problem.kernel' is missing"}},
        CaseErrorCase{"RankFour",
                      R"(+{"descriptor": null, "problem": {"rank": 4}})",
                      {"field 'problem.rank' is 4, expected 1, 2 or 3"}},
        CaseErrorCase{"RankZero",
                      R"(+{"descriptor": null, "problem": {"rank": 0}})",
                      {"field 'problem.rank' is 0"}},
        CaseErrorCase{"RankFractional",
                      R"(+{"descriptor": null, "problem": {"rank": 2.0}})",
                      {"field 'problem.rank' must be an integer, got the number 2.0"}},
        CaseErrorCase{"TooManyValues",
                      R"(+{"descriptor": null, "problem": {"stride": [1, 1, 1]}})",
                      {"field 'problem.stride' has 3 values, expected 2 (the rank)"}},
        CaseErrorCase{"DimsNotArray",
                      R"(+{"descriptor": null, "problem": {"kernel": 3}})",
                      {"field 'problem.kernel' must be an array of integers, got the integer 3"}},
        CaseErrorCase{"FractionalDim",
                      R"(+{"descriptor": null, "problem": {"kernel": [3, 3.5]}})",
                      {"field 'problem.kernel[1]' must be an integer, got the number 3.5"}},
        CaseErrorCase{"OverInt64",
                      R"(+{"problem": {"batch": 9223372036854775808}})",
                      {"field 'problem.batch' = 9223372036854775808 is outside the int64 range"}},
        CaseErrorCase{"FarOverInt64",
                      R"(+{"problem": {"in_channels": 1e30}})",
                      {"field 'problem.in_channels' must be an integer, got the number 1e+30"}},
        CaseErrorCase{"BoolType",
                      R"(+{"problem": {"bias": 1}})",
                      {"field 'problem.bias' must be true or false, got the integer 1"}},
        CaseErrorCase{"DataLayoutOfOtherRank",
                      R"(+{"problem": {"data_layout": "ncw"}})",
                      {"field 'problem.data_layout' is \"ncw\", expected nchw or nhwc for a 2-D"}},
        CaseErrorCase{"UnknownWeightLayout",
                      R"(+{"problem": {"weight_layout": "hwoi"}})",
                      {"field 'problem.weight_layout' is \"hwoi\", expected one of oihw, iohw, "
                       "hwio, ohwi"}},
        CaseErrorCase{"Dtype",
                      R"(+{"problem": {"dtype": "f16"}})",
                      {"field 'problem.dtype' is \"f16\", expected f32"}},
        CaseErrorCase{"ProblemType",
                      R"(+{"problem": "2d"})",
                      {"field 'problem' must be an object, got the string \"2d\""}}),
    [](const testing::TestParamInfo<CaseErrorCase>& p) { return std::string(p.param.name); });

TEST(CaseJson, DeepTransformBuiltInMemoryIsRejected) {
  json deep = json::object();
  for (int i = 0; i < 100; ++i) deep = json{{"x", deep}};
  json j = CaseToJson(ExampleCase());
  j["transform"] = deep;
  Result<ConvCase> r = CaseFromJson(j);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("field 'transform' nests deeper than 64"), std::string::npos);
}

}  // namespace
}  // namespace convparity
