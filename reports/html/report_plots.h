// The plots of `convparity report` as Vega-Lite specifications (v5), their data inline: what a
// campaign covered (pairs of feature classes), its checks and distinct findings over its time, how
// close each SUT's random-fill results came to their error bound, and where the time went. The page
// (report_html.h) compiles and renders them with the pinned Vega and Vega-Lite it inlines.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "reports/summary_json.h"

namespace convparity {

struct PlotSpec {
  std::string name;     // the plot's id in the page: [a-z_]+
  std::string title;    // a heading above it
  std::string note;     // what it shows, one sentence
  nlohmann::json spec;  // Vega-Lite
};

// The plots `s` has data for: a run with no random fill has no bound plot, one with no time series
// (summary/2) shows its checks from start to end.
std::vector<PlotSpec> CampaignPlots(const CampaignSummary& s);

}  // namespace convparity
