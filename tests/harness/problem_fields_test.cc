// The fields of a problem are declared once (core/problem_fields.def): every format names the same
// fields, and each of them survives every format both ways.
#include "core/problem_fields.h"

#include <gtest/gtest.h>

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

TEST(ProblemFields, TheProtocolSchemaAndItsRequestsNameEveryIntegerField) {
  // The protocol's own spelling of the forms (no dtype: float32 is the protocol's only type), and
  // the output size as a convenience.
  const Names expected = Plus(IntegerFieldNames(), {"rank", "transposed", "bias", "data_layout",
                                                    "weight_layout", "output"});
  const json schema = json::parse(SourceText("harness/exec/protocol.schema.json"));
  const json& problem = schema["$defs"]["run"]["properties"]["problem"];
  EXPECT_EQ(KeysOf(problem["properties"]), expected);
  EXPECT_EQ(Names(problem["required"].begin(), problem["required"].end()), expected);
  EXPECT_EQ(KeysOf(RunRequestJson(1, ConvProblem{}, Direction::kForward)["problem"]), expected);
}

TEST(ProblemFields, ThePluginHeaderHasEveryIntegerFieldWithItsShape) {
  const std::string header = SourceText("harness/plugin/convparity_plugin.h");
  const size_t begin = header.find("typedef struct convparity_problem {");
  const size_t end = header.find("} convparity_problem;", begin);
  ASSERT_NE(begin, std::string::npos);
  ASSERT_NE(end, std::string::npos);
  const std::string body = header.substr(begin, end - begin);
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

TEST(ProblemFields, EveryIntegerFieldSurvivesEveryFormatBothWays) {
  const ConvProblem base = Base();
  for (const auto& [name, q] : OneFieldChanged()) {
    SCOPED_TRACE(name + ": " + ProblemDescriptor(q));
    ASSERT_TRUE(Validate(q).ok()) << Validate(q).message();
    EXPECT_NE(q, base) << "operator== does not see the field";
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
    EXPECT_EQ(*plugin, q) << "plugin ABI";
    const json request = RunRequestJson(1, q, Direction::kForward)["problem"];
    EXPECT_NE(request, RunRequestJson(1, base, Direction::kForward)["problem"]) << "protocol";
  }
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
