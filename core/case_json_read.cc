// CaseFromJson, ParseCaseText: reading a case file (convparity.case/1) strictly.
#include <algorithm>
#include <cstdint>
#include <exception>
#include <iterator>
#include <limits>
#include <optional>
#include <utility>
#include <vector>

#include "core/conv_case.h"
#include "core/descriptor.h"
#include "core/problem_fields.h"
#include "core/quote.h"
#include "core/strict_json.h"

namespace convparity {
namespace {

using nlohmann::json;

// Case files are small; these bound the work and memory of reading any text, and keep nesting
// shallow enough that nlohmann's recursive copy and comparison of a value cannot exhaust the stack.
constexpr size_t kMaxCaseTextBytes = size_t{4} << 20;
constexpr int kMaxJsonDepth = 64;

const std::vector<std::string> kTopFields = {
    "schema",     "sut",     "direction", "fill",      "seed",      "expect", "note",
    "descriptor", "problem", "graph",     "transform", "algorithm", "origin", "spelling"};
const std::vector<std::string> kProblemFields(std::begin(kProblemFieldNames),
                                              std::end(kProblemFieldNames));
const std::vector<std::string> kTransformFields = {"pipeline", "graph"};

// Text from the input in a message: JSON-escaped (one line, even if it is not UTF-8), cut short.
std::string Quote(const std::string& s) { return QuoteForMessage(s, QuoteEscapes::kJson); }

// What a value is, for "expected X, got Y" messages; numbers show their kind.
std::string Describe(const json& v) {
  if (v.is_number_float()) return "the number " + v.dump();
  if (v.is_number_unsigned() || v.is_number_integer()) return "the integer " + v.dump();
  if (v.is_string()) return "the string " + Quote(v.get_ref<const std::string&>());
  return v.type_name();
}

Status TypeError(const std::string& field, const char* expected, const json& v) {
  return Status::Invalid("field '" + field + "' must be " + expected + ", got " + Describe(v));
}

Result<int64_t> ReadInt(const json& v, const std::string& field) {
  if (v.is_number_integer() && !v.is_number_unsigned()) return v.get<int64_t>();  // negative too
  if (std::optional<uint64_t> u = WholeNumber(v)) {
    if (*u > static_cast<uint64_t>(std::numeric_limits<int64_t>::max()))
      return Status::Invalid("field '" + field + "' = " + v.dump() + " is outside the int64 range");
    return static_cast<int64_t>(*u);
  }
  return TypeError(field, "an integer", v);
}

Result<bool> ReadBool(const json& v, const std::string& field) {
  if (!v.is_boolean()) return TypeError(field, "true or false", v);
  return v.get<bool>();
}

Result<std::string> ReadString(const json& v, const std::string& field) {
  if (!v.is_string()) return TypeError(field, "a string", v);
  return v.get<std::string>();
}

Result<Dims> ReadDims(const json& v, const std::string& field, int rank) {
  if (!v.is_array()) return TypeError(field, "an array of integers", v);
  if (v.size() != static_cast<size_t>(rank))
    return Status::Invalid("field '" + field + "' has " + std::to_string(v.size()) +
                           " values, expected " + std::to_string(rank) + " (the rank)");
  Dims d{};
  for (int i = 0; i < rank; ++i) {
    Result<int64_t> x = ReadInt(v[i], field + "[" + std::to_string(i) + "]");
    if (!x.ok()) return x.status();
    d[i] = *x;
  }
  return d;
}

// Accepts a JSON integer, or a decimal string for tools whose numbers are doubles (above 2^53).
Result<uint64_t> ReadSeed(const json& v) {
  static constexpr char kExpected[] =
      "an integer in [0, 2^64 - 1] (or that integer as a decimal string)";
  if (v.is_number_unsigned()) return v.get<uint64_t>();
  if (v.is_number() || !v.is_string()) return TypeError("seed", kExpected, v);
  const std::string& s = v.get_ref<const std::string&>();
  uint64_t x = 0;
  bool ok = !s.empty() && s.size() <= 20;
  for (size_t i = 0; ok && i < s.size(); ++i) {
    uint64_t digit = static_cast<uint64_t>(s[i] - '0');
    ok = s[i] >= '0' && s[i] <= '9' && x <= (std::numeric_limits<uint64_t>::max() - digit) / 10;
    if (ok) x = x * 10 + digit;
  }
  if (!ok) return TypeError("seed", kExpected, v);
  return x;
}

Status CheckFields(const json& object, const std::vector<std::string>& names,
                   const std::string& prefix) {
  if (std::optional<std::string> unknown = FirstUnknownField(object, names))
    return Status::Invalid("unknown field " + Quote(prefix + *unknown) + "; expected one of " +
                           NameList(names));
  return Status::Ok();
}

std::string DimsText(const Dims& d, int rank) {
  std::string s = "(";
  for (int i = 0; i < rank; ++i) s += (i ? ", " : "") + std::to_string(d[i]);
  return s + ")";
}

// A form field's value (core/problem_fields.def) in a message.
std::string FormText(int v) { return std::to_string(v); }
std::string FormText(bool v) { return v ? "true" : "false"; }

// The problem as (field, value) text pairs in the fields' order, to name the first disagreement.
std::vector<std::pair<const char*, std::string>> FieldTexts(const ConvProblem& p) {
  int r = std::max(0, std::min(p.rank, kMaxSpatialRank));
  std::vector<std::pair<const char*, std::string>> texts;
#define CONVPARITY_FORM(field, ...) texts.emplace_back(#field, FormText(p.field));
#define CONVPARITY_ENUM(field, type, values, ...) \
  texts.emplace_back(#field, EnumName(values, p.field, p.rank));
#define CONVPARITY_SWITCH(field, ...) texts.emplace_back(#field, FormText(p.field));
#define CONVPARITY_COUNT(field, ...) texts.emplace_back(#field, std::to_string(p.field));
#define CONVPARITY_SIZES(field, ...) texts.emplace_back(#field, DimsText(p.field, r));
#include "core/problem_fields.def"
  return texts;
}

Status Disagreement(const ConvProblem& from_descriptor, const ConvProblem& from_problem) {
  auto a = FieldTexts(from_descriptor), b = FieldTexts(from_problem);
  for (size_t i = 0; i < a.size(); ++i) {
    if (a[i].second != b[i].second)
      return Status::Invalid(std::string("fields 'descriptor' and 'problem' disagree on ") +
                             a[i].first + ": the descriptor has " + a[i].second +
                             ", the problem has " + b[i].second);
  }
  return Status::Invalid("fields 'descriptor' and 'problem' disagree");
}

// A problem's field from its JSON value, by the field's type (core/problem_fields.def); `field`
// names it in errors. The rank and whether it is transposed come first, and decide the others.
Status ReadField(const json& v, const std::string& field, ConvProblem&, int* out) {
  Result<int64_t> rank = ReadInt(v, field);
  if (!rank.ok()) return rank.status();
  if (*rank < 1 || *rank > kMaxSpatialRank)
    return Status::Invalid("field '" + field + "' is " + std::to_string(*rank) +
                           ", expected 1, 2 or 3 spatial dimensions");
  *out = static_cast<int>(*rank);
  return Status::Ok();
}
Status ReadField(const json& v, const std::string& field, ConvProblem&, bool* out) {
  Result<bool> b = ReadBool(v, field);
  if (!b.ok()) return b.status();
  *out = *b;
  return Status::Ok();
}
// An enum field by its name at the problem's rank (core/conv_problem.h).
template <typename E, size_t N>
Status ReadEnum(const json& v, const std::string& field, int rank, const EnumValue<E> (&values)[N],
                E* out) {
  Result<std::string> s = ReadString(v, field);
  if (!s.ok()) return s.status();
  for (const EnumValue<E>& e : values) {
    if (*s != NameAtRank(e.name, rank)) continue;
    *out = e.value;
    return Status::Ok();
  }
  return Status::Invalid(
      "field '" + field + "' is " + Quote(*s) + ", expected " + Choices(NamesAtRank(values, rank)) +
      (NamedByRank(values) ? " for a " + std::to_string(rank) + "-D problem" : std::string()));
}

Status ReadField(const json& v, const std::string& field, ConvProblem&, int64_t* out) {
  Result<int64_t> x = ReadInt(v, field);
  if (!x.ok()) return x.status();
  *out = *x;
  return Status::Ok();
}
// Sizes past the rank keep their plain value.
Status ReadField(const json& v, const std::string& field, ConvProblem& p, Dims* out) {
  Result<Dims> d = ReadDims(v, field, p.rank);
  if (!d.ok()) return d.status();
  std::copy(d->begin(), d->begin() + p.rank, out->begin());
  return Status::Ok();
}

// Required fields are the descriptor's (rank, channels, input, kernel); the rest default to their
// plain values, and the weight layout to the natural one, as in a descriptor.
Result<ConvProblem> ProblemFromJson(const json& j) {
  if (!j.is_object()) return TypeError("problem", "an object", j);
  CP_RETURN_IF_ERROR(CheckFields(j, kProblemFields, "problem."));
  if (!j.contains("rank")) return Status::Invalid("field 'problem.rank' is missing");
  for (const IntegerField& f : kIntegerFields)
    if (f.required && !j.contains(f.name))
      return Status::Invalid(std::string("field 'problem.") + f.name + "' is missing");
  ConvProblem p;
  Status read = Status::Ok();
#define CONVPARITY_READ(field) \
  if (read.ok() && j.contains(#field)) read = ReadField(j[#field], "problem." #field, p, &p.field);
#define CONVPARITY_FORM(field, ...) CONVPARITY_READ(field)
#define CONVPARITY_COUNT(field, ...) CONVPARITY_READ(field)
#define CONVPARITY_SIZES(field, ...) CONVPARITY_READ(field)
#define CONVPARITY_SWITCH(field, ...) CONVPARITY_READ(field)
#define CONVPARITY_ENUM(field, type, values, ...) \
  if (read.ok() && j.contains(#field))            \
    read = ReadEnum(j[#field], "problem." #field, p.rank, values, &p.field);
#include "core/problem_fields.def"
#undef CONVPARITY_READ
  CP_RETURN_IF_ERROR(read);
  if (!j.contains("weight_layout")) p.weight_layout = PlainOptions(p).weight_layout;
  return p;
}

Status CheckSchema(const json& j) {
  if (!j.contains("schema"))
    return Status::Invalid(std::string("field 'schema' is missing; expected \"") + kCaseSchema +
                           "\"");
  Result<std::string> s = ReadString(j["schema"], "schema");
  if (!s.ok()) return s.status();
  if (*s == kCaseSchema) return Status::Ok();
  const std::string family = "convparity.case/";
  if (s->compare(0, family.size(), family) == 0)
    return Status::Invalid("schema " + Quote(*s) +
                           " is a version this build cannot read; it reads \"" + kCaseSchema +
                           "\"");
  return Status::Invalid("schema " + Quote(*s) + " is not a case file; expected \"" + kCaseSchema +
                         "\"");
}

// Typed: exactly the fields AddTransformGraphs writes, so what is read is written back the same.
Result<TransformGraph> TransformFromJson(const json& t) {
  if (!t.is_object()) return TypeError("transform", "an object", t);
  if (DeeperThan(t, kMaxJsonDepth))
    return Status::Invalid("field 'transform' nests deeper than " + std::to_string(kMaxJsonDepth) +
                           " levels");
  CP_RETURN_IF_ERROR(CheckFields(t, kTransformFields, "transform."));
  for (const std::string& required : kTransformFields)
    if (!t.contains(required))
      return Status::Invalid("field 'transform." + required + "' is missing");
  TransformGraph g;
  const json& pipeline = t["pipeline"];
  if (!pipeline.is_array()) return TypeError("transform.pipeline", "an array of strings", pipeline);
  for (size_t i = 0; i < pipeline.size(); ++i) {
    Result<std::string> pass =
        ReadString(pipeline[i], "transform.pipeline[" + std::to_string(i) + "]");
    if (!pass.ok()) return pass.status();
    g.pipeline.push_back(*pass);
  }
  Result<std::string> graph = ReadString(t["graph"], "transform.graph");
  if (!graph.ok()) return graph.status();
  g.graph = *graph;
  return g;
}

Result<ConvCase> CaseFromJsonUnchecked(const json& j) {
  if (!j.is_object()) return Status::Invalid("a case must be a JSON object, got " + Describe(j));
  CP_RETURN_IF_ERROR(CheckSchema(j));
  CP_RETURN_IF_ERROR(CheckFields(j, kTopFields, ""));
  ConvCase c;

  std::optional<ParsedDescriptor> descriptor;
  if (j.contains("descriptor")) {
    Result<std::string> s = ReadString(j["descriptor"], "descriptor");
    if (!s.ok()) return s.status();
    Result<ParsedDescriptor> d = ParseDescriptor(*s);
    if (!d.ok()) return d.status().WithContext("field 'descriptor'");
    descriptor = *d;
  }
  if (j.contains("problem")) {
    Result<ConvProblem> p = ProblemFromJson(j["problem"]);
    if (!p.ok()) return p.status();
    if (descriptor && !(descriptor->problem == *p)) return Disagreement(descriptor->problem, *p);
    c.problem = *p;
  } else if (descriptor) {
    c.problem = descriptor->problem;
  } else {
    return Status::Invalid("a case needs field 'descriptor' or 'problem' (or both)");
  }

  if (j.contains("direction")) {
    Result<std::string> s = ReadString(j["direction"], "direction");
    if (!s.ok()) return s.status();
    Result<Direction> d = ParseDirection(*s);
    if (!d.ok())
      return Status::Invalid("field 'direction' is " + Quote(*s) +
                             ", expected fwd, bwd_data or bwd_weight");
    if (descriptor && descriptor->direction && *descriptor->direction != *d)
      return Status::Invalid("field 'direction' is " + Quote(*s) + " but the descriptor says \"" +
                             DirectionName(*descriptor->direction) + "\"");
    c.direction = *d;
  } else if (descriptor && descriptor->direction) {
    c.direction = *descriptor->direction;
  }
  if (j.contains("sut")) {
    Result<std::string> s = ReadString(j["sut"], "sut");
    if (!s.ok()) return s.status();
    if (s->empty()) return Status::Invalid("field 'sut' is empty; expected a SUT name");
    c.sut = *s;
  }
  if (j.contains("fill")) {
    Result<std::string> s = ReadString(j["fill"], "fill");
    if (!s.ok()) return s.status();
    Result<Fill> f = ParseFill(*s);
    if (!f.ok()) return f.status().WithContext("field 'fill'");
    c.fill = *f;
  }
  if (j.contains("seed")) {
    Result<uint64_t> s = ReadSeed(j["seed"]);
    if (!s.ok()) return s.status();
    c.seed = *s;
  }
  if (j.contains("expect")) {
    Result<std::string> s = ReadString(j["expect"], "expect");
    if (!s.ok()) return s.status();
    Result<Verdict> v = ParseExpectedVerdict(*s);
    if (!v.ok())
      return Status::Invalid("field 'expect' is " + Quote(*s) + ", " + v.status().message());
    c.expect = *v;
  }
  if (j.contains("note")) {
    Result<std::string> s = ReadString(j["note"], "note");
    if (!s.ok()) return s.status();
    c.note = *s;
  }
  if (j.contains("graph")) {
    Result<std::string> s = ReadString(j["graph"], "graph");
    if (!s.ok()) return s.status();
    c.graph = FindGraphForm(*s);
    if (!c.graph)
      return Status::Invalid("field 'graph' is " + Quote(*s) + ", expected " + GraphFormNames());
  }
  if (j.contains("algorithm")) {
    Result<std::string> s = ReadString(j["algorithm"], "algorithm");
    if (!s.ok()) return s.status();
    Result<Algorithm> a = ParseAlgorithm(*s);
    if (!a.ok()) return a.status().WithContext("field 'algorithm'");
    c.algorithm = *a;
  }
  if (j.contains("origin")) {
    Result<CaseOrigin> o = OriginFromJson(j["origin"]);
    if (!o.ok()) return o.status();
    c.origin = *o;
  }
  if (j.contains("spelling")) {
    Result<Spelling> s = SpellingFromJson(j["spelling"]);
    if (!s.ok()) return s.status();
    // Its rules are shape math on a legal problem; an illegal one is refused for itself later.
    if (Validate(c.problem).ok()) {
      Status fits = CheckSpelling(*s, c.problem);
      if (!fits.ok()) return Status::Invalid("field 'spelling': " + fits.message());
    }
    c.spelling = *s;
  }
  if (j.contains("transform")) {
    Result<TransformGraph> t = TransformFromJson(j["transform"]);
    if (!t.ok()) return t.status();
    c.transform = *t;
  }
  return c;
}

}  // namespace

Result<ConvCase> CaseFromJson(const json& j) {
  // Every access above is type-checked first; this keeps the no-exception contract if one slips.
  try {
    return CaseFromJsonUnchecked(j);
  } catch (const json::exception& e) {
    return Status::Invalid(std::string("malformed case: ") + e.what());
  } catch (const std::exception& e) {
    return Status::Internal(std::string("reading a case failed: ") + e.what());
  }
}

Result<ConvCase> ParseCaseText(const std::string& text) {
  if (text.size() > kMaxCaseTextBytes)
    return Status::Invalid("case text is " + std::to_string(text.size()) +
                           " bytes, over the limit of " + std::to_string(kMaxCaseTextBytes));
  // A case file must not say two things: duplicate fields are errors.
  Result<json> j = ParseStrictJson(text, kMaxJsonDepth, "case");
  if (!j.ok()) return j.status();
  return CaseFromJson(*j);
}

}  // namespace convparity
