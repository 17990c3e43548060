// CaseFromJson, ParseCaseText: reading a case file (convparity.case/1) strictly.
#include <algorithm>
#include <cstdint>
#include <exception>
#include <limits>
#include <optional>
#include <utility>
#include <vector>

#include "core/conv_case.h"
#include "core/descriptor.h"
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
    "descriptor", "problem", "graph",     "transform", "algorithm", "origin"};
const std::vector<std::string> kProblemFields = {
    "rank",           "transposed",  "batch",         "in_channels", "out_channels", "groups",
    "input",          "kernel",      "stride",        "pad_begin",   "pad_end",      "dilation",
    "output_padding", "data_layout", "weight_layout", "bias",        "dtype"};
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

Result<Dims> ReadDims(const json& v, const std::string& field, int rank, int64_t fill) {
  if (!v.is_array()) return TypeError(field, "an array of integers", v);
  if (v.size() != static_cast<size_t>(rank))
    return Status::Invalid("field '" + field + "' has " + std::to_string(v.size()) +
                           " values, expected " + std::to_string(rank) + " (the rank)");
  Dims d;
  d.fill(fill);
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

// The problem as (field, value) text pairs in JSON field order, to name the first disagreement.
std::vector<std::pair<const char*, std::string>> FieldTexts(const ConvProblem& p) {
  int r = std::max(0, std::min(p.rank, kMaxSpatialRank));
  return {{"rank", std::to_string(p.rank)},
          {"transposed", p.transposed ? "true" : "false"},
          {"batch", std::to_string(p.batch)},
          {"in_channels", std::to_string(p.in_channels)},
          {"out_channels", std::to_string(p.out_channels)},
          {"groups", std::to_string(p.groups)},
          {"input", DimsText(p.input, r)},
          {"kernel", DimsText(p.kernel, r)},
          {"stride", DimsText(p.stride, r)},
          {"pad_begin", DimsText(p.pad_begin, r)},
          {"pad_end", DimsText(p.pad_end, r)},
          {"dilation", DimsText(p.dilation, r)},
          {"output_padding", DimsText(p.output_padding, r)},
          {"data_layout", DataLayoutName(p.data_layout, p.rank)},
          {"weight_layout", WeightLayoutName(p.weight_layout, p.rank)},
          {"bias", p.bias ? "true" : "false"},
          {"dtype", DTypeName(p.dtype)}};
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

// Required fields are the descriptor's (rank, channels, input, kernel); the rest default the same
// way.
Result<ConvProblem> ProblemFromJson(const json& j) {
  if (!j.is_object()) return TypeError("problem", "an object", j);
  CP_RETURN_IF_ERROR(CheckFields(j, kProblemFields, "problem."));
  for (const char* required : {"rank", "in_channels", "out_channels", "input", "kernel"})
    if (!j.contains(required))
      return Status::Invalid(std::string("field 'problem.") + required + "' is missing");
  ConvProblem p;
  Result<int64_t> rank = ReadInt(j["rank"], "problem.rank");
  if (!rank.ok()) return rank.status();
  if (*rank < 1 || *rank > kMaxSpatialRank)
    return Status::Invalid("field 'problem.rank' is " + std::to_string(*rank) +
                           ", expected 1, 2 or 3 spatial dimensions");
  p.rank = static_cast<int>(*rank);
  const ConvProblem defaults;
  for (auto [name, field] : {std::pair{"batch", &ConvProblem::batch},
                             {"in_channels", &ConvProblem::in_channels},
                             {"out_channels", &ConvProblem::out_channels},
                             {"groups", &ConvProblem::groups}}) {
    if (!j.contains(name)) continue;
    Result<int64_t> v = ReadInt(j[name], std::string("problem.") + name);
    if (!v.ok()) return v.status();
    p.*field = *v;
  }
  for (auto [name, field] : {std::pair{"input", &ConvProblem::input},
                             {"kernel", &ConvProblem::kernel},
                             {"stride", &ConvProblem::stride},
                             {"pad_begin", &ConvProblem::pad_begin},
                             {"pad_end", &ConvProblem::pad_end},
                             {"dilation", &ConvProblem::dilation},
                             {"output_padding", &ConvProblem::output_padding}}) {
    if (!j.contains(name)) continue;
    Result<Dims> v =
        ReadDims(j[name], std::string("problem.") + name, p.rank, (defaults.*field)[0]);
    if (!v.ok()) return v.status();
    p.*field = *v;
  }
  for (auto [name, field] :
       {std::pair{"transposed", &ConvProblem::transposed}, {"bias", &ConvProblem::bias}}) {
    if (!j.contains(name)) continue;
    Result<bool> v = ReadBool(j[name], std::string("problem.") + name);
    if (!v.ok()) return v.status();
    p.*field = *v;
  }
  const std::string rank_text = std::to_string(p.rank) + "-D";
  if (j.contains("data_layout")) {
    Result<std::string> s = ReadString(j["data_layout"], "problem.data_layout");
    if (!s.ok()) return s.status();
    std::optional<DataLayout> layout;
    for (DataLayout l : {DataLayout::kChannelsFirst, DataLayout::kChannelsLast})
      if (*s == DataLayoutName(l, p.rank)) layout = l;
    if (!layout)
      return Status::Invalid("field 'problem.data_layout' is " + Quote(*s) + ", expected " +
                             DataLayoutName(DataLayout::kChannelsFirst, p.rank) + " or " +
                             DataLayoutName(DataLayout::kChannelsLast, p.rank) + " for a " +
                             rank_text + " problem");
    p.data_layout = *layout;
  }
  p.weight_layout = p.natural_weight_layout();
  if (j.contains("weight_layout")) {
    Result<std::string> s = ReadString(j["weight_layout"], "problem.weight_layout");
    if (!s.ok()) return s.status();
    std::string names;
    bool found = false;
    for (WeightLayout l : {WeightLayout::kOI, WeightLayout::kIO, WeightLayout::kSpatialIO,
                           WeightLayout::kOSpatialI}) {
      names += (names.empty() ? "" : ", ") + WeightLayoutName(l, p.rank);
      if (*s == WeightLayoutName(l, p.rank)) {
        p.weight_layout = l;
        found = true;
      }
    }
    if (!found)
      return Status::Invalid("field 'problem.weight_layout' is " + Quote(*s) +
                             ", expected one of " + names + " for a " + rank_text + " problem");
  }
  if (j.contains("dtype")) {
    Result<std::string> s = ReadString(j["dtype"], "problem.dtype");
    if (!s.ok()) return s.status();
    if (*s != DTypeName(DType::kFloat32))
      return Status::Invalid("field 'problem.dtype' is " + Quote(*s) + ", expected f32");
  }
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
    std::optional<GraphForm> form;
    for (GraphForm g : {GraphForm::kConv, GraphForm::kChain})
      if (*s == GraphFormName(g)) form = g;
    if (!form) return Status::Invalid("field 'graph' is " + Quote(*s) + ", expected conv or chain");
    c.graph = *form;
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
