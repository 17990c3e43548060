// The convparity command line (INTERFACES.md). Parsing happens here; below main errors are values.
// Exit codes: 0 parity / success, 1 discrepancies, 2 usage or bad input, 3 internal error.
#include <CLI/CLI.hpp>
#include <cstdio>
#include <iostream>
#include <string>
#include <vector>

#include "core/descriptor.h"
#include "harness/campaign.h"
#include "harness/files.h"
#include "harness/sut_registry.h"

namespace convparity {
namespace {

constexpr int kExitParity = 0, kExitDiscrepancy = 1, kExitBadInput = 2, kExitInternal = 3;

int Fail(const Status& st) {
  std::fprintf(stderr, "convparity: %s\n", st.message().c_str());
  return st.code() == StatusCode::kInternal ? kExitInternal : kExitBadInput;
}

struct CommonFlags {
  std::vector<std::string> suts;
  std::vector<std::string> directions;
  std::string dims = "1,2,3";
  std::string fill = "both";
  uint64_t seed = 1;
  double seconds = 60;
  int64_t cases = 0;
  int64_t max_macs = 200000;
  std::string out = "convparity-out";
  bool quiet = false;
};

Result<std::vector<Fill>> FillsFor(const std::string& mode) {
  if (mode == "exact") return std::vector<Fill>{Fill::kExact};
  if (mode == "random") return std::vector<Fill>{Fill::kUniform, Fill::kPositive, Fill::kWide};
  if (mode == "both")
    return std::vector<Fill>{Fill::kExact, Fill::kUniform, Fill::kPositive, Fill::kWide};
  Result<Fill> one = ParseFill(mode);
  if (!one.ok())
    return Status::Invalid(
        "--fill: expected exact, random, both, uniform, positive or wide, got '" + mode + "'");
  return std::vector<Fill>{*one};
}

Result<std::vector<Direction>> DirectionsFor(const std::vector<std::string>& names) {
  std::vector<Direction> out;
  for (const std::string& n : names) {
    Result<Direction> d = ParseDirection(n);
    if (!d.ok()) return d.status().WithContext("--direction");
    out.push_back(*d);
  }
  return out;
}

Result<std::vector<int>> DimsFor(const std::string& text) {
  std::vector<int> dims;
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] == ',') continue;
    if (text[i] < '1' || text[i] > '3' || (i + 1 < text.size() && text[i + 1] != ','))
      return Status::Invalid("--dims: expected a list of 1, 2 and 3 like 1,2,3, got '" + text +
                             "'");
    dims.push_back(text[i] - '0');
  }
  if (dims.empty()) return Status::Invalid("--dims: empty");
  return dims;
}

int RunFuzz(const CommonFlags& f) {
  CampaignOptions o;
  o.suts = f.suts;
  Result<std::vector<Direction>> dirs = DirectionsFor(f.directions);
  if (!dirs.ok()) return Fail(dirs.status());
  o.directions = *dirs;
  Result<std::vector<int>> dims = DimsFor(f.dims);
  if (!dims.ok()) return Fail(dims.status());
  o.dims = *dims;
  Result<std::vector<Fill>> fills = FillsFor(f.fill);
  if (!fills.ok()) return Fail(fills.status());
  o.fills = *fills;
  o.seed = f.seed;
  o.seconds = f.seconds;
  o.max_cases = f.cases;
  o.max_macs = f.max_macs;
  o.quiet = f.quiet;
  const std::string corpus = f.out + "/corpus";
  Status write_error;
  Result<CampaignStats> stats = RunCampaign(o, [&](const Finding& finding) {
    Result<std::string> path = WriteCaseFile(corpus, finding.original);
    if (!path.ok()) write_error = path.status();
    std::printf("%s %s %s: %s: %s%s%s\n",
                CaseDescriptor(finding.original.problem, finding.original.direction).c_str(),
                finding.original.sut.c_str(), FillName(finding.original.fill),
                VerdictName(finding.outcome.verdict), finding.outcome.reason.c_str(),
                path.ok() ? " -> " : "", path.ok() ? path->c_str() : "");
    std::fflush(stdout);
  });
  if (!stats.ok()) return Fail(stats.status());
  if (!write_error.ok()) return Fail(write_error);
  std::printf("%lld cases in %.1f s (%.0f cases/s), %zu discrepancies\n",
              static_cast<long long>(stats->cases), stats->seconds, stats->cases / stats->seconds,
              stats->findings.size());
  for (const auto& [sut, counts] : stats->verdicts) {
    std::printf("  %-24s", sut.c_str());
    for (const auto& [verdict, n] : counts)
      std::printf(" %s=%lld", verdict.c_str(), static_cast<long long>(n));
    std::printf("\n");
  }
  return stats->findings.empty() ? kExitParity : kExitDiscrepancy;
}

