// `convparity report <run folder> [--baseline <folder>] -o report.html`: the campaign's page
// (reports/html/report_html.h), self-contained. With a baseline, the comparison of
// `convparity compare <baseline> <run folder>` (its gone buckets replayed) is part of it. The
// plots' library is read from $CONVPARITY_PLOT_LIBRARY, else from the npm packages scripts/setup.sh
// installed in the source tree (reports/html/node_modules): vega/build/vega.min.js and
// vega-lite/build/vega-lite.min.js. Exit 0 when written, 2 on bad input (a folder without a
// summary, a library not installed).
#include <cstdio>
#include <cstdlib>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>

#include "harness/cli/commands.h"
#include "harness/engine/compare_runs.h"
#include "harness/io/files.h"
#include "reports/html/report_html.h"

namespace convparity {
namespace {

std::string PlotLibraryDir() {
  if (const char* dir = std::getenv("CONVPARITY_PLOT_LIBRARY"); dir && *dir) return dir;
  return CONVPARITY_PLOT_LIBRARY_DIR;
}

Result<std::string> ReadBundle(const std::string& dir, const std::string& file) {
  const std::string path = dir + "/" + file;
  Result<std::string> text = ReadFile(path, 8 << 20);
  if (!text.ok())
    return Status::Invalid("the plotting library is not installed: " + path +
                           " cannot be read (scripts/setup.sh installs it; "
                           "$CONVPARITY_PLOT_LIBRARY names another folder)");
  return text;
}

}  // namespace

int RunReport(const std::string& folder, const Flags& f, const CheckContext& context) {
  const std::string& baseline = f.baseline;
  const std::string& out = f.output;
  const std::string library = PlotLibraryDir();
  Result<std::string> vega = ReadBundle(library, "vega/build/vega.min.js");
  if (!vega.ok()) return Fail(vega.status());
  Result<std::string> vega_lite = ReadBundle(library, "vega-lite/build/vega-lite.min.js");
  if (!vega_lite.ok()) return Fail(vega_lite.status());

  Result<ComparedRun> run = ReadComparedRun(folder);
  if (!run.ok()) return Fail(run.status());
  HtmlReportInput in;
  in.folder = folder;
  in.summary = run->summary;
  in.tool = run->tool;
  in.vega_js = *std::move(vega);
  in.vega_lite_js = *std::move(vega_lite);
  size_t unreadable = 0;
  for (const auto& [signature, bucket] : in.summary.buckets) {
    if (bucket.report_file.empty()) continue;
    Result<std::string> text = ReadFile(folder + "/reports/" + bucket.report_file);
    nlohmann::json j = text.ok() ? nlohmann::json::parse(*text, nullptr, false) : nlohmann::json();
    if (j.is_object())
      in.reports[bucket.report_file] = std::move(j);
    else
      ++unreadable;
  }
  if (unreadable > 0)
    std::fprintf(stderr, "convparity: warning: %zu of %zu findings have no readable report in %s\n",
                 unreadable, in.summary.buckets.size(), (folder + "/reports").c_str());
  std::optional<RunComparison> comparison;
  if (!baseline.empty()) {
    const RunnerOptions options = RunnerFor(f, context);
    Result<RunComparison> c = CompareRunFolders(baseline, folder, options);
    if (!c.ok()) return Fail(c.status());
    comparison = *std::move(c);
    in.comparison = &*comparison;
  }
  const std::string html = ReportHtml(in);
  if (Status st = WriteFileAtomically(out, html); !st.ok()) return Fail(st);
  std::printf("report of %lld checks and %zu findings in %s (%zu bytes)\n",
              static_cast<long long>(in.summary.cases), in.summary.buckets.size(), out.c_str(),
              html.size());
  return kExitParity;
}

}  // namespace convparity
