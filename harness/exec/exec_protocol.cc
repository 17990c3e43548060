#include "harness/exec/exec_protocol.h"

#include <algorithm>

#include "core/descriptor.h"
#include "core/problem_fields.h"
#include "harness/models/model_formats.h"

namespace convparity {
namespace {

using nlohmann::json;

json SpatialJson(const Dims& v, int rank) {
  return json(std::vector<int64_t>(v.begin(), v.begin() + rank));
}

// An enum value's name in the protocol (core/conv_problem.h); "?" outside its table.
template <typename E, size_t N>
const char* ProtocolName(const EnumValue<E> (&values)[N], E value) {
  const EnumValue<E>* e = EntryOf(values, value);
  return e ? e->protocol : "?";
}

json BufferJson(const ProtocolBuffer& b) {
  return {{"name", b.name}, {"shape", b.shape}, {"count", NumElements(b.shape)}};
}

// A string field of a child's header: present, a string, at most `max_bytes`.
Result<std::string> StringField(const json& j, const char* key, size_t max_bytes, bool required) {
  if (!j.contains(key)) {
    if (required)
      return Status::Invalid(std::string("no \"") + key + "\" in " + j.value("type", "") + " ");
    return std::string();
  }
  if (!j[key].is_string()) return Status::Invalid(std::string("\"") + key + "\" must be a string");
  const std::string s = j[key].get<std::string>();
  if (s.size() > max_bytes)
    return Status::Invalid(std::string("\"") + key + "\" is longer than " +
                           std::to_string(max_bytes) + " bytes");
  return s;
}

}  // namespace

bool ChildHello::Implements(Direction d) const {
  return std::find(directions.begin(), directions.end(), d) != directions.end();
}

std::string ChildHello::Text() const {
  std::string dirs;
  for (Direction d : directions) dirs += (dirs.empty() ? "" : ", ") + std::string(DirectionName(d));
  const std::string declared =
      capabilities.declared
          ? ", declaring " + PrintableLine(CapabilitiesToJson(capabilities).dump(), kMaxShownBytes)
          : "";
  return name + (version.empty() ? "" : " " + version) + " (" + dirs + declared +
         (model_format.empty() ? "" : ", reading " + model_format + " models") +
         (model_weights == ModelWeights::kInputs ? ", their weights as inputs" : "") + ")";
}

std::string PrintableLine(const std::string& text, size_t max_bytes) {
  std::string line;
  for (size_t i = 0; i < text.size() && i < max_bytes; ++i) {
    const unsigned char c = static_cast<unsigned char>(text[i]);
    line += (c < 0x20 || c == 0x7f) ? ' ' : text[i];
  }
  return text.size() > max_bytes ? line + "..." : line;
}

json HarnessHelloJson(const std::string& harness_version) {
  return {{"type", "hello"}, {"protocol", kExecProtocolVersion}, {"harness", harness_version}};
}

Result<ChildHello> ParseChildHello(const std::string& line) {
  const json j = json::parse(line, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded() || !j.is_object())
    return Status::Invalid("expected the child's hello, got '" + PrintableLine(line, 100) + "'");
  const std::string type = j.value("type", json()).is_string() ? j["type"].get<std::string>() : "";
  if (type == "error")
    return Status::Invalid("the child refused the hello: " +
                           PrintableLine(j.value("message", json("")).dump(), kMaxShownBytes));
  if (type != "hello")
    return Status::Invalid("expected the child's hello, got '" + PrintableLine(line, 100) + "'");
  if (!j.contains("protocol") || !j["protocol"].is_number_integer())
    return Status::Invalid("the child's hello has no integer \"protocol\"");
  if (j["protocol"].get<int64_t>() != kExecProtocolVersion)
    return Status::Invalid("the child speaks protocol " + j["protocol"].dump() +
                           ", this convparity speaks " + std::to_string(kExecProtocolVersion));
  ChildHello hello;
  Result<std::string> name = StringField(j, "name", kMaxNameBytes, true);
  if (!name.ok()) return name.status();
  if (name->empty()) return Status::Invalid("the child's \"name\" is empty");
  hello.name = PrintableLine(*name, kMaxNameBytes);
  Result<std::string> version = StringField(j, "version", kMaxNameBytes, true);
  if (!version.ok()) return version.status();
  hello.version = PrintableLine(*version, kMaxNameBytes);
  if (!j.contains("directions") || !j["directions"].is_array() || j["directions"].empty())
    return Status::Invalid("the child's hello needs \"directions\": a non-empty list");
  for (const json& d : j["directions"]) {
    Result<Direction> dir =
        d.is_string() ? ParseDirection(d.get<std::string>()) : Status::Invalid("");
    if (!dir.ok())
      return Status::Invalid("unknown direction " + PrintableLine(d.dump(), 40) +
                             " in the child's hello (known: fwd, bwd_data, bwd_weight)");
    if (!hello.Implements(*dir)) hello.directions.push_back(*dir);
  }
  std::sort(hello.directions.begin(), hello.directions.end());
  Result<std::string> format = StringField(j, "model_format", kMaxNameBytes, false);
  if (!format.ok()) return format.status();
  if (!format->empty() && !IsModelFormat(*format))
    return Status::Invalid("the child's \"model_format\" is '" + PrintableLine(*format, 40) +
                           "'; convparity writes " + ModelFormatList());
  hello.model_format = *format;
  if (j.contains("model_weights")) {
    Result<std::string> weights = StringField(j, "model_weights", kMaxNameBytes, false);
    if (!weights.ok()) return weights.status();
    if (*weights != kModelWeightsNames[0] && *weights != kModelWeightsNames[1])
      return Status::Invalid("the child's \"model_weights\" is '" + PrintableLine(*weights, 40) +
                             "'; convparity writes a model's weights as constants or inputs");
    if (*weights == kModelWeightsNames[1]) {
      const std::string said = "the child's \"model_weights\" is 'inputs'";
      if (hello.model_format.empty())
        return Status::Invalid(said + " but it names no \"model_format\"");
      if (!WritesWeightInputs(hello.model_format))
        return Status::Invalid(said + ", which convparity does not write in " + hello.model_format +
                               " models");
      hello.model_weights = ModelWeights::kInputs;
    }
  }
  if (j.contains("capabilities")) {
    Result<Capabilities> caps = CapabilitiesFromJson(j["capabilities"], "the child's capabilities");
    if (!caps.ok()) return caps.status();
    hello.capabilities = Within(*caps, hello.model_format.empty() ? kConvFormBit : ~0u,
                                DirectionMask(hello.directions));
  }
  return hello;
}

std::vector<ProtocolBuffer> RequestInputs(const ConvProblem& p, Direction d) {
  switch (d) {
    case Direction::kForward: {
      std::vector<ProtocolBuffer> in = {{"input", p.input_shape()}, {"weight", p.weight_shape()}};
      if (p.bias) in.push_back({"bias", p.bias_shape()});
      return in;
    }
    case Direction::kBackwardData:
      return {{"grad_output", p.output_shape()}, {"weight", p.weight_shape()}};
    case Direction::kBackwardWeight:
      return {{"input", p.input_shape()}, {"grad_output", p.output_shape()}};
  }
  return {};
}

ProtocolBuffer RequestResult(const ConvProblem& p, Direction d) {
  switch (d) {
    case Direction::kForward:
      return {"output", p.output_shape()};
    case Direction::kBackwardData:
      return {"grad_input", p.input_shape()};
    case Direction::kBackwardWeight:
      return {"grad_weight", p.weight_shape()};
  }
  return {};
}

json RunRequestJson(uint64_t id, const ConvProblem& p, Direction d, const Spelling& spelling) {
  const int r = p.rank;
  json problem = {
      {"rank", r}, {"transposed", p.transposed}, {"output", SpatialJson(p.output(), r)}};
  // The integer, enum and switch fields have the same names here (core/problem_fields.def).
  for (const IntegerField& f : kIntegerFields)
    problem[f.name] = f.count ? json(p.*f.count) : SpatialJson(p.*f.sizes, r);
#define CONVPARITY_ENUM(field, type, values, default_value, meaning, suts, part) \
  CONVPARITY_IF_given_##suts(problem[#field] = ProtocolName(values, p.field);)
#define CONVPARITY_SWITCH(field, ...) problem[#field] = p.field;
#include "core/problem_fields.def"
  json inputs = json::array();
  for (const ProtocolBuffer& b : RequestInputs(p, d)) inputs.push_back(BufferJson(b));
  json request = {{"type", "run"},
                  {"id", id},
                  {"direction", DirectionName(d)},
                  {"descriptor", CaseDescriptor(p, d)},
                  {"problem", problem},
                  {"inputs", inputs},
                  {"result", BufferJson(RequestResult(p, d))}};
  if (!spelling.plain()) request["spelling"] = SpellingToJson(spelling);
  return request;
}

json ModelRequestJson(uint64_t id, const ConvProblem& p, Direction d, const Spelling& spelling,
                      const std::string& format, size_t model_bytes, const Shape& input_shape,
                      const Shape& output_shape, const std::vector<ModelWeightInput>& weights) {
  json request = RunRequestJson(id, p, d, spelling);
  request["model"] = {{"format", format}, {"size", model_bytes}};
  request["inputs"] = json::array({BufferJson({"input", input_shape})});
  for (const ModelWeightInput& w : weights)
    request["inputs"].push_back(BufferJson({w.name, w.shape}));
  request["result"] = BufferJson({"output", output_shape});
  return request;
}

Result<ChildAnswer> ParseAnswer(const std::string& line, uint64_t id, const Shape& expected_shape) {
  const int64_t expected_count = NumElements(expected_shape);
  const json j = json::parse(line, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded() || !j.is_object() || !j.contains("type") || !j["type"].is_string())
    return Status::Invalid("expected an answer header, got '" + PrintableLine(line, 100) + "'");
  const std::string type = j["type"].get<std::string>();
  if (type != "ok" && type != "unsupported" && type != "error")
    return Status::Invalid("an answer's type is ok, unsupported or error, not '" +
                           PrintableLine(type, 40) + "'");
  if (!j.contains("id") || !j["id"].is_number_unsigned() || j["id"].get<uint64_t>() != id)
    return Status::Invalid("the answer to request " + std::to_string(id) + " has id " +
                           PrintableLine(j.value("id", json()).dump(), 40));
  ChildAnswer a;
  if (type == "ok") {
    a.kind = ChildAnswer::Kind::kOk;
    if (j.contains("implementation")) {
      if (!j["implementation"].is_string())
        return Status::Invalid("\"implementation\" must be a string");
      a.implementation = PrintableLine(j["implementation"].get<std::string>(), kMaxShownBytes);
    }
    if (j.contains("shape")) {
      const json& s = j["shape"];
      if (!s.is_array() || s.empty() || s.size() > 8 ||
          !std::all_of(s.begin(), s.end(), [](const json& v) { return v.is_number_unsigned(); }))
        return Status::Invalid("\"shape\" must be a list of 1 to 8 sizes, not " +
                               PrintableLine(s.dump(), 60));
      for (const json& v : s) a.shape.push_back(v.get<int64_t>());
      if (a.shape != expected_shape) {
        if (j.value("count", json()) != json(0))
          return Status::Invalid("an answer of another shape than the request's has count 0");
        return a;
      }
    }
    if (!j.contains("count") || !j["count"].is_number_integer() ||
        j["count"].get<int64_t>() != expected_count)
      return Status::Invalid("the result must have count " + std::to_string(expected_count) +
                             ", the child says " +
                             PrintableLine(j.value("count", json()).dump(), 40));
    a.count = expected_count;
    return a;
  }
  a.kind = type == "ok"            ? ChildAnswer::Kind::kOk
           : type == "unsupported" ? ChildAnswer::Kind::kUnsupported
                                   : ChildAnswer::Kind::kError;
  const char* key = a.kind == ChildAnswer::Kind::kUnsupported ? "reason" : "message";
  const json text = j.value(key, json(""));
  a.text = PrintableLine(text.is_string() ? text.get<std::string>() : text.dump(), kMaxShownBytes);
  return a;
}

}  // namespace convparity
