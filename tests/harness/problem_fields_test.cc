// The fields of a problem are declared once (core/problem_fields.def): every format names the same
// fields, and each of them survives every format both ways.
#include "core/problem_fields.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <fstream>
#include <iterator>
#include <nlohmann/json.hpp>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "core/conv_case.h"
#include "core/descriptor.h"
#include "harness/exec/exec_protocol.h"
#include "harness/plugin/plugin_sut.h"

namespace convparity {
namespace {

using nlohmann::json;
using Names = std::set<std::string>;

std::string SourceText(const std::string& path) {
  std::ifstream in(std::string(CONVPARITY_SOURCE_DIR) + "/" + path);
  std::stringstream text;
  text << in.rdbuf();
  EXPECT_TRUE(in.good() || in.eof()) << path;
  return text.str();
}

Names KeysOf(const json& object) {
  Names names;
  for (const auto& [key, value] : object.items()) names.insert(key);
  return names;
}

Names IntegerFieldNames() {
  Names names;
  for (const IntegerField& f : kIntegerFields) names.insert(f.name);
  return names;
}

Names Plus(Names names, std::initializer_list<const char*> more) {
  names.insert(more.begin(), more.end());
  return names;
}

// An enum field (core/problem_fields.def) as its table spells it.
struct EnumField {
  std::string name;
  bool given;                                    // to SUTs, by the ABI and the protocol
  std::vector<std::vector<std::string>> names;   // at rank 1, 2, 3
  std::vector<std::pair<std::string, int>> abi;  // protocol name and ABI code, when given
};

template <typename E, size_t N>
EnumField Describe(const char* name, bool given, const EnumValue<E> (&values)[N]) {
  EnumField f{name, given, {}, {}};
  for (int r = 1; r <= kMaxSpatialRank; ++r) f.names.push_back(NamesAtRank(values, r));
  for (const EnumValue<E>& e : values) {
    if (!given) continue;
    // The plugin and the protocol print these.
    EXPECT_TRUE(e.protocol && e.abi_meaning && e.abi >= 0) << name << " " << e.name;
    if (e.protocol) f.abi.emplace_back(e.protocol, e.abi);
  }
  return f;
}

// Every switch's name in case files and the protocol, and in the plugin ABI.
std::vector<std::pair<std::string, std::string>> Switches() {
  std::vector<std::pair<std::string, std::string>> switches;
#define CONVPARITY_SWITCH(field, key, abi_name, part) switches.emplace_back(#field, #abi_name);
#include "core/problem_fields.def"
  return switches;
}

std::vector<EnumField> EnumFields() {
  std::vector<EnumField> fields;
#define CONVPARITY_ENUM(field, type, values, default_value, meaning, suts, part) \
  fields.push_back(Describe(#field, CONVPARITY_IF_given_##suts(true ||) false, values));
#include "core/problem_fields.def"
  return fields;
}

std::vector<std::string> Strings(const json& values) {
  return values.is_array() ? values.get<std::vector<std::string>>()
                           : std::vector<std::string>{values.get<std::string>()};
}

TEST(ProblemFields, TheCaseSchemaNamesEveryFieldAndRequiresTheRequiredOnes) {
  const json schema = json::parse(SourceText("reports/schema/case.schema.json"));
  const json& problem = schema["$defs"]["problem"];
  EXPECT_EQ(KeysOf(problem["properties"]),
            Names(std::begin(kProblemFieldNames), std::end(kProblemFieldNames)));
  Names required{"rank"};
  for (const IntegerField& f : kIntegerFields)
    if (f.required) required.insert(f.name);
  EXPECT_EQ(Names(problem["required"].begin(), problem["required"].end()), required);
}

TEST(ProblemFields, TheCaseSchemaSpellsEveryEnumValueAtEveryRank) {
  const json schema = json::parse(SourceText("reports/schema/case.schema.json"));
  const json& problem = schema["$defs"]["problem"];
  for (const EnumField& f : EnumFields()) {
    SCOPED_TRACE(f.name);
    std::vector<std::string> any_rank;
    for (const std::vector<std::string>& names : f.names)
      for (const std::string& n : names)
        if (std::find(any_rank.begin(), any_rank.end(), n) == any_rank.end()) any_rank.push_back(n);
    const json& property = problem.at("properties").at(f.name);
    EXPECT_EQ(Strings(property.contains("enum") ? property.at("enum") : property.at("const")),
              any_rank);
    if (f.names[0] == f.names[1]) continue;  // one spelling at every rank
    std::set<int> ranks;
    for (const json& at_rank : problem.at("allOf")) {
      const int rank = at_rank.at("if").at("properties").at("rank").at("const");
      ASSERT_TRUE(rank >= 1 && rank <= kMaxSpatialRank) << rank;
      ranks.insert(rank);
      EXPECT_EQ(Strings(at_rank.at("then").at("properties").at(f.name).at("enum")),
                f.names[rank - 1])
          << "rank " << rank;
    }
    EXPECT_EQ(ranks.size(), size_t{kMaxSpatialRank}) << "a rank without its own names";
  }
}

TEST(ProblemFields, TheProtocolSchemaAndItsRequestsNameEveryGivenField) {
  // The protocol's own spelling of the forms, and the output size as a convenience.
  Names expected = Plus(IntegerFieldNames(), {"rank", "transposed", "output"});
  for (const EnumField& f : EnumFields())
    if (f.given) expected.insert(f.name);
  for (const auto& [name, abi_name] : Switches()) expected.insert(name);
  const json schema = json::parse(SourceText("harness/exec/protocol.schema.json"));
  const json& problem = schema["$defs"]["run"]["properties"]["problem"];
  EXPECT_EQ(KeysOf(problem["properties"]), expected);
  EXPECT_EQ(Names(problem["required"].begin(), problem["required"].end()), expected);
  EXPECT_EQ(KeysOf(RunRequestJson(1, ConvProblem{}, Direction::kForward)["problem"]), expected);
  for (const EnumField& f : EnumFields()) {
    if (!f.given) continue;
    std::vector<std::string> names;
    for (const auto& [name, code] : f.abi) names.push_back(name);
    EXPECT_EQ(Strings(problem.at("properties").at(f.name).at("enum")), names) << f.name;
  }
}

// The plugin header, and in it the definition of convparity_problem.
const std::string kPluginHeader = "harness/plugin/convparity_plugin.h";
std::string ProblemStructText() {
  const std::string header = SourceText(kPluginHeader);
  const size_t begin = header.find("typedef struct convparity_problem {");
  const size_t end = header.find("} convparity_problem;", begin);
  EXPECT_NE(begin, std::string::npos);
  EXPECT_NE(end, std::string::npos);
  return end == std::string::npos ? "" : header.substr(begin, end - begin);
}

TEST(ProblemFields, ThePluginHeaderHasEveryGivenEnumFieldAndSwitchAndTheCodes) {
  const std::string header = SourceText(kPluginHeader);
  const std::string body = ProblemStructText();
  Names members;
  const std::regex member(R"(\bint32_t (\w+);)");
  for (auto m = std::sregex_iterator(body.begin(), body.end(), member); m != std::sregex_iterator();
       ++m)
    members.insert((*m)[1]);
  for (const auto& [name, abi_name] : Switches())
    EXPECT_EQ(members.count(abi_name), 1u) << "no int32_t " << abi_name;
  for (const EnumField& f : EnumFields()) {
    if (!f.given) continue;
    EXPECT_EQ(members.count(f.name), 1u) << "no int32_t " << f.name;
    for (const auto& [name, code] : f.abi) {
      // The constant is named for the protocol's name: CONVPARITY_WEIGHT_SPATIAL_IO for spatial_io.
      std::string upper = name;
      for (char& c : upper) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
      const std::regex constant("#define CONVPARITY_[A-Z]+_" + upper + " +" + std::to_string(code) +
                                "\\b");
      EXPECT_TRUE(std::regex_search(header, constant)) << f.name << " " << name << " = " << code;
    }
  }
}

TEST(ProblemFields, ThePluginHeaderHasEveryIntegerFieldWithItsShape) {
  const std::string body = ProblemStructText();
  Names counts, sizes;
  const std::regex member(R"(int64_t (\w+)(\[CONVPARITY_MAX_RANK\])?;)");
  for (auto m = std::sregex_iterator(body.begin(), body.end(), member); m != std::sregex_iterator();
       ++m)
    ((*m)[2].matched ? sizes : counts).insert((*m)[1]);
  Names expected_counts, expected_sizes{"output"};
  for (const IntegerField& f : kIntegerFields)
    (f.count ? expected_counts : expected_sizes).insert(f.name);
  EXPECT_EQ(counts, expected_counts);
  EXPECT_EQ(sizes, expected_sizes);
}

// A transposed problem in which every integer field is off its plain value.
ConvProblem Base() {
  Result<ParsedDescriptor> d =
      ParseDescriptor("t2d_g2_mb2_ic4_oc6_i5x4_k3x2_s2x3_pb1x0_pe0x2_d2x1_op1x2");
  EXPECT_TRUE(d.ok()) << d.status().message();
  EXPECT_TRUE(Validate(d->problem).ok()) << Validate(d->problem).message();
  return d->problem;
}

// Base() with one field changed in one place and still valid: a count to its plain value (doubled
// where the channels must stay divisible by the groups), a size to its plain value (or one above).
std::vector<std::pair<std::string, ConvProblem>> OneFieldChanged() {
  std::vector<std::pair<std::string, ConvProblem>> out;
  for (const IntegerField& f : kIntegerFields) {
    ConvProblem q = Base();
    if (f.count) {
      const int64_t v = q.*f.count;
      q.*f.count = f.plain;
      if (!Validate(q).ok()) q.*f.count = 2 * v;
    } else {
      int64_t& v = (q.*f.sizes)[0];
      v = v == f.plain ? f.plain + 1 : f.plain;
    }
    out.emplace_back(f.name, q);
  }
  return out;
}

// The descriptor (short and long), the case file (with and without its descriptor) and the plugin
// ABI give q back; the ABI, which carries only the given enum fields, with the others' defaults.
void ExpectEveryFormatGivesBack(const ConvProblem& q) {
  ASSERT_TRUE(Validate(q).ok()) << Validate(q).message();
  for (bool long_form : {false, true}) {
    Result<ParsedDescriptor> d = ParseDescriptor(ProblemDescriptor(q, long_form));
    ASSERT_TRUE(d.ok()) << d.status().message();
    EXPECT_EQ(d->problem, q) << "descriptor";
  }
  ConvCase c;
  c.problem = q;
  for (bool with_descriptor : {false, true}) {
    Result<ConvCase> read = CaseFromJson(CaseToJson(c, with_descriptor));
    ASSERT_TRUE(read.ok()) << read.status().message();
    EXPECT_EQ(read->problem, q) << "case file";
  }
  Result<ConvProblem> plugin = ProblemFromPluginStruct(PluginStructFromProblem(q));
  ASSERT_TRUE(plugin.ok()) << plugin.status().message();
  ConvProblem given = q;
#define CONVPARITY_ENUM(field, type, values, default_value, meaning, suts, part) \
  given.field = default_value;                                                   \
  CONVPARITY_IF_given_##suts(given.field = q.field;)
#include "core/problem_fields.def"
  EXPECT_EQ(*plugin, given) << "plugin ABI";
}

TEST(ProblemFields, EveryIntegerFieldSurvivesEveryFormatBothWays) {
  const ConvProblem base = Base();
  for (const auto& [name, q] : OneFieldChanged()) {
    SCOPED_TRACE(name + ": " + ProblemDescriptor(q));
    EXPECT_NE(q, base) << "operator== does not see the field";
    ExpectEveryFormatGivesBack(q);
    const json request = RunRequestJson(1, q, Direction::kForward)["problem"];
    EXPECT_NE(request, RunRequestJson(1, base, Direction::kForward)["problem"]) << "protocol";
  }
}

// Base() with one enum field at each of its values, or one switch flipped.
std::vector<std::pair<std::string, ConvProblem>> EveryOption() {
  std::vector<std::pair<std::string, ConvProblem>> out;
  const ConvProblem base = Base();
#define CONVPARITY_ENUM(field, type, values, ...)                 \
  for (const EnumValue<type>& e : values) {                       \
    ConvProblem q = base;                                         \
    q.field = e.value;                                            \
    out.emplace_back(#field "=" + NameAtRank(e.name, q.rank), q); \
  }
#define CONVPARITY_SWITCH(field, ...)      \
  {                                        \
    out.emplace_back(#field, base);        \
    out.back().second.field = !base.field; \
  }
#include "core/problem_fields.def"
  return out;
}

TEST(ProblemFields, EveryEnumValueAndSwitchSurvivesEveryFormatBothWays) {
  for (const auto& [name, q] : EveryOption()) {
    SCOPED_TRACE(name + ": " + ProblemDescriptor(q));
    ExpectEveryFormatGivesBack(q);
  }
}

TEST(ProblemFields, AGivenEnumValueGoesByItsCodeAndProtocolName) {
  const ConvProblem base = Base();
#define CONVPARITY_ENUM(field, type, values, default_value, meaning, suts, part)         \
  CONVPARITY_IF_given_##suts(for (const EnumValue<type>& e                               \
                                  : values) {                                            \
    ConvProblem q = base;                                                                \
    q.field = e.value;                                                                   \
    EXPECT_EQ(PluginStructFromProblem(q).field, e.abi) << #field;                        \
    EXPECT_EQ(RunRequestJson(1, q, Direction::kForward)["problem"][#field], e.protocol); \
  })
#include "core/problem_fields.def"
}

TEST(ProblemFields, AnEnumCodeOutsideItsTableIsRefusedByName) {
  const convparity_problem base = PluginStructFromProblem(Base());
#define CONVPARITY_ENUM(field, type, values, default_value, meaning, suts, part)              \
  CONVPARITY_IF_given_##suts({                                                                \
    convparity_problem s = base;                                                              \
    s.field = 99;                                                                             \
    const Result<ConvProblem> p = ProblemFromPluginStruct(s);                                 \
    ASSERT_FALSE(p.ok()) << #field;                                                           \
    EXPECT_EQ(p.status().message().rfind(#field " must be ", 0), 0u) << p.status().message(); \
  })
#include "core/problem_fields.def"
}

// A value cast from a bad integer (memory from anywhere) is refused by name and printed without a
// crash by every format.
TEST(ProblemFields, AnEnumValueOutsideItsTableIsInvalidAndPrints) {
  const ConvProblem base = Base();
#define CONVPARITY_ENUM(field, type, ...)                                               \
  {                                                                                     \
    ConvProblem q = base;                                                               \
    q.field = static_cast<type>(99);                                                    \
    EXPECT_EQ(Validate(q).code(), StatusCode::kInvalid) << #field;                      \
    EXPECT_EQ(Validate(q).message().rfind("unknown ", 0), 0u) << Validate(q).message(); \
    EXPECT_NE(ProblemDescriptor(q, true).find("?"), std::string::npos) << #field;       \
    ConvCase c;                                                                         \
    c.problem = q;                                                                      \
    EXPECT_FALSE(CaseToJson(c, true).contains("descriptor")) << #field;                 \
    RunRequestJson(1, q, Direction::kForward);                                          \
    PluginStructFromProblem(q);                                                         \
  }
#include "core/problem_fields.def"
}

TEST(ProblemFields, AFieldOffItsBoundsIsRefusedByName) {
  for (const IntegerField& f : kIntegerFields) {
    ConvProblem q = Base();
    if (f.count)
      q.*f.count = 0;
    else
      (q.*f.sizes)[0] = f.plain - 1;
    const Status st = Validate(q);
    EXPECT_EQ(st.code(), StatusCode::kInvalid) << f.name;
    EXPECT_EQ(st.message().rfind(f.name, 0), 0u) << st.message();
  }
  ConvProblem ordinary = Base();
  ordinary.transposed = false;
  ordinary.weight_layout = ordinary.natural_weight_layout();
  for (const IntegerField& f : kIntegerFields) {
    if (!f.transposed_only) continue;
    EXPECT_NE(Validate(ordinary).message().find(std::string(f.name) + " is only for transposed"),
              std::string::npos)
        << Validate(ordinary).message();
  }
}

}  // namespace
}  // namespace convparity
