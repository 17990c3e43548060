// The subcommands of `convparity` (docs/INTERFACES.md). Each returns the process exit code.
#pragma once

#include <string>
#include <vector>

#include "harness/cli/cli_options.h"
#include "harness/engine/check_context.h"
#include "harness/io/benchdnn_import.h"

namespace convparity {

int RunFuzz(const CommonFlags& flags, const CheckContext& context);
int RunRepro(const std::vector<std::string>& args, const CommonFlags& flags,
             const CheckContext& context);
int RunCheck(const std::vector<std::string>& args, const CommonFlags& flags,
             const CheckContext& context, const std::string& junit_path,
             const std::string& summary_path);
int RunShrink(const std::string& case_path, const CommonFlags& flags, const CheckContext& context);
int RunList(const CommonFlags& flags, const SutConfig& suts);
// Combines the --out folders of fuzz runs (e.g. the shards of one campaign) into f.out; runs made
// by different versions only with `mix_versions`.
int RunMerge(const std::vector<std::string>& dirs, const CommonFlags& f, bool mix_versions);
// Last night's run folder against tonight's; writes the comparison's JSON to `out` when given.
// Exit 1 when anything is new.
int RunCompare(const std::string& before, const std::string& after, const std::string& out,
               const CommonFlags& f, const CheckContext& context);
// The campaign's HTML page (reports/html/report_html.h) into `out`; with a baseline folder, the
// comparison with it too.
int RunReport(const std::string& folder, const std::string& baseline, const std::string& out,
              const CommonFlags& f, const CheckContext& context);
// libFuzzer inputs into case files, and case files into libFuzzer seeds
// (harness/io/fuzz_support.h).
int RunImportFuzzInput(const std::vector<std::string>& files, const CommonFlags& flags,
                       const SutConfig& suts, bool max_macs_given);
int RunExportFuzzSeeds(const std::vector<std::string>& paths, const CommonFlags& flags,
                       const SutConfig& suts, bool max_macs_given, const std::string& target,
                       int64_t generate);
// `driver`: conv, deconv, or auto (deconv for files under a folder named deconv). `dry_run`:
// read and summarize, write nothing.
// Cases over `limits` (those `check` replays within) are skipped, counted in the summary.
int RunImportBenchdnn(const std::vector<std::string>& files, const CommonFlags& flags,
                      const ScaleOptions& scale, const Limits& limits, const std::string& driver,
                      bool dry_run);

}  // namespace convparity
