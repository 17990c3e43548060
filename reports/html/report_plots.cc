#include "reports/html/report_plots.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>

namespace convparity {
namespace {

using nlohmann::json;

const char* kSchema = "https://vega.github.io/schema/vega-lite/v5.json";  // an id, never fetched

double Finite(double v) { return std::isfinite(v) ? v : 0; }

// A single class's own count for the heatmap's diagonal: "grouped" counts depthwise too, as the
// pairs do (summary_counts.cc). Only the checked panel has one: the summary keeps classes alone
// for checks that ran.
int64_t ClassCount(const CampaignSummary& s, const std::string& k) {
  auto tag = [&](const std::string& t) {
    auto it = s.tags.find(t);
    return it == s.tags.end() ? int64_t{0} : it->second;
  };
  return k == "grouped" ? tag("grouped") + tag("depthwise") : tag(k);
}

int64_t CountOf(const std::map<std::string, int64_t>& counts, const std::string& key) {
  auto it = counts.find(key);
  return it == counts.end() ? 0 : it->second;
}

PlotSpec CoveragePlot(const CampaignSummary& s) {
  const std::vector<std::string>& classes = CoverageKeyClasses();
  json values = json::array();
  for (size_t i = 0; i < classes.size(); ++i) {
    values.push_back({{"a", classes[i]},
                      {"b", classes[i]},
                      {"checked", ClassCount(s, classes[i])},
                      {"skipped", nullptr},
                      {"failed", nullptr}});
    for (size_t j = i + 1; j < classes.size(); ++j) {
      const std::string key = classes[i] + "&" + classes[j];
      values.push_back({{"a", classes[i]},
                        {"b", classes[j]},
                        {"checked", CountOf(s.pairs, key)},
                        {"skipped", CountOf(s.pairs_skipped, key)},
                        {"failed", CountOf(s.pairs_failed, key)}});
    }
  }
  const json order = classes;
  // The colour scale from 0 to the panel's largest count, at least 1: an all-zero panel (no
  // failure) stays pale instead of taking the scale's darkest end.
  auto largest = [&](const std::string& field) {
    int64_t most = 1;
    for (const json& v : values)
      if (v[field].is_number()) most = std::max(most, v[field].get<int64_t>());
    return most;
  };
  auto panel = [&](const std::string& field, const std::string& scheme, bool zero_in_red) {
    json text_color = {{"value", "#333"}};
    if (zero_in_red)
      text_color = {{"condition", {{"test", "datum." + field + " === 0"}, {"value", "#c0392b"}}},
                    {"value", "#333"}};
    return json{
        {"width", 300},
        {"height", 300},
        {"title", field},
        {"transform", {{{"filter", "datum." + field + " !== null"}}}},
        {"encoding",
         {{"x", {{"field", "a"}, {"type", "nominal"}, {"sort", order}, {"title", nullptr}}},
          {"y", {{"field", "b"}, {"type", "nominal"}, {"sort", order}, {"title", nullptr}}}}},
        {"layer",
         {{{"mark", "rect"},
           {"encoding",
            {{"color",
              {{"field", field},
               {"type", "quantitative"},
               {"scale", {{"type", "symlog"}, {"scheme", scheme}, {"domain", {0, largest(field)}}}},
               {"legend", nullptr}}},
             {"tooltip", {{{"field", "a"}}, {{"field", "b"}}, {{"field", field}}}}}}},
          {{"mark", {{"type", "text"}, {"fontSize", 9}}},
           {"encoding",
            {{"text", {{"field", field}, {"type", "quantitative"}}}, {"color", text_color}}}}}}};
  };
  json spec = {{"$schema", kSchema},
               {"data", {{"values", values}}},
               {"hconcat",
                {panel("checked", "blues", true), panel("skipped", "greys", false),
                 panel("failed", "reds", false)}},
               {"resolve", {{"scale", {{"color", "independent"}}}}}};
  return {"coverage", "Feature coverage",
          "Checks for each pair of feature classes: run (the diagonal: the class alone; a red 0 is "
          "a combination this run never tested), skipped by the SUT, and ended in a discrepancy.",
          spec};
}

PlotSpec TimelinePlot(const CampaignSummary& s) {
  json values = json::array();
  std::vector<CampaignSummary::TimePoint> series = s.timeline;
  if (series.empty()) series = {{0, 0, 0}, {Finite(s.elapsed_seconds), s.cases, 0}};
  for (const CampaignSummary::TimePoint& p : series)
    values.push_back({{"seconds", Finite(p.seconds)}, {"value", p.cases}, {"series", "checks"}});
  // Distinct findings from the buckets' first sightings: exact after a merge too.
  std::vector<double> firsts;
  for (const auto& [signature, b] : s.buckets) firsts.push_back(Finite(b.first_seconds));
  std::sort(firsts.begin(), firsts.end());
  values.push_back({{"seconds", 0}, {"value", 0}, {"series", "distinct findings"}});
  for (size_t i = 0; i < firsts.size(); ++i)
    values.push_back({{"seconds", firsts[i]}, {"value", i + 1}, {"series", "distinct findings"}});
  values.push_back(
      {{"seconds", std::max(Finite(s.elapsed_seconds), firsts.empty() ? 0 : firsts.back())},
       {"value", firsts.size()},
       {"series", "distinct findings"}});
  auto panel = [&](const std::string& which, const std::string& color) {
    return json{
        {"transform", {{{"filter", {{"field", "series"}, {"equal", which}}}}}},
        {"mark",
         {{"type", "line"}, {"interpolate", "step-after"}, {"point", true}, {"color", color}}},
        {"width", 520},
        {"height", 140},
        {"encoding",
         {{"x", {{"field", "seconds"}, {"type", "quantitative"}, {"title", "seconds"}}},
          {"y", {{"field", "value"}, {"type", "quantitative"}, {"title", which}}},
          {"tooltip", {{{"field", "seconds"}}, {{"field", "value"}}}}}}};
  };
  json spec = {{"$schema", kSchema},
               {"data", {{"values", values}}},
               {"vconcat", {panel("checks", "#1f77b4"), panel("distinct findings", "#d62728")}}};
  return {"timeline", "Over the campaign's time",
          "Checks so far (a point per checkpoint; summed over shards after a merge) and distinct "
          "findings so far (each bucket at its first sighting).",
          spec};
}

std::string BinLabel(size_t bin) {
  if (bin >= kBoundUseBins) return ">= 1 (over)";
  char text[32];
  std::snprintf(text, sizeof text, "%.1f-%.1f", static_cast<double>(bin) / kBoundUseBins,
                static_cast<double>(bin + 1) / kBoundUseBins);
  return text;
}

PlotSpec BoundUsePlot(const CampaignSummary& s) {
  json values = json::array(), order = json::array();
  for (size_t bin = 0; bin <= kBoundUseBins; ++bin) order.push_back(BinLabel(bin));
  for (const auto& [sut, bins] : s.bound_use)
    for (size_t bin = 0; bin < bins.size(); ++bin)
      values.push_back({{"sut", sut}, {"bin", BinLabel(bin)}, {"checks", bins[bin]}});
  json spec = {
      {"$schema", kSchema},
      {"data", {{"values", values}}},
      {"width", 520},
      {"encoding",
       {{"x",
         {{"field", "bin"}, {"type", "ordinal"}, {"sort", order}, {"title", "max error / bound"}}},
        {"y", {{"field", "sut"}, {"type", "nominal"}, {"title", nullptr}}}}},
      {"layer",
       {{{"mark", "rect"},
         {"encoding",
          {{"color",
            {{"field", "checks"},
             {"type", "quantitative"},
             {"scale", {{"type", "symlog"}, {"scheme", "oranges"}}}}},
           {"tooltip", {{{"field", "sut"}}, {{"field", "bin"}}, {{"field", "checks"}}}}}}},
        {{"mark", {{"type", "text"}, {"fontSize", 10}}},
         {"encoding", {{"text", {{"field", "checks"}, {"type", "quantitative"}}}}}}}}};
  return {"bound_use", "Error as a fraction of its bound (random fills)",
          "Checks of the uniform, positive and wide fills by their largest error over its bound "
          "c*u*sqrt(K)*A: correct kernels stay well left of 1; the last column failed.",
          spec};
}

PlotSpec TimePlot(const CampaignSummary& s) {
  const CampaignSummary::TimeSplit& t = s.time;
  const std::pair<const char*, double> phases[] = {{"generate", t.generate}, {"fill", t.fill},
                                                   {"oracle", t.oracle},     {"bound", t.bound},
                                                   {"sut", t.sut},           {"compare", t.compare},
                                                   {"protocol", t.protocol}, {"idle", t.idle},
                                                   {"shrink", t.shrink},     {"io", t.io}};
  json values = json::array(), order = json::array();
  for (const auto& [phase, seconds] : phases) {
    values.push_back({{"phase", phase}, {"seconds", Finite(seconds)}});
    order.push_back(phase);
  }
  json spec = {
      {"$schema", kSchema},
      {"data", {{"values", values}}},
      {"width", 520},
      {"mark", "bar"},
      {"encoding",
       {{"y", {{"field", "phase"}, {"type", "nominal"}, {"sort", order}, {"title", nullptr}}},
        {"x",
         {{"field", "seconds"},
          {"type", "quantitative"},
          {"title", "seconds, summed over workers"}}},
        {"tooltip", {{{"field", "phase"}}, {{"field", "seconds"}}}}}}};
  return {"time", "Where the time went",
          "Seconds per phase, summed over workers: fill, oracle, sut, compare, protocol and idle "
          "are the workers'; generate, shrink and io the campaign's own threads'.",
          spec};
}

}  // namespace

std::vector<PlotSpec> CampaignPlots(const CampaignSummary& s) {
  std::vector<PlotSpec> plots{CoveragePlot(s), TimelinePlot(s)};
  if (!s.bound_use.empty()) plots.push_back(BoundUsePlot(s));
  plots.push_back(TimePlot(s));
  return plots;
}

}  // namespace convparity
