#include "reports/report_json.h"

#include <cstdint>
#include <cstdio>
#include <vector>

#include "core/descriptor.h"
#include "reports/json_values.h"
#include "reports/python_snippet.h"
#include "reports/utf8.h"

namespace convparity {
namespace {

using nlohmann::json;

std::string BucketOf(const Finding& f) {
  return f.bucket.empty()
             ? BucketSignature(f.minimized, f.outcome.verdict, f.outcome.judgement.symptom)
             : f.bucket;
}

// POSIX shell quoting: plain words stay bare, anything else goes in single quotes.
std::string ShellQuote(const std::string& s) {
  bool plain = !s.empty();
  for (char c : s) {
    bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
    for (char extra : std::string("_-./:=+,@%")) ok = ok || c == extra;
    plain = plain && ok;
  }
  if (plain) return s;
  std::string out = "'";
  for (char c : s) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

// Which tensor a direction judges, and the names of its logical axes (PyTorch's order; the
// coordinates of `first` and `worst` follow it).
const char* TensorName(Direction d) {
  switch (d) {
    case Direction::kForward:
      return "output";
    case Direction::kBackwardData:
      return "grad_input";
    case Direction::kBackwardWeight:
      return "grad_weight";
  }
  return "?";
}

std::vector<std::string> Axes(const ConvProblem& p, Direction d) {
  static const char* const kSpatial[] = {"d", "h", "w"};
  std::vector<std::string> axes;
  if (d == Direction::kBackwardWeight)
    axes = p.transposed ? std::vector<std::string>{"i", "o"} : std::vector<std::string>{"o", "i"};
  else
    axes = {"n", "c"};
  const int rank = p.rank < 0 ? 0 : (p.rank > kMaxSpatialRank ? kMaxSpatialRank : p.rank);
  for (int i = 0; i < rank; ++i) axes.push_back(kSpatial[kMaxSpatialRank - rank + i]);
  return axes;
}

json ElementJson(const std::optional<ElementReport>& e) {
  if (!e) return nullptr;
  return {{"index", e->index},
          {"expected", RealToJson(e->expected)},
          {"got", RealToJson(e->got)},
          {"error", RealToJson(e->error)},
          {"bound", RealToJson(e->bound)}};
}

json MetricsJson(const ConvCase& c, const Judgement& j) {
  const double share = j.elements > 0 ? static_cast<double>(j.mismatches) / j.elements : 0.0;
  json metrics = {{"tensor", TensorName(c.direction)},
                  {"axes", Axes(c.problem, c.direction)},
                  {"shape", ResultShape(c.problem, c.direction)},
                  {"elements", j.elements},
                  {"mismatches", j.mismatches},
                  {"mismatch_share", RealToJson(share)},
                  {"unwritten", j.unwritten},
                  {"max_abs_error", RealToJson(j.max_abs_error)},
                  {"max_bound_use", RealToJson(j.max_bound_use)},
                  {"max_rel_error", RealToJson(j.max_rel_error)},
                  {"zero_share", RealToJson(j.zero_share)},
                  {"first", ElementJson(j.first)},
                  {"worst", ElementJson(j.worst)}};
  if (j.symptom != Symptom::kNone) metrics["symptom"] = SymptomName(j.symptom);
  return metrics;
}

// What the SUT said about its run (RunNotes); absent when it said nothing.
void AddRunNotes(const RunNotes& notes, json* object) {
  if (notes.empty()) return;
  (*object)["run"] = {{"implementation", notes.implementation}, {"inexact", notes.inexact}};
}

// 64-bit FNV-1a: tiny, and the same on every platform and compiler, so names stay stable.
uint64_t Fnv1a(const std::string& s) {
  uint64_t h = 0xcbf29ce484222325ull;
  for (unsigned char c : s) {
    h ^= c;
    h *= 0x100000001b3ull;
  }
  return h;
}

}  // namespace

std::string DescriptorReproCommand(const ConvCase& c) {
  // A descriptor never needs quoting, but quoted it reads as one argument at a glance.
  return "convparity repro '" + CaseDescriptor(c.problem, c.direction) + "' --sut " +
         ShellQuote(c.sut) + " --fill " + FillName(c.fill) + " --seed " + std::to_string(c.seed);
}

json ReportJson(const Finding& f, const ToolInfo& tool, const std::string& case_file,
                const SnippetValues* snippet_values, const std::string& repro_flags) {
  const ConvCase& m = f.minimized;
  const std::string descriptor_command = DescriptorReproCommand(m) + repro_flags;
  json repro = {
      {"case_file", case_file.empty() ? json(nullptr) : json(case_file)},
      {"command", case_file.empty() ? descriptor_command
                                    : "convparity repro " + ShellQuote(case_file) + repro_flags},
      // A transform case's graphs, a graph form, a case's algorithm and its spelling live only in
      // its case file.
      {"descriptor_command", !m.transform && *m.graph == ConvForm() &&
                                     m.algorithm == Algorithm::kDirect && m.spelling.plain()
                                 ? json(descriptor_command)
                                 : json()}};
  json report = {{"schema", kReportSchema},
                 {"tool",
                  {{"name", kToolName},
                   {"version", tool.version},
                   {"libtorch_version", tool.torch_version},
                   {"oracle_backend", tool.oracle_backend}}},
                 {"sut", m.sut},
                 {"direction", DirectionName(m.direction)},
                 {"verdict", VerdictName(f.outcome.verdict)},
                 {"reason", f.outcome.reason},
                 {"bucket", BucketOf(f)},
                 {"descriptor", CaseDescriptor(m.problem, m.direction)},
                 {"case", CaseToJson(m)},
                 {"metrics", MetricsJson(m, f.outcome.judgement)},
                 {"original",
                  {{"descriptor", CaseDescriptor(f.original.problem, f.original.direction)},
                   {"case", CaseToJson(f.original)},
                   {"verdict", VerdictName(f.original_outcome.verdict)},
                   {"reason", f.original_outcome.reason},
                   {"metrics", MetricsJson(f.original, f.original_outcome.judgement)}}},
                 {"shrink_steps", f.shrink_steps},
                 {"repro", repro},
                 {"python", PythonSnippet(m, snippet_values, &f.outcome.judgement)}};
  AddRunNotes(f.outcome.notes, &report);
  AddRunNotes(f.original_outcome.notes, &report["original"]);
  if (!f.graph_before.empty() || !f.graph_after.empty())
    report["transform"] = {{"pipeline", f.transform_pipeline},
                           {"graph_before", f.graph_before},
                           {"graph_after", f.graph_after}};
  MakeValidUtf8(&report);  // reasons and names may come from a plugin: any bytes
  return report;
}

std::string ReportFileName(const Finding& f) {
  const std::string bucket = BucketOf(f);
  constexpr size_t kMaxReadable = 140;
  std::string name;
  for (char c : bucket) {
    if (name.size() >= kMaxReadable) break;
    if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' ||
        c == '-' || c == '_')
      name += c;
    else if (c == '>')
      name += "gt";  // "stride>1" → "stridegt1": keeps the tag readable
    else if (c == ':')
      name += '-';
    else
      name += '_';
  }
  if (name.empty() || name[0] == '.') name.insert(0, "_");  // never hidden, never "." or ".."
  char hash[17];
  std::snprintf(hash, sizeof hash, "%016llx", static_cast<unsigned long long>(Fnv1a(bucket)));
  return name + "-" + hash + ".json";
}

}  // namespace convparity
