// The convparity command line (docs/INTERFACES.md; every flag in flags.def). Only parsing happens
// here; below main errors are values. Exit codes: 0 parity / success, 1 discrepancies, 2 usage or
// bad input, 3 internal error.
#include <CLI/CLI.hpp>
#include <cmath>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <type_traits>
#include <vector>

#include "harness/cli/commands.h"
#include "harness/engine/campaign.h"
#include "harness/engine/case_runner.h"
#include "harness/engine/check_case.h"
#include "harness/engine/worker_process.h"
#include "harness/models/model_formats.h"
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

const CLI::Validator kAnyValue;
const CLI::Validator kPositiveSeconds = NumberFrom(0, true, HUGE_VAL, "a number of seconds > 0");
const CLI::Validator kJobs = CLI::Range(1, 256);
const CLI::Validator kIsolation = CLI::IsMember({"none", "worker", "case"});
const CLI::Validator kGraphForm = CLI::IsMember([] {
  std::vector<std::string> names;
  for (const GraphForm& form : GraphForms()) names.push_back(form.name);
  return names;
}());
const CLI::Validator kDriver = CLI::IsMember({"auto", "conv", "deconv"});
const CLI::Validator kSeedTarget = CLI::IsMember({"parity", "inputs"});
const CLI::Validator kModelFormat = CLI::IsMember(
    std::vector<std::string>(std::begin(kModelFormatNames), std::end(kModelFormatNames)));

template <typename T>
void AddFlag(CLI::App* cmd, const std::string& spelling, T& field, const std::string& help,
             const CLI::Validator& check, bool required) {
  CLI::Option* option;
  if constexpr (std::is_same_v<T, bool>)
    option = cmd->add_flag(spelling, field, help);
  else
    option = cmd->add_option(spelling, field, help)->check(check);
  option->required(required);
}

// The flags of flags.def whose line names `command`, and no other.
void AddFlags(CLI::App* cmd, Command command, Flags& f) {
#define CONVPARITY_FLAG(field, type, init, spelling, commands, required_by, check, help) \
  if ((commands)&command) AddFlag(cmd, spelling, f.field, help, check, (required_by)&command);
#include "harness/cli/flags.def"
#undef CONVPARITY_FLAG
}

void StopOnSignal(int) { RequestCampaignStop(); }

