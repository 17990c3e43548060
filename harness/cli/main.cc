// The convparity command line (docs/INTERFACES.md). Only parsing happens here; below main errors
// are values. Exit codes: 0 parity / success, 1 discrepancies, 2 usage or bad input, 3 internal.
#include <CLI/CLI.hpp>
#include <cmath>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "harness/cli/commands.h"
#include "harness/engine/campaign.h"
#include "harness/engine/case_runner.h"
#include "harness/engine/check_case.h"
#include "harness/engine/worker_process.h"
#include "harness/suts/adapter_suts.h"
#include "harness/suts/sut_config.h"

namespace convparity {
namespace {

// A number of at least `min` (above it when `strict`) and at most `max`: CLI11's own Range lets
// NaN through, and its integer conversion saturates silently. The message completes "--flag: ".
CLI::Validator NumberFrom(double min, bool strict, double max, const std::string& rule) {
  return CLI::Validator(
      [=](std::string& text) -> std::string {
        char* end = nullptr;
        const double v = std::strtod(text.c_str(), &end);
        const bool number = !text.empty() && end == text.c_str() + text.size() && std::isfinite(v);
        if (number && (strict ? v > min : v >= min) && v <= max) return "";
        return "expected " + rule + ", got '" + text + "'";
      },
      rule);
}
constexpr double kMaxCount = 4611686018427387904.0;  // 2^62: far below int64's end
const CLI::Validator kSeconds = NumberFrom(0, false, HUGE_VAL, "a number of seconds >= 0");
const CLI::Validator kCount = NumberFrom(0, false, kMaxCount, "a whole number from 0 to 2^62");
const CLI::Validator kPositive = NumberFrom(0, true, kMaxCount, "a whole number from 1 to 2^62");
// Seeds are unsigned 64-bit: digits only, so that "-1" is not read as 2^64 - 1, and at most
// 2^64 - 1, which the conversion would otherwise saturate to.
const CLI::Validator kSeed(
    [](std::string& text) -> std::string {
      const std::string max = "18446744073709551615";
      const bool digits =
          !text.empty() && text.find_first_not_of("0123456789") == std::string::npos;
      if (digits && (text.size() < max.size() || (text.size() == max.size() && text <= max)))
        return "";
      return "expected a whole number from 0 to 2^64-1, got '" + text + "'";
    },
    "SEED");

// The common options, declared once (docs/INTERFACES.md, "Common options").
void AddCommonFlags(CLI::App* cmd, CommonFlags& f) {
  cmd->add_option("--sut", f.suts, "system under test (repeatable; default: all of ours)");
  cmd->add_option("--sut-map", f.sut_map,
                  "NAME=SPEC: the SUT name NAME stands for SPEC, e.g. "
                  "mylib=plugin:/opt/lib/libmylib.so (repeatable)");
  cmd->add_option("--config", f.config,
                  "a JSON file {\"schema\": \"convparity.config/1\", \"suts\": {NAME: SPEC}}");
  cmd->add_option("--allow-sut", f.allow_sut,
                  "let case files name this plugin:/exec: SUT directly (repeatable)");
  cmd->add_option("--direction", f.directions, "fwd, bwd_data or bwd_weight (repeatable)");
  cmd->add_option("--dims", f.dims, "spatial ranks, e.g. 1,2,3");
  cmd->add_option("--fill", f.fill, "exact, random or both");
  cmd->add_option("--seed", f.seed, "campaign / case seed")->check(kSeed);
  cmd->add_option("--time", f.seconds, "time budget in seconds")->check(kSeconds);
  cmd->add_option("--cases", f.cases, "stop after this many generated cases")->check(kCount);
  cmd->add_option("--max-macs", f.max_macs,
                  "size cap of generated problems (multiply-adds; default 200000, one case in "
                  "twenty up to 20 times it); when given, also the limit of every case, large "
                  "ones included (default 2^32)")
      ->check(kPositive);
  cmd->add_option("--max-elements", f.max_elements,
                  "limit on the elements of any one tensor of a case (default 2^26)")
      ->check(kPositive);
  cmd->add_option("--max-extent", f.max_extent,
                  "limit on any one size, stride, padding ... of a case (default 2^20)")
      ->check(kPositive);
  cmd->add_option("--jobs", f.jobs, "worker processes (default: one per core)")
      ->check(CLI::Range(1, 256));
  cmd->add_option("--shard", f.shard, "I/N: this process takes case indices i = I mod N");
  cmd->add_option("--corpus", f.corpus, "corpus folder");
  cmd->add_option("--out", f.out, "output folder (reports, corpus, summary)");
  cmd->add_option("--timeout", f.timeout, "seconds a SUT may take on one case before it is hung")
      ->check(NumberFrom(0, true, HUGE_VAL, "a number of seconds > 0"));
  cmd->add_flag("--no-isolation", f.no_isolation, "run SUTs in this process (no crash isolation)");
  cmd->add_flag("--quiet", f.quiet, "no progress lines");
  cmd->add_flag("--json", f.json, "machine-readable output");
}

// What a command that replays cases from run folders takes: what SUT names stand for, the limits,
// the workers. Not --out, which such a command gives a meaning of its own.
void AddReplayFlags(CLI::App* cmd, CommonFlags& f) {
  cmd->add_option("--sut-map", f.sut_map, "NAME=SPEC: the SUT name NAME stands for SPEC");
  cmd->add_option("--config", f.config, "a JSON file {\"schema\": \"convparity.config/1\", ...}");
  cmd->add_option("--allow-sut", f.allow_sut, "let the runs' cases name this plugin:/exec: SUT");
  cmd->add_option("--jobs", f.jobs, "worker processes (default: one per core)")
      ->check(CLI::Range(1, 256));
  cmd->add_option("--timeout", f.timeout, "seconds a SUT may take on one case before it is hung")
      ->check(NumberFrom(0, true, HUGE_VAL, "a number of seconds > 0"));
  cmd->add_flag("--no-isolation", f.no_isolation, "run SUTs in this process (no crash isolation)");
  cmd->add_flag("--json", f.json, "machine-readable output");
}

void StopOnSignal(int) { RequestCampaignStop(); }

int Main(int argc, char** argv) {
  CLI::App app{
      "convparity: differential conformance and fuzz testing of convolutions against LibTorch"};
  app.require_subcommand(1);
  CommonFlags flags;
  std::vector<std::string> inputs;
  std::string junit, summary, case_path;

  CLI::App* fuzz = app.add_subcommand("fuzz", "run a fuzz campaign");
  fuzz->add_option("--stop-after-buckets", flags.stop_after_buckets,
                   "stop once this many buckets are found (0: never)")
      ->check(kCount);
  fuzz->add_option("--isolate", flags.isolate,
                   "worker: cases share a worker process (a SUT whose crash ended one runs in a "
                   "child forked per case from then on); case: every SUT in a child forked per "
                   "case")
      ->check(CLI::IsMember({"worker", "case"}));
  fuzz->add_option("--timeout-floor", flags.timeout_floor,
                   "a SUT's time limit follows the oracle's time for the case and the SUT's own "
                   "speed, at least this many seconds and at most --timeout; a run past it is run "
                   "again alone under a CPU-time limit before it is hung (0: always --timeout)")
      ->check(NumberFrom(0, false, HUGE_VAL, "a number of seconds >= 0"));
  fuzz->add_flag("--malloc-check", flags.malloc_check,
                 "workers run under glibc's checking malloc (MALLOC_CHECK_=3): heap corruption "
                 "shows on the case that caused it");
  fuzz->add_option("--shrink-seconds", flags.shrink_seconds, "seconds to shrink one discrepancy")
      ->check(kSeconds);
  fuzz->add_option("--max-shrink-calls", flags.max_shrink_calls,
                   "SUT calls to shrink one discrepancy")
      ->check(kPositive);
  CLI::App* repro = app.add_subcommand("repro", "re-run cases (case files or descriptors)");
  repro->add_option("cases", inputs, "case.json files or descriptors")->required();
  std::string graph = GraphFormName(GraphForm::kConv);
  repro
      ->add_option("--graph", graph,
                   "conv, or chain: a descriptor's residual block (for transform SUTs)")
      ->check(CLI::IsMember({GraphFormName(GraphForm::kConv), GraphFormName(GraphForm::kChain)}));
  CLI::App* check =
      app.add_subcommand("check", "the CI gate: replay corpus folders and case files");
  check->add_option("paths", inputs, "corpus folders or case files")->required();
  check->add_option("--junit", junit, "write JUnit XML here");
  check->add_option("--summary", summary, "write a summary JSON here");
  CLI::App* shrink = app.add_subcommand("shrink", "minimize a failing case");
  shrink->add_option("case", case_path, "case.json")->required();
  CLI::App* list = app.add_subcommand("list", "the systems under test and directions available");
  CLI::App* import =
      app.add_subcommand("import-benchdnn", "benchdnn problem lists into case files");
  import->add_option("files", inputs, "benchdnn conv/ or deconv/ batch files")->required();
  std::string driver = "auto";
  import
      ->add_option("--driver", driver,
                   "conv, deconv, or auto: deconv for files under a folder named deconv")
      ->check(CLI::IsMember({"auto", "conv", "deconv"}));
  bool dry_run = false;
  import->add_flag("--dry-run", dry_run, "read and summarize; write no case");
  ScaleOptions scale;
  import->add_option("--max-batch", scale.max_batch, "scale the batch down to at most this")
      ->check(kCount);
  import->add_option("--max-spatial", scale.max_spatial, "scale spatial sizes down to at most this")
      ->check(kCount);
  import
      ->add_option("--scale-macs", scale.max_macs,
                   "scale channels and sizes down to this many MACs")
      ->check(kCount);
  CLI::App* import_fuzz = app.add_subcommand(
      "import-fuzz-input", "libFuzzer inputs (crash-* files, corpus entries) into case files");
  import_fuzz->add_option("inputs", inputs, "fuzz_parity inputs")->required();
  CLI::App* export_seeds =
      app.add_subcommand("export-fuzz-seeds", "case files as libFuzzer seed inputs (into --out)");
  export_seeds->add_option("paths", inputs, "corpus folders or case files");
  std::string seed_target = "parity";
  int64_t generate = 0;
  export_seeds->add_option("--target", seed_target, "parity (fuzz_parity) or inputs (fuzz_inputs)");
  export_seeds->add_option("--generate", generate, "also encode this many generated cases");
  CLI::App* merge = app.add_subcommand(
      "merge", "combine the output folders of fuzz runs (e.g. the shards of one campaign)");
  merge->add_option("runs", inputs, "--out folders of convparity fuzz runs")->required();
  // Required: the default output folder is where a fuzz run writes, the likeliest of inputs.
  merge->add_option("--out", flags.out, "the merged output folder")->required();
  bool mix_versions = false;
  merge->add_flag("--mix-versions", mix_versions,
                  "merge runs made by different versions of convparity, LibTorch or a SUT (the "
                  "merged summary lists what differed)");
  CLI::App* compare = app.add_subcommand(
      "compare", "last night's run folder against tonight's: new, still failing, fixed, not drawn");
  std::string before, after, compare_out;
  compare->add_option("before", before, "the earlier run (a fuzz --out folder or a merge)")
      ->required();
  compare->add_option("after", after, "the later run")->required();
  compare->add_option("--out", compare_out, "write the comparison (convparity.comparison/1) here");
  CLI::App* report = app.add_subcommand(
      "report", "a campaign's self-contained HTML page: at a glance, findings, plots");
  std::string report_folder, baseline, report_out;
  report->add_option("run", report_folder, "a fuzz --out folder or a merge")->required();
  report->add_option("--baseline", baseline, "an earlier run to compare with (as compare does)");
  report->add_option("-o,--output", report_out, "the HTML file to write")->required();
  CLI::App* worker = app.add_subcommand("worker", "(internal) run cases for a parent process");
  worker->group("");          // hidden from --help
  std::string worker_limits;  // LimitsArgument of the parent's check context
  worker->add_option("--limits", worker_limits, "the limits cases are checked against");
  std::string worker_suts;  // SutConfigArgument of the parent's check context
  worker->add_option("--suts", worker_suts, "what the user's SUT names stand for");
  for (CLI::App* cmd : {fuzz, repro, check, shrink, list, import, import_fuzz, export_seeds})
    AddCommonFlags(cmd, flags);
  AddReplayFlags(compare, flags);
  AddReplayFlags(report, flags);

  // CLI11 says only "A subcommand is required" for a missing or an unknown command.
  if (argc < 2 || argv[1][0] != '-') {
    std::string names;
    bool known = false;
    for (const CLI::App* sub : app.get_subcommands([](CLI::App*) { return true; })) {
      known |= argc >= 2 && sub->get_name() == argv[1];
      if (sub->get_group().empty()) continue;  // hidden
      names += (names.empty() ? "" : ", ") + sub->get_name();
    }
    if (!known)
      return Fail(Status::Invalid((argc < 2 ? std::string("no command")
                                            : "unknown command '" + std::string(argv[1]) + "'") +
                                  "; expected one of " + names));
  }
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    return Fail(Status::Invalid(e.what()));
  }
  if (worker->parsed()) {
    CheckContext context;
    if (!worker_limits.empty()) {
      Result<Limits> limits = ParseLimitsArgument(worker_limits);
      if (!limits.ok()) return Fail(limits.status());
      context.limits = *limits;
    }
    if (!worker_suts.empty()) {
      Result<SutConfig> suts = ParseSutConfigArgument(worker_suts);
      if (!suts.ok()) return Fail(suts.status());
      context.suts = *suts;
    }
    return WorkerMain(context);
  }
  bool max_macs_given = false;
  for (const CLI::App* sub : app.get_subcommands())  // merge has no --max-macs
    if (const CLI::Option* opt = sub->get_option_no_throw("--max-macs"))
      max_macs_given |= opt->count() > 0;
  Result<std::vector<std::string>> suts = ExpandAdapterSuts(flags.suts);  // onednn#all → members
  if (!suts.ok()) return Fail(suts.status());
  flags.suts = std::move(suts).value();
  Result<SutConfig> sut_config = ConfigureSuts(flags);
  if (!sut_config.ok()) return Fail(sut_config.status());
  const CheckContext context{LimitsFor(flags, max_macs_given), std::move(sut_config).value()};
  std::signal(SIGPIPE, SIG_IGN);  // a dead worker is noticed on read, not by a signal
  if (fuzz->parsed()) {
    std::signal(SIGINT, StopOnSignal);
    std::signal(SIGTERM, StopOnSignal);
    return RunFuzz(flags, context);
  }
  if (repro->parsed()) {
    if (graph == GraphFormName(GraphForm::kChain)) flags.graph = GraphForm::kChain;
    return RunRepro(inputs, flags, context);
  }
  if (check->parsed()) return RunCheck(inputs, flags, context, junit, summary);
  if (shrink->parsed()) return RunShrink(case_path, flags, context);
  if (import->parsed())
    return RunImportBenchdnn(inputs, flags, scale, context.limits, driver, dry_run);
  if (merge->parsed()) return RunMerge(inputs, flags, mix_versions);
  if (compare->parsed()) return RunCompare(before, after, compare_out, flags, context);
  if (report->parsed()) return RunReport(report_folder, baseline, report_out, flags, context);
  if (import_fuzz->parsed())
    return RunImportFuzzInput(inputs, flags, context.suts, import_fuzz->count("--max-macs") > 0);
  if (export_seeds->parsed() && export_seeds->count("--out") == 0) {
    std::fprintf(stderr, "convparity: export-fuzz-seeds: --out DIR is required\n");
    return kExitBadInput;
  }
  if (export_seeds->parsed())
    return RunExportFuzzSeeds(inputs, flags, context.suts, export_seeds->count("--max-macs") > 0,
                              seed_target, generate);
  return RunList(flags, context.suts);
}

}  // namespace
}  // namespace convparity

int main(int argc, char** argv) {
  try {
    return convparity::Main(argc, argv);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "convparity: internal error: %s\n", e.what());
    return convparity::kExitInternal;
  }
}
