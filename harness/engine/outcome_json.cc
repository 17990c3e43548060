#include "harness/engine/outcome_json.h"

#include <cmath>

namespace convparity {
namespace {

// JSON has no infinity or NaN: they travel as strings.
nlohmann::json Number(double v) {
  if (std::isnan(v)) return "nan";
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  return v;
}

double NumberFrom(const nlohmann::json& j) {
  if (j.is_string()) {
    const std::string s = j.get<std::string>();
    if (s == "inf") return INFINITY;
    if (s == "-inf") return -INFINITY;
    return NAN;
  }
  return j.get<double>();
}

nlohmann::json ElementToJson(const ElementReport& e) {
  return {{"index", e.index},
          {"expected", Number(e.expected)},
          {"got", Number(e.got)},
          {"error", Number(e.error)},
          {"bound", Number(e.bound)}};
}

ElementReport ElementFromJson(const nlohmann::json& j) {
  return {j.at("index").get<Shape>(), NumberFrom(j.at("expected")), NumberFrom(j.at("got")),
          NumberFrom(j.at("error")), NumberFrom(j.at("bound"))};
}

}  // namespace

Result<Verdict> ParseVerdict(const std::string& name) {
  for (int v = 0; v <= static_cast<int>(kLastVerdict); ++v)
    if (name == VerdictName(static_cast<Verdict>(v))) return static_cast<Verdict>(v);
  return Status::Invalid("unknown verdict '" + name + "'");
}

nlohmann::json OutcomeToJson(const CaseOutcome& out) {
  const Judgement& j = out.judgement;
  nlohmann::json judgement = {{"verdict", VerdictName(j.verdict)},
                              {"elements", j.elements},
                              {"mismatches", j.mismatches},
                              {"unwritten", j.unwritten},
                              {"max_abs_error", Number(j.max_abs_error)},
                              {"max_bound_use", Number(j.max_bound_use)},
                              {"max_rel_error", Number(j.max_rel_error)},
                              {"zero_share", Number(j.zero_share)},
                              {"data_zero_share", Number(j.data_zero_share)},
                              {"symptom", SymptomName(j.symptom)}};
  if (j.first) judgement["first"] = ElementToJson(*j.first);
  if (j.worst) judgement["worst"] = ElementToJson(*j.worst);
  const CaseTiming& t = out.timing;
  nlohmann::json json = {{"verdict", VerdictName(out.verdict)},
                         {"reason", out.reason},
                         {"judgement", judgement},
                         {"timing", {t.fill, t.oracle, t.sut, t.compare}}};
  if (!out.notes.empty())
    json["notes"] = {{"implementation", out.notes.implementation}, {"inexact", out.notes.inexact}};
  return json;
}

Result<CaseOutcome> OutcomeFromJson(const nlohmann::json& json) {
  try {
    CaseOutcome out;
    Result<Verdict> v = ParseVerdict(json.at("verdict").get<std::string>());
    if (!v.ok()) return v.status();
    out.verdict = *v;
    out.reason = json.at("reason").get<std::string>();
    const nlohmann::json& j = json.at("judgement");
    Result<Verdict> jv = ParseVerdict(j.at("verdict").get<std::string>());
    if (!jv.ok()) return jv.status();
    Judgement& g = out.judgement;
    g.verdict = *jv;
    g.elements = j.at("elements").get<int64_t>();
    g.mismatches = j.at("mismatches").get<int64_t>();
    g.unwritten = j.at("unwritten").get<int64_t>();
    g.max_abs_error = NumberFrom(j.at("max_abs_error"));
    g.max_bound_use = NumberFrom(j.at("max_bound_use"));
    g.max_rel_error = NumberFrom(j.at("max_rel_error"));
    g.zero_share = NumberFrom(j.at("zero_share"));
    g.data_zero_share = NumberFrom(j.at("data_zero_share"));
    Result<Symptom> symptom = ParseSymptom(j.at("symptom").get<std::string>());
    if (!symptom.ok()) return symptom.status();
    g.symptom = *symptom;
    if (j.contains("first")) g.first = ElementFromJson(j.at("first"));
    if (j.contains("worst")) g.worst = ElementFromJson(j.at("worst"));
    const nlohmann::json& t = json.at("timing");
    out.timing = {t.at(0).get<double>(), t.at(1).get<double>(), t.at(2).get<double>(),
                  t.at(3).get<double>()};
    if (json.contains("notes")) {
      const nlohmann::json& n = json.at("notes");
      out.notes.implementation = n.at("implementation").get<std::string>();
      out.notes.inexact = n.at("inexact").get<bool>();
    }
    return out;
  } catch (const nlohmann::json::exception& e) {
    return Status::Internal(std::string("malformed outcome from a worker: ") + e.what());
  }
}

}  // namespace convparity