int Main(int argc, char** argv) {
  CLI::App app{
      "convparity: differential conformance and fuzz testing of convolutions against LibTorch"};
  app.require_subcommand(1);
  Flags flags;
  std::vector<std::string> inputs;
  std::string case_path, before, after, report_folder;
  auto command = [&](const char* name, Command bit, const char* help) {
    CLI::App* cmd = app.add_subcommand(name, help);
    AddFlags(cmd, bit, flags);
    return cmd;
  };
  CLI::App* fuzz = command("fuzz", kFuzz, "run a fuzz campaign");
  CLI::App* repro = command("repro", kRepro, "re-run cases (case files or descriptors)");
  repro->add_option("cases", inputs, "case.json files or descriptors")->required();
  CLI::App* check = command("check", kCheck, "the CI gate: replay corpus folders and case files");
  check->add_option("paths", inputs, "corpus folders or case files")->required();
  CLI::App* shrink = command("shrink", kShrink, "minimize a failing case");
  shrink->add_option("case", case_path, "case.json")->required();
  CLI::App* list = command("list", kList, "the systems under test and directions available");
  CLI::App* import =
      command("import-benchdnn", kImportBenchdnn, "benchdnn problem lists into case files");
  import->add_option("files", inputs, "benchdnn conv/ or deconv/ batch files")->required();
  CLI::App* import_onnx =
      command("import-onnx", kImportOnnx,
              "the Conv and ConvTranspose nodes of ONNX models into case files");
  import_onnx->add_option("models", inputs, "ONNX model files (.onnx)")->required();
  CLI::App* import_fuzz =
      command("import-fuzz-input", kImportFuzzInput,
              "libFuzzer inputs (crash-* files, corpus entries) into case files");
  import_fuzz->add_option("inputs", inputs, "fuzz_parity inputs")->required();
  CLI::App* export_seeds = command("export-fuzz-seeds", kExportFuzzSeeds,
                                   "case files as libFuzzer seed inputs (into --out)");
  export_seeds->add_option("paths", inputs, "corpus folders or case files");
  CLI::App* merge = command("merge", kMerge,
                            "combine the output folders of fuzz runs (e.g. the shards of one "
                            "campaign)");
  merge->add_option("runs", inputs, "--out folders of convparity fuzz runs")->required();
  CLI::App* compare =
      command("compare", kCompare,
              "last night's run folder against tonight's: new, still failing, fixed, not drawn");
  compare->add_option("before", before, "the earlier run (a fuzz --out folder or a merge)")
      ->required();
  compare->add_option("after", after, "the later run")->required();
  CLI::App* report = command("report", kReport,
                             "a campaign's self-contained HTML page: at a glance, findings, plots");
  report->add_option("run", report_folder, "a fuzz --out folder or a merge")->required();
  CLI::App* model = command("model", kModel,
                            "a case as the model files a frontend reads (ONNX, TensorFlow graph), "
                            "with its input, into --out");
  model->add_option("case", case_path, "case.json")->required();
  CLI::App* worker = command("worker", kWorker, "(internal) run cases for a parent process");
  worker->group("");  // hidden from --help

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
  } catch (const CLI::ExtrasError& e) {
    // A flag of another command (`list --shard 3/4`) is refused by name, with the command's.
    for (const CLI::App* sub : app.get_subcommands()) {
      std::string extras;
      for (const std::string& arg : sub->remaining()) extras += (extras.empty() ? "" : " ") + arg;
      if (!extras.empty())
        return Fail(Status::Invalid(sub->get_name() + " does not take '" + extras +
                                    "' (convparity " + sub->get_name() +
                                    " --help lists its flags)"));
    }
    return Fail(Status::Invalid(e.what()));
  } catch (const CLI::ParseError& e) {
    return Fail(Status::Invalid(e.what()));
  }
  if (worker->parsed()) {
    CheckContext context;
    if (!flags.worker_limits.empty()) {
      Result<Limits> limits = ParseLimitsArgument(flags.worker_limits);
      if (!limits.ok()) return Fail(limits.status());
      context.limits = *limits;
    }
    if (!flags.worker_suts.empty()) {
      Result<SutConfig> suts = ParseSutConfigArgument(flags.worker_suts);
      if (!suts.ok()) return Fail(suts.status());
      context.suts = *suts;
    }
    return WorkerMain(context);
  }
  bool max_macs_given = false;
  for (const CLI::App* sub : app.get_subcommands())  // not every command takes --max-macs
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
  if (repro->parsed()) return RunRepro(inputs, flags, context);
  if (check->parsed()) return RunCheck(inputs, flags, context);
  if (shrink->parsed()) return RunShrink(case_path, flags, context);
  if (import->parsed()) return RunImportBenchdnn(inputs, flags, context.limits);
  if (import_onnx->parsed()) return RunImportOnnx(inputs, flags, context.limits);
  if (merge->parsed()) return RunMerge(inputs, flags);
  if (compare->parsed()) return RunCompare(before, after, flags, context);
  if (report->parsed()) return RunReport(report_folder, flags, context);
  if (model->parsed()) return RunModel(case_path, flags, context);
  if (import_fuzz->parsed()) return RunImportFuzzInput(inputs, flags, context.suts, max_macs_given);
  if (export_seeds->parsed())
    return RunExportFuzzSeeds(inputs, flags, context.suts, max_macs_given);
  if (list->parsed()) return RunList(flags, context.suts);
  return Fail(Status::Internal("no command ran"));
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
