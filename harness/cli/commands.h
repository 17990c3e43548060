// The subcommands of `convparity` (docs/INTERFACES.md); their flags are in flags.def. Each returns
// the process exit code.
#pragma once

#include <string>
#include <vector>

#include "harness/cli/cli_options.h"
#include "harness/engine/check_context.h"
#include "harness/io/benchdnn_import.h"

namespace convparity {

int RunFuzz(const Flags& flags, const CheckContext& context);
// Case files, or descriptors standing for one case per --sut, --direction and --fill. With --sut,
// a case file's case runs on the SUTs named instead of its own.
int RunRepro(const std::vector<std::string>& args, const Flags& flags, const CheckContext& context);
// The CI gate over corpus folders and case files (--junit, --summary); with --sut, every case runs
// on the SUTs named instead of its own.
int RunCheck(const std::vector<std::string>& paths, const Flags& flags,
             const CheckContext& context);
int RunShrink(const std::string& case_path, const Flags& flags, const CheckContext& context);
int RunList(const Flags& flags, const SutConfig& suts);
// Combines the --out folders of fuzz runs (e.g. the shards of one campaign) into f.out; runs made
// by different versions only with --mix-versions.
int RunMerge(const std::vector<std::string>& dirs, const Flags& f);
// Last night's run folder against tonight's; writes the comparison's JSON to its --out when given.
// Exit 1 when anything is new.
int RunCompare(const std::string& before, const std::string& after, const Flags& f,
               const CheckContext& context);
// The campaign's HTML page (reports/html/report_html.h) into --output; with --baseline, the
// comparison with it too.
int RunReport(const std::string& folder, const Flags& f, const CheckContext& context);
// A case file's case as the model files of each format (--format; default every one that writes
// the case) into --out/<format>/, its model's input into --out/input.bin (float32, the model's
// memory order) with input.json naming its var and shape.
int RunModel(const std::string& case_path, const Flags& flags, const CheckContext& context);
// libFuzzer inputs into case files, and case files into libFuzzer seeds
// (harness/io/fuzz_support.h).
int RunImportFuzzInput(const std::vector<std::string>& files, const Flags& flags,
                       const SutConfig& suts, bool max_macs_given);
int RunExportFuzzSeeds(const std::vector<std::string>& paths, const Flags& flags,
                       const SutConfig& suts, bool max_macs_given);
// --driver: conv, deconv, or auto (deconv for files under a folder named deconv). --dry-run:
// read and summarize, write nothing. Cases over `limits` (those `check` replays within) are
// skipped, counted in the summary.
int RunImportBenchdnn(const std::vector<std::string>& files, const Flags& flags,
                      const Limits& limits);
// ONNX models' Conv and ConvTranspose nodes into case files (harness/io/onnx_import.h), with the
// flags and the summary of import-benchdnn.
int RunImportOnnx(const std::vector<std::string>& files, const Flags& flags, const Limits& limits);

}  // namespace convparity
