// The shared pieces of strict JSON reading (core/strict_json.h) and of quoting (core/quote.h).
#include "core/strict_json.h"

#include <gtest/gtest.h>

#include "core/quote.h"

namespace convparity {
namespace {

using nlohmann::json;

TEST(StrictJson, WholeNumbersAreNonNegativeIntegersHeldEitherWay) {
  EXPECT_EQ(WholeNumber(json(uint64_t{18446744073709551615u})), 18446744073709551615u);
  EXPECT_EQ(WholeNumber(json(int64_t{5})), 5u);  // built in memory: held signed
  EXPECT_EQ(WholeNumber(json::parse("7")), 7u);  // parsed: held unsigned
  EXPECT_FALSE(WholeNumber(json(-1)).has_value());
  EXPECT_FALSE(WholeNumber(json(2.0)).has_value());
  EXPECT_FALSE(WholeNumber(json("3")).has_value());
}

TEST(StrictJson, TheFirstUnknownFieldIsNamed) {
  const json j = {{"a", 1}, {"c", 2}, {"b", 3}};
  EXPECT_FALSE(FirstUnknownField(j, {"a", "b", "c"}).has_value());
  EXPECT_EQ(FirstUnknownField(j, {"a"}), "b");  // in the object's (sorted) order
  EXPECT_FALSE(FirstUnknownField(json::array(), {}).has_value());
  EXPECT_EQ(NameList({"a", "b", "c"}), "a, b, c");
  EXPECT_EQ(NameList({}), "");
}

TEST(StrictJson, DepthCountsLevelsOfNesting) {
  EXPECT_FALSE(DeeperThan(json(1), 1));
  EXPECT_FALSE(DeeperThan(json::parse("[[1]]"), 2));
  EXPECT_TRUE(DeeperThan(json::parse("[[[1]]]"), 2));
  EXPECT_TRUE(DeeperThan(json::parse(R"({"a": [1, {"b": {}}]})"), 2));
}

TEST(StrictJson, ParsingRejectsDuplicatesDepthAndSyntaxNamingWhatWasRead) {
  Result<json> ok = ParseStrictJson(R"({"a": {"a": 1}, "b": [{"a": 2}, {"a": 3}]})", 8, "x");
  ASSERT_TRUE(ok.ok()) << ok.status().message();
  EXPECT_EQ((*ok)["b"][1]["a"], 3);
  EXPECT_EQ(ParseStrictJson(R"({"a": 1, "a": 2})", 8, "x").status().message(),
            "x JSON has a duplicate field \"a\"");
  EXPECT_EQ(ParseStrictJson("[[[]]]", 2, "x").status().message(),
            "x JSON nests deeper than 2 levels");
  const std::string syntax = ParseStrictJson("{", 8, "summary").status().message();
  EXPECT_EQ(syntax.rfind("malformed summary JSON: parse error at line 1", 0), 0u) << syntax;
}

TEST(Quote, ByteEscapesShowEveryByteAndCountTheEscapes) {
  EXPECT_EQ(QuoteForMessage("a\"b\\c\n\xff", QuoteEscapes::kBytes), R"("a\"b\\c\x0a\xff")");
  const std::string cut = QuoteForMessage(std::string(100, '\x01'), QuoteEscapes::kBytes);
  EXPECT_EQ(
      cut, "\"" + [] {
        std::string s;
        for (int i = 0; i < 20; ++i) s += "\\x01";
        return s;
      }() + "...\"");
}

TEST(Quote, JsonEscapesAreJsonStringsCutAtEightyInputBytes) {
  EXPECT_EQ(QuoteForMessage("a\"b\n\xc3\xa9", QuoteEscapes::kJson), R"("a\"b\n\u00e9")");
  EXPECT_EQ(QuoteForMessage("\xff", QuoteEscapes::kJson), R"("\ufffd")");
  EXPECT_EQ(QuoteForMessage(std::string(81, 'x'), QuoteEscapes::kJson),
            "\"" + std::string(80, 'x') + "...\"");
  EXPECT_EQ(QuoteForMessage(std::string(80, 'x'), QuoteEscapes::kJson),
            "\"" + std::string(80, 'x') + "\"");
}

TEST(Quote, ShellSingleQuotedIsOneWordWhateverItHolds) {
  EXPECT_EQ(ShellSingleQuoted("plain"), "'plain'");
  EXPECT_EQ(ShellSingleQuoted("it's a $x"), R"('it'\''s a $x')");
  EXPECT_EQ(ShellSingleQuoted(""), "''");
}

}  // namespace
}  // namespace convparity
