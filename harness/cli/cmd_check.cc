// `convparity check` (the CI gate) and `convparity repro`: replay cases and say what differs.
#include <chrono>
#include <cstdio>
#include <set>

#include "core/descriptor.h"
#include "core/tensor.h"
#include "harness/cli/commands.h"
#include "harness/engine/case_runner.h"
#include "harness/engine/check_case.h"
#include "harness/engine/summary_counts.h"
#include "harness/engine/tool_info.h"
#include "harness/io/case_files.h"
#include "harness/io/files.h"
#include "harness/suts/sut_config.h"
#include "harness/suts/sut_registry.h"
#include "reports/json_values.h"
#include "reports/junit_xml.h"
#include "reports/summary_json.h"

namespace convparity {
namespace {

std::string CaseLine(const ConvCase& c) {
  return CaseTitle(c) + " " + c.sut + " " + FillName(c.fill) + " seed=" + std::to_string(c.seed);
}

// " [jit:avx2]", " [jit_wino_4x3:avx512_core, inexact]" or "": what the SUT said about its run.
std::string NotesText(const RunNotes& notes) {
  if (notes.empty()) return "";
  std::string text = notes.implementation;
  if (notes.inexact) text += std::string(text.empty() ? "" : ", ") + "inexact";
  return " [" + text + "]";
}

void PrintDetail(const CaseOutcome& out) {
  const Judgement& j = out.judgement;
  if (!IsDiscrepancy(out.verdict) || !j.first) return;
  for (auto [what, e] : {std::pair{"first", *j.first}, {"worst", *j.worst}})
    std::printf("  %s mismatch at %s: expected %.9g, got %.9g, error %.3g, bound %.3g\n", what,
                ShapeText(e.index).c_str(), e.expected, e.got, e.error, e.bound);
  std::printf("  %lld of %lld elements differ, max bound use %.3g\n",
              static_cast<long long>(j.mismatches), static_cast<long long>(j.elements),
              j.max_bound_use);
}

// A descriptor on the command line stands for one case per selected SUT, direction and fill.
Result<std::vector<ConvCase>> CasesFromDescriptor(const std::string& text, const Flags& f) {
  Result<ParsedDescriptor> parsed = ParseDescriptor(text);
  if (!parsed.ok()) return parsed.status();
  Result<std::vector<Direction>> dirs = DirectionsFor(f.directions);
  if (!dirs.ok()) return dirs.status();
  const std::vector<Direction> directions = parsed->direction
                                                ? std::vector<Direction>{*parsed->direction}
                                                : (dirs->empty() ? AllDirections() : *dirs);
  Result<std::vector<Fill>> fills = FillsFor(f.fill == "both" ? "exact" : f.fill);
  if (!fills.ok()) return fills.status();
  std::vector<ConvCase> cases;
  for (const std::string& sut : f.suts.empty() ? std::vector<std::string>{"direct"} : f.suts)
    for (Direction d : directions)
      for (Fill fill : *fills) {
        cases.push_back(ConvCase{parsed->problem, d, sut, fill, f.seed});
        cases.back().graph = FindGraphForm(f.graph);  // the flag's validator knows the names
      }
  return cases;
}

// Bad input before any worker starts or anything is allocated: an illegal convolution or one over
// the limits (exit 2, naming `where` and the limit's flag).
Status CheckCaseLimits(const ConvCase& c, const CheckContext& context, const std::string& where) {
  return CheckCaseLimits(c, context.limits).WithContext(where);
}

// An unknown SUT, or a plugin that does not load, is bad input too: made once here (as a campaign
// does) rather than reported by a worker as an invalid verdict of every case.
Status CheckSutNames(const std::vector<ConvCase>& cases, const SutConfig& config) {
  std::set<std::string> seen;
  for (const ConvCase& c : cases)
    if (seen.insert(c.sut).second)
      if (Result<std::unique_ptr<Sut>> sut = MakeSut(c.sut, config); !sut.ok()) return sut.status();
  return Status::Ok();
}

// A case file's case as it is replayed: with --sut, once on each SUT named instead of its own (a
// corpus replayed on another library, or on another build of one through --sut-map). Its
// expectation is its own SUT's; on another SUT it is expected to pass (or to be mistrusted where
// it expects that: a property of its data, not of a SUT), and a decline is a skip there, not a
// failure (the corpus was not drawn for that SUT).
struct Replayed {
  ConvCase c;
  bool on_other_sut = false;
};
std::vector<Replayed> AsReplayed(const ConvCase& c, const Flags& f) {
  if (f.suts.empty()) return {{c, false}};
  std::vector<Replayed> out;
  for (const std::string& sut : f.suts) {
    Replayed r{c, sut != c.sut};
    r.c.sut = sut;
    if (r.on_other_sut && c.expect != Verdict::kMistrusted) r.c.expect = Verdict::kPassed;
    out.push_back(std::move(r));
  }
  return out;
}

}  // namespace

int RunRepro(const std::vector<std::string>& args, const Flags& f, const CheckContext& context) {
  std::vector<ConvCase> cases;
  for (const std::string& arg : args) {
    const bool is_file = arg.size() > 5 && arg.compare(arg.size() - 5, 5, ".json") == 0;
    if (is_file) {
      Result<std::vector<LoadedCase>> loaded = LoadCaseFiles({arg});
      if (!loaded.ok()) return Fail(loaded.status());
      for (const LoadedCase& l : *loaded) {
        // A case file is data: before anything is made, its SUT must be one the user allowed
        // (the SUTs of --sut were typed by the user).
        if (f.suts.empty())
          if (Status st = context.suts.AllowsFromCaseFile(l.c.sut).WithContext(l.source); !st.ok())
            return Fail(st);
        if (Status st = CheckCaseLimits(l.c, context, l.source); !st.ok()) return Fail(st);
        for (const Replayed& r : AsReplayed(l.c, f)) cases.push_back(r.c);
      }
    } else {
      Result<std::vector<ConvCase>> from = CasesFromDescriptor(arg, f);
      if (!from.ok()) return Fail(from.status());
      for (const ConvCase& c : *from)
        if (Status st = CheckCaseLimits(c, context, CaseDescriptor(c.problem, c.direction));
            !st.ok())
          return Fail(st);
      cases.insert(cases.end(), from->begin(), from->end());
    }
  }
  if (Status st = CheckSutNames(cases, context.suts); !st.ok()) return Fail(st);
  const std::vector<CaseOutcome> outcomes = RunCases(cases, RunnerFor(f, context));
  bool discrepancy = false;
  for (size_t i = 0; i < cases.size(); ++i) {
    const CaseOutcome& out = outcomes[i];
    if (out.verdict == Verdict::kInvalid)
      return Fail(Status::Invalid(CaseDescriptor(cases[i].problem, cases[i].direction) + ": " +
                                  out.reason));
    discrepancy |= IsDiscrepancy(out.verdict);
    std::printf("%s: %s%s%s%s\n", CaseLine(cases[i]).c_str(), VerdictName(out.verdict),
                NotesText(out.notes).c_str(), out.reason.empty() ? "" : ": ", out.reason.c_str());
    PrintDetail(out);
  }
  return discrepancy ? kExitDiscrepancy : kExitParity;
}

int RunCheck(const std::vector<std::string>& args, const Flags& f, const CheckContext& context) {
  const std::string& junit_path = f.junit;
  const std::string& summary_path = f.summary;
  const auto start = std::chrono::steady_clock::now();
  Result<CaseFiles> read = ReadCaseFiles(args);
  if (!read.ok()) return Fail(read.status());
  // A file that is not a case, or whose case is illegal or over the limits, does not stop the
  // gate: it is one line on stderr, an error in the JUnit file and the summary, and exit 2, while
  // every other case is replayed.
  std::vector<UnreadFile> invalid = read->unread;
  std::vector<LoadedCase> loaded;
  for (const LoadedCase& l : read->cases) {
    if (Status st = CheckCaseLimits(l.c, context, l.source); st.ok())
      loaded.push_back(l);
    else
      invalid.push_back({l.source, st});
  }
  for (const UnreadFile& u : invalid) Fail(u.status);  // its line on stderr
  std::vector<ConvCase> cases;
  std::vector<std::string> sources;
  std::vector<bool> on_other_sut;
  for (const LoadedCase& l : loaded)
    for (const Replayed& r : AsReplayed(l.c, f)) {
      cases.push_back(r.c);
      sources.push_back(l.source);
      on_other_sut.push_back(r.on_other_sut);
    }
  // A case file is data: every SUT must be one the user allowed, before any is made (the SUTs of
  // --sut were typed by the user).
  if (f.suts.empty())
    if (Status st = CheckCaseSutsAllowed(cases, sources, context.suts); !st.ok()) return Fail(st);
  if (Status st = CheckSutNames(cases, context.suts); !st.ok()) return Fail(st);
  const std::vector<CaseOutcome> outcomes = RunCases(cases, RunnerFor(f, context));
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();

  int64_t passed = 0, failed = 0;
  std::vector<JUnitCase> junit;
  CampaignSummary summary;
  summary.options.jobs = JobsFor(f);
  summary.workers = JobsFor(f);
  for (const UnreadFile& u : invalid) {
    JUnitCase j;
    j.classname = "convparity.invalid_file";
    j.name = u.source;
    j.status = JUnitCase::kError;
    j.message = OneLine(u.status.message());
    j.detail = u.source;
    junit.push_back(std::move(j));
    summary.invalid_files.push_back({u.source, OneLine(u.status.message())});
  }
  for (size_t i = 0; i < cases.size(); ++i) {
    const ConvCase& c = cases[i];
    const CaseOutcome& out = outcomes[i];
    CountCase(&summary, c, out);
    // Exact: a known bug's witness must still show its symptom (a crash or a hang is not the
    // wrong values it was kept for), and a skip passes only where the case expects one or runs on
    // another SUT than its own (AsReplayed). No case expects invalid (core/verdict.h): an illegal
    // convolution proves nothing either way.
    const bool as_expected =
        out.verdict == c.expect || (on_other_sut[i] && out.verdict == Verdict::kSkipped);
    (as_expected ? passed : failed)++;
    std::string message = std::string("expected ") + VerdictName(c.expect) + ", got " +
                          VerdictName(out.verdict) + (out.reason.empty() ? "" : ": " + out.reason);
    if (!as_expected) {
      std::printf("UNEXPECTED %s: %s: %s\n", sources[i].c_str(), CaseLine(c).c_str(),
                  message.c_str());
      PrintDetail(out);
    } else if (!f.quiet && out.verdict == Verdict::kSkipped) {
      std::printf("skipped %s: %s\n", sources[i].c_str(), out.reason.c_str());
    }
    JUnitCase j;
    j.classname = "convparity." + c.sut;
    j.name = CaseLine(c) + (c.note.empty() ? "" : " (" + c.note + ")");
    j.seconds = out.timing.fill + out.timing.oracle + out.timing.sut + out.timing.compare;
    j.status = !as_expected                       ? JUnitCase::kFailed
               : out.verdict == Verdict::kSkipped ? JUnitCase::kSkipped
                                                  : JUnitCase::kPassed;
    j.message = message;
    j.detail = sources[i];
    junit.push_back(std::move(j));
  }
  if (!junit_path.empty())
    if (Status st = WriteFileAtomically(junit_path, JUnitXml(junit, "convparity check", seconds));
        !st.ok())
      return Fail(st);
  if (!summary_path.empty()) {
    summary.elapsed_seconds = seconds;
    summary.end_time = std::chrono::system_clock::now();
    summary.start_time =
        summary.end_time - std::chrono::duration_cast<std::chrono::system_clock::duration>(
                               std::chrono::duration<double>(seconds));
    if (Status st = WriteFileAtomically(summary_path,
                                        JsonFileText(SummaryJson(summary, CurrentToolInfo())));
        !st.ok())
      return Fail(st);
  }
  // Nothing on stdout when nothing was replayed: one bad file named alone is one line, as before.
  if (!cases.empty() || invalid.empty()) {
    std::printf("check: %zu cases in %.1f s", cases.size(), seconds);
    if (!invalid.empty())
      std::printf("; %zu invalid case file%s", invalid.size(), invalid.size() == 1 ? "" : "s");
    std::printf("\n%lld passed, %lld failed\n", static_cast<long long>(passed),
                static_cast<long long>(failed + static_cast<int64_t>(invalid.size())));
  }
  // Bad input outranks a discrepancy: the gate could not replay all it was given.
  if (!invalid.empty()) return kExitBadInput;
  return failed == 0 ? kExitParity : kExitDiscrepancy;
}

}  // namespace convparity
