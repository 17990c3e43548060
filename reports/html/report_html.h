// `convparity report`: one self-contained HTML page about a campaign (or a merge of its shards),
// readable from disk with no network: the campaign at a glance, its verdicts per SUT and direction,
// its findings (bucket, SUT, minimal descriptor, hits, first and last seen, repro command, PyTorch
// snippet), the comparison with a baseline, and plots (report_plots.h) drawn by Vega and Vega-Lite,
// whose pinned browser bundles (reports/html/package-lock.json, installed by scripts/setup.sh) are
// inlined into the page. The page records what its script saw, for the browser test: each plot's
// container gets data-state ("rendered" or "error") and data-marks (the marks drawn), the body
// data-plots="done" when all are, and data-errors with the count of errors the page logged.
#pragma once

#include <map>
#include <nlohmann/json.hpp>
#include <string>

#include "reports/comparison.h"
#include "reports/report_json.h"
#include "reports/summary_json.h"

namespace convparity {

struct HtmlReportInput {
  std::string folder;  // the run folder, as the user named it
  CampaignSummary summary;
  ToolInfo tool;
  // The run's reports (convparity.report/1) by file name, as its summary's buckets name them.
  std::map<std::string, nlohmann::json> reports;
  const RunComparison* comparison = nullptr;  // with --baseline
  // The plotting library's browser bundles, inlined in this order (vega, then vega-lite).
  std::string vega_js, vega_lite_js;
};

std::string ReportHtml(const HtmlReportInput& in);

// Text as HTML text or attribute value: & < > " ' escaped.
std::string HtmlEscape(const std::string& text);

}  // namespace convparity
