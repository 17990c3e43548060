// `convparity import-benchdnn <file>…`: benchdnn conv and deconv batch files into case files, with
// a summary of what was read, imported and skipped (why, how often, where first).
#include <cstdio>
#include <nlohmann/json.hpp>

#include "harness/cli/commands.h"
#include "harness/io/benchdnn_import.h"
#include "reports/json_values.h"

namespace convparity {
namespace {

constexpr const char* kImportSchema = "convparity.import/1";

nlohmann::json SummaryJson(const std::vector<std::string>& files, const ImportTally& t,
                           size_t problems, const WrittenCases& cases, const std::string& out) {
  nlohmann::json j = {{"schema", kImportSchema},
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
  return j;
}

void PrintSummary(const std::vector<std::string>& files, const ImportTally& t, size_t problems,
                  const WrittenCases& cases, const std::string& out) {
  std::printf("benchdnn import of %zu file%s: %lld problems read, %lld imported, %lld skipped\n",
              files.size(), files.size() == 1 ? "" : "s", static_cast<long long>(t.read),
              static_cast<long long>(t.imported), static_cast<long long>(t.SkippedTotal()));
  for (const auto& [reason, e] : t.skipped)
    std::printf("  skipped %7lld  %s; first %s: %s\n", static_cast<long long>(e.count),
                reason.c_str(), e.where.c_str(), e.what.c_str());
  for (const auto& [option, e] : t.ignored)
    std::printf("  ignored %7lld  %s: %s; first %s\n", static_cast<long long>(e.count),
                option.c_str(), e.what.c_str(), e.where.c_str());
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
    std::printf("%s",
                JsonFileText(SummaryJson(files, tally, problems.size(), *cases, out)).c_str());
  else
    PrintSummary(files, tally, problems.size(), *cases, out);
  return kExitParity;
}

}  // namespace convparity