// A case file, or a descriptor checked against the selected SUTs.
Result<std::vector<ConvCase>> CasesFor(const std::string& arg, const CommonFlags& f) {
  if (arg.size() > 5 && arg.substr(arg.size() - 5) == ".json") {
    Result<std::string> text = ReadFile(arg);
    if (!text.ok()) return text.status();
    Result<ConvCase> c = ParseCaseText(*text);
    if (!c.ok()) return c.status().WithContext(arg);
    return std::vector<ConvCase>{*c};
  }
  Result<ParsedDescriptor> parsed = ParseDescriptor(arg);
  if (!parsed.ok()) return parsed.status();
  Result<std::vector<Direction>> dirs = DirectionsFor(f.directions);
  if (!dirs.ok()) return dirs.status();
  std::vector<Direction> directions = parsed->direction ? std::vector<Direction>{*parsed->direction}
                                      : dirs->empty()   ? AllDirections()
                                                        : *dirs;
  Result<std::vector<Fill>> fills = FillsFor(f.fill == "both" ? "exact" : f.fill);
  if (!fills.ok()) return fills.status();
  std::vector<ConvCase> cases;
  for (const std::string& sut : f.suts.empty() ? std::vector<std::string>{"direct"} : f.suts)
    for (Direction d : directions)
      for (Fill fill : *fills) cases.push_back(ConvCase{parsed->problem, d, sut, fill, f.seed});
  return cases;
}

int RunRepro(const std::vector<std::string>& args, const CommonFlags& f) {
  bool discrepancy = false;
  for (const std::string& arg : args) {
    Result<std::vector<ConvCase>> cases = CasesFor(arg, f);
    if (!cases.ok()) return Fail(cases.status());
    for (const ConvCase& c : *cases) {
      Result<std::unique_ptr<ConvSut>> sut = MakeSut(c.sut);
      if (!sut.ok()) return Fail(sut.status());
      CaseOutcome out = CheckCase(c, **sut);
      if (out.verdict == Verdict::kInvalid) return Fail(Status::Invalid(arg + ": " + out.reason));
      discrepancy |= IsDiscrepancy(out.verdict);
      std::printf("%s %s %s seed=%llu: %s%s%s\n", CaseDescriptor(c.problem, c.direction).c_str(),
                  c.sut.c_str(), FillName(c.fill), static_cast<unsigned long long>(c.seed),
                  VerdictName(out.verdict), out.reason.empty() ? "" : ": ", out.reason.c_str());
      const Judgement& j = out.judgement;
      if (IsDiscrepancy(out.verdict) && j.first)
        std::printf("  first mismatch at %s: expected %.9g, got %.9g, error %.3g, bound %.3g\n",
                    FormatIndex(j.first->index).c_str(), j.first->expected, j.first->got,
                    j.first->error, j.first->bound);
    }
  }
  return discrepancy ? kExitDiscrepancy : kExitParity;
}

int RunList() {
  std::printf("systems under test:\n");
  for (const auto& [name, what] : ListSuts())
    std::printf("  %-36s %s\n", name.c_str(), what.c_str());
  std::printf(
      "directions: fwd bwd_data bwd_weight\nfills: exact uniform positive wide (random = the last "
      "three)\n");
  return kExitParity;
}

void AddCommonFlags(CLI::App* cmd, CommonFlags& f) {
  cmd->add_option("--sut", f.suts, "system under test (repeatable; default: all of ours)");
  cmd->add_option("--direction", f.directions, "fwd, bwd_data or bwd_weight (repeatable)");
  cmd->add_option("--dims", f.dims, "spatial ranks, e.g. 1,2,3");
  cmd->add_option("--fill", f.fill, "exact, random or both");
  cmd->add_option("--seed", f.seed, "campaign / case seed");
  cmd->add_option("--time", f.seconds, "campaign duration in seconds");
  cmd->add_option("--cases", f.cases, "stop after this many cases");
  cmd->add_option("--max-macs", f.max_macs, "size cap of generated problems");
  cmd->add_option("--out", f.out, "output folder");
  cmd->add_flag("--quiet", f.quiet, "no progress lines");
}

int Main(int argc, char** argv) {
  CLI::App app{
      "convparity: differential conformance and fuzz testing of convolutions against LibTorch"};
  app.require_subcommand(1);
  CommonFlags flags;
  std::vector<std::string> repro_args;
  CLI::App* fuzz = app.add_subcommand("fuzz", "run a fuzz campaign");
  AddCommonFlags(fuzz, flags);
  CLI::App* repro = app.add_subcommand("repro", "re-run cases (case files or descriptors)");
  AddCommonFlags(repro, flags);
  repro->add_option("cases", repro_args, "case.json files or descriptors")->required();
  app.add_subcommand("list", "the systems under test and directions available");
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    std::fprintf(stderr, "convparity: %s\n", e.what());
    return kExitBadInput;
  }
  if (fuzz->parsed()) return RunFuzz(flags);
  if (repro->parsed()) return RunRepro(repro_args, flags);
  return RunList();
}

}  // namespace
}  // namespace convparity

int main(int argc, char** argv) {
  try {
    return convparity::Main(argc, argv);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "convparity: internal error: %s\n", e.what());
    return 3;
  }
}
