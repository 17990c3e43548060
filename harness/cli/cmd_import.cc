// `convparity import-benchdnn <file>…` and `import-onnx <model>…`: benchdnn conv and deconv batch
// files, and ONNX models' convolutions, into case files, with a summary of what was read, imported
// and skipped (why, how often, where first).
#include <cstdio>
#include <nlohmann/json.hpp>

#include "harness/cli/commands.h"
#include "harness/io/benchdnn_import.h"
#include "harness/io/onnx_import.h"
#include "reports/json_values.h"

namespace convparity {
namespace {

constexpr const char* kImportSchema = "convparity.import/1";

// What an import reads, as its summary names it.
struct ImportKind {
  const char* format;  // "benchdnn", "onnx": the summary's format and the cases' origin.format
  const char* title;   // "benchdnn import"
  const char* read;    // what it reads: "problems", "conv nodes"
  const char* one;     // one of them (benchdnn's summary says "1 problems", as ever)
};
constexpr ImportKind kBenchdnnImport{"benchdnn", "benchdnn import", "problems", "problems"};
constexpr ImportKind kOnnxImport{"onnx", "ONNX import", "conv nodes", "conv node"};

nlohmann::json SummaryJson(const ImportKind& kind, const std::vector<std::string>& files,
                           const ImportTally& t, size_t problems, const WrittenCases& cases,
                           const std::string& out) {
  nlohmann::json j = {{"schema", kImportSchema},
                      {"format", kind.format},
                      {"files", files},
                      {"read", t.read},
                      {"imported", t.imported},
                      {"skipped", t.SkippedTotal()},
                      {"problems", problems},
                      {"cases", {{"written", cases.written}, {"files", cases.distinct}}},
                      {"corpus", out}};
  if (cases.distinct < 0) {  // --dry-run
    j["cases"] = {{"counted", cases.written}};
    j["corpus"] = nullptr;
  }
  j["skipped_by_reason"] = nlohmann::json::array();
  for (const auto& [reason, e] : t.skipped)
    j["skipped_by_reason"].push_back(
        {{"reason", reason}, {"count", e.count}, {"first", e.where}, {"what", e.what}});
  j["ignored_options"] = nlohmann::json::array();
  for (const auto& [option, e] : t.ignored)
    j["ignored_options"].push_back(
        {{"option", option}, {"count", e.count}, {"first", e.where}, {"why", e.what}});
  j["changed_by_reason"] = nlohmann::json::array();
  for (const auto& [reason, e] : t.changed)
    j["changed_by_reason"].push_back(
        {{"reason", reason}, {"count", e.count}, {"first", e.where}, {"what", e.what}});
  return j;
}

void PrintSummary(const ImportKind& kind, const std::vector<std::string>& files,
                  const ImportTally& t, size_t problems, const WrittenCases& cases,
                  const std::string& out) {
  std::printf("%s of %zu file%s: %lld %s read, %lld imported, %lld skipped\n", kind.title,
              files.size(), files.size() == 1 ? "" : "s", static_cast<long long>(t.read),
              t.read == 1 ? kind.one : kind.read, static_cast<long long>(t.imported),
              static_cast<long long>(t.SkippedTotal()));
  for (const auto& [reason, e] : t.skipped)
    std::printf("  skipped %7lld  %s; first %s: %s\n", static_cast<long long>(e.count),
                reason.c_str(), e.where.c_str(), e.what.c_str());
  for (const auto& [option, e] : t.ignored)
    std::printf("  ignored %7lld  %s: %s; first %s\n", static_cast<long long>(e.count),
                option.c_str(), e.what.c_str(), e.where.c_str());
  for (const auto& [reason, e] : t.changed)
    std::printf("  changed %7lld  %s; first %s: %s\n", static_cast<long long>(e.count),
                reason.c_str(), e.where.c_str(), e.what.c_str());
  if (cases.distinct < 0)
    std::printf("%zu problems, %lld cases (none written: --dry-run)\n", problems,
                static_cast<long long>(cases.written));
  else
    std::printf("%zu problems, %lld cases written to %s (%lld files: equal cases share one)\n",
                problems, static_cast<long long>(cases.written), out.c_str(),
                static_cast<long long>(cases.distinct));
}

}  // namespace

int RunImportBenchdnn(const std::vector<std::string>& files, const Flags& f, const Limits& limits) {
  const ScaleOptions scale{f.max_batch, f.max_spatial, f.scale_macs};
  const std::string& driver = f.driver;
  Result<std::vector<Direction>> dirs = DirectionsFor(f.directions);
  if (!dirs.ok()) return Fail(dirs.status());
  Result<std::vector<Fill>> fills = FillsFor(f.fill);
  if (!fills.ok()) return Fail(fills.status());
  if (f.suts.size() > 1) return Fail(Status::Invalid("import-benchdnn: give at most one --sut"));
  if (driver != "auto" && driver != "conv" && driver != "deconv")
    return Fail(Status::Invalid("--driver is '" + driver + "', expected conv, deconv or auto"));
  const std::string sut = f.suts.empty() ? "direct" : f.suts[0];
  const std::string out = f.corpus.empty() ? f.out + "/corpus" : f.corpus;
  ImportOptions options;
  options.directions = *dirs;
  options.scale = scale;
  options.case_limits = limits;
  if (driver != "auto") options.deconv = driver == "deconv";
  ImportTally tally;
  std::vector<BenchdnnProblem> problems;
  for (const std::string& file : files) {
    Result<BenchdnnImport> read = ImportBenchdnnFile(file, options);
    if (!read.ok()) return Fail(read.status());
    tally.Merge(read->tally);
    problems.insert(problems.end(), read->problems.begin(), read->problems.end());
    if (problems.size() > options.max_problems)
      return Fail(Status::Limit("more than " + std::to_string(options.max_problems) +
                                " problems imported; import fewer files at once"));
  }
  const std::vector<Direction>& directions = dirs->empty() ? AllDirections() : *dirs;
  Result<WrittenCases> cases = WrittenCases{};
  if (f.dry_run) {
    for (const BenchdnnProblem& b : problems)
      cases.value().written += (b.direction ? 1 : directions.size()) * fills->size();
    cases.value().distinct = -1;  // unknown without writing
  } else {
    cases = WriteImportedCases(problems, directions, *fills, sut, out, f.seed);
  }
  if (!cases.ok()) return Fail(cases.status());
  if (f.json)
    std::printf(
        "%s", JsonFileText(SummaryJson(kBenchdnnImport, files, tally, problems.size(), *cases, out))
                  .c_str());
  else
    PrintSummary(kBenchdnnImport, files, tally, problems.size(), *cases, out);
  return kExitParity;
}

int RunImportOnnx(const std::vector<std::string>& files, const Flags& f, const Limits& limits) {
  Result<std::vector<Direction>> dirs = DirectionsFor(f.directions);
  if (!dirs.ok()) return Fail(dirs.status());
  Result<std::vector<Fill>> fills = FillsFor(f.fill);
  if (!fills.ok()) return Fail(fills.status());
  if (f.suts.size() > 1) return Fail(Status::Invalid("import-onnx: give at most one --sut"));
  const std::string sut = f.suts.empty() ? "direct" : f.suts[0];
  const std::string out = f.corpus.empty() ? f.out + "/corpus" : f.corpus;
  OnnxImportOptions options;
  options.scale = {f.max_batch, f.max_spatial, f.scale_macs};
  options.case_limits = limits;
  ImportTally tally;
  std::vector<OnnxProblem> problems;
  for (const std::string& file : files) {
    Result<OnnxImport> read = ImportOnnxFile(file, options);
    if (!read.ok()) return Fail(read.status());
    tally.Merge(read->tally);
    problems.insert(problems.end(), read->problems.begin(), read->problems.end());
    if (problems.size() > options.max_problems)
      return Fail(Status::Limit("more than " + std::to_string(options.max_problems) +
                                " problems imported; import fewer models at once"));
  }
  // A node is a forward convolution; its cases are written for every direction asked for (all
  // by default, as for a benchdnn problem without --dir).
  const std::vector<Direction>& directions = dirs->empty() ? AllDirections() : *dirs;
  Result<WrittenCases> cases = WrittenCases{};
  if (f.dry_run) {
    cases.value().written =
        static_cast<int64_t>(problems.size() * directions.size() * fills->size());
    cases.value().distinct = -1;  // unknown without writing
  } else {
    cases = WriteOnnxCases(problems, directions, *fills, sut, out, f.seed);
  }
  if (!cases.ok()) return Fail(cases.status());
  if (f.json)
    std::printf(
        "%s",
        JsonFileText(SummaryJson(kOnnxImport, files, tally, problems.size(), *cases, out)).c_str());
  else
    PrintSummary(kOnnxImport, files, tally, problems.size(), *cases, out);
  return kExitParity;
}

}  // namespace convparity
