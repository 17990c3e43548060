#include "reports/html/report_html.h"

#include <cctype>
#include <cmath>
#include <cstdio>
#include <set>
#include <vector>

#include "reports/html/report_plots.h"
#include "reports/json_values.h"
#include "reports/utf8.h"

namespace convparity {
namespace {

using nlohmann::json;

// JSON inside a <script> element must not close it early: "<\/" is the same JSON string.
std::string JsonScriptSafe(std::string text) {
  for (size_t at = 0; (at = text.find("</", at)) != std::string::npos; at += 3)
    text.replace(at, 2, "<\\/");
  return text;
}

// Nor may a script: only "</script" and "<!--" would (HTML's script data rules); each of them can
// only stand in a JavaScript string or comment, where "<\/" and "<\!--" mean the same.
std::string ScriptSafe(std::string text) {
  for (size_t at = 0; at < text.size(); ++at) {
    if (text.compare(at, 4, "<!--") == 0) {
      text.replace(at, 4, "<\\!--");
    } else if (text[at] == '<' && at + 7 < text.size() && text[at + 1] == '/') {
      std::string word = text.substr(at + 2, 6);
      for (char& c : word) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
      if (word == "script") text.replace(at, 2, "<\\/");
    }
  }
  return text;
}

std::string Number(double v, const char* format = "%.1f") {
  if (!std::isfinite(v)) return "-";
  char text[64];
  std::snprintf(text, sizeof text, format, v);
  return text;
}

std::string Joined(const std::vector<std::string>& items) {
  std::string text;
  for (const std::string& item : items) text += (text.empty() ? "" : ", ") + item;
  return text.empty() ? "-" : text;
}

std::string Row(const std::vector<std::string>& cells, const char* tag = "td") {
  std::string row = "<tr>";
  for (const std::string& cell : cells)
    row += std::string("<") + tag + ">" + cell + "</" + tag + ">";
  return row + "</tr>\n";
}

std::string Glance(const HtmlReportInput& in) {
  const CampaignSummary& s = in.summary;
  const CampaignSummary::Options& o = s.options;
  std::vector<std::string> dims;
  for (int d : o.dims) dims.push_back(std::to_string(d));
  std::set<std::string> shards = s.merged_shards;
  shards.insert(ShardText(o.shard_index, o.shard_count));
  const double rate = s.elapsed_seconds > 0 ? s.cases / s.elapsed_seconds : 0;
  std::string html = "<table class=\"glance\">\n";
  auto add = [&](const std::string& what, const std::string& value) {
    html += Row({HtmlEscape(what), value});
  };
  add("started", HtmlEscape(Iso8601(s.start_time)));
  add("ran", Number(s.elapsed_seconds) + " s");
  add("checks", std::to_string(s.cases) + " (" + Number(rate) + " checks/s, " +
                    std::to_string(s.workers) + " workers)");
  add("findings", std::to_string(s.buckets.size()) + " distinct, " + std::to_string(s.untriaged) +
                      " untriaged");
  add("SUTs", HtmlEscape(Joined(o.suts)));
  add("directions, fills, ranks",
      HtmlEscape(Joined(o.directions) + "; " + Joined(o.fills) + "; " + Joined(dims)));
  add("seed, shards",
      std::to_string(o.seed) + "; " + HtmlEscape(Joined({shards.begin(), shards.end()})));
  const std::vector<std::string> missing = MissingShards(s);
  if (!missing.empty()) add("missing shards", "<b>" + HtmlEscape(Joined(missing)) + "</b>");
  if (!s.incomplete_shards.empty())
    add("incomplete shards",
        "<b>" + HtmlEscape(Joined({s.incomplete_shards.begin(), s.incomplete_shards.end()})) +
            "</b> (stopped or killed before their budget)");
  add("convparity, LibTorch", HtmlEscape(in.tool.version + ", " + in.tool.torch_version + " (" +
                                         in.tool.oracle_backend + ")"));
  for (const auto& [sut, version] : s.sut_versions) add("version of " + sut, HtmlEscape(version));
  for (const std::string& line : s.mixed_versions) add("versions mixed", HtmlEscape(line));
  return html + "</table>\n";
}

std::string Verdicts(const CampaignSummary& s) {
  std::vector<std::string> names = VerdictNames();
  std::vector<std::string> header{"SUT", "direction"};
  for (const std::string& v : names) header.push_back(HtmlEscape(v));
  std::string html = "<table class=\"verdicts\">\n" + Row(header, "th");
  for (const auto& [sut, by_direction] : s.verdicts)
    for (const auto& [direction, by_verdict] : by_direction) {
      std::vector<std::string> cells{HtmlEscape(sut), HtmlEscape(direction)};
      for (const std::string& v : names) {
        auto it = by_verdict.find(v);
        const int64_t n = it == by_verdict.end() ? 0 : it->second;
        // Mistrusted passed too, on a reference too close to zero to say much.
        const bool bad = n > 0 && v != "passed" && v != "skipped" && v != "mistrusted";
        cells.push_back(bad ? "<b class=\"bad\">" + std::to_string(n) + "</b>" : std::to_string(n));
      }
      html += Row(cells);
    }
  return html + "</table>\n";
}

std::string Text(const json& j, const char* key) {
  return j.is_object() && j.contains(key) && j.at(key).is_string() ? j.at(key).get<std::string>()
                                                                   : "";
}

std::string Findings(const HtmlReportInput& in) {
  if (in.summary.buckets.empty()) return "<p>No findings.</p>\n";
  std::map<std::string, std::string> change;
  if (in.comparison)
    for (const BucketComparison& b : in.comparison->buckets)
      change[b.signature] = BucketChangeName(b.change);
  std::string html;
  for (const auto& [signature, b] : in.summary.buckets) {
    auto report = in.reports.find(b.report_file);
    const json r = report == in.reports.end() ? json() : report->second;
    html += "<div class=\"finding\" data-bucket=\"" + HtmlEscape(signature) + "\">\n<h3>" +
            HtmlEscape(signature) + "</h3>\n<table>\n";
    html +=
        Row({"SUT, direction, verdict", HtmlEscape(b.sut + ", " + b.direction + ", " + b.verdict)});
    if (!change.empty())
      html += Row({"against the baseline", "<b>" + HtmlEscape(change[signature]) + "</b>"});
    html += Row({"minimal case", "<code>" + HtmlEscape(Text(r, "descriptor")) + "</code>"});
    html += Row({"why", HtmlEscape(Text(r, "reason"))});
    html += Row({"hits", std::to_string(b.hits) + " (" + std::to_string(b.cases) + " cases)"});
    html += Row({"first seen",
                 Number(b.first_seconds) + " s (case " + std::to_string(b.first_case_index) + ")"});
    html += Row({"last seen",
                 Number(b.last_seconds) + " s (case " + std::to_string(b.last_case_index) + ")"});
    const json repro = r.is_object() && r.contains("repro") ? r["repro"] : json();
    html += Row({"repro", "<code>" + HtmlEscape(Text(repro, "command")) + "</code>"});
    if (!Text(repro, "descriptor_command").empty())
      html += Row({"", "<code>" + HtmlEscape(Text(repro, "descriptor_command")) + "</code>"});
    html += "</table>\n";
    if (!Text(r, "python").empty())
      html += "<details><summary>PyTorch snippet</summary><pre>" + HtmlEscape(Text(r, "python")) +
              "</pre></details>\n";
    if (report == in.reports.end())
      html += "<p class=\"bad\">No report file " + HtmlEscape(b.report_file) + " in " +
              HtmlEscape(in.folder) + "/reports.</p>\n";
    html += "</div>\n";
  }
  return html;
}

std::string Comparison(const RunComparison& c) {
  std::string html = "<p>Against <code>" + HtmlEscape(c.before.folder) + "</code> (" +
                     HtmlEscape(Iso8601(c.before.summary.start_time)) + "): ";
  for (BucketChange change : kAllBucketChanges)
    html += std::to_string(c.Count(change)) + " " + BucketChangeName(change) + "; ";
  html +=
      "</p>\n<table class=\"comparison\">\n" + Row({"change", "bucket", "replayed tonight"}, "th");
  for (const BucketComparison& b : c.buckets)
    html += Row({HtmlEscape(BucketChangeName(b.change)), HtmlEscape(b.signature),
                 HtmlEscape(b.replay_verdict.empty()
                                ? b.replay_reason
                                : b.replay_verdict +
                                      (b.replay_reason.empty() ? "" : ": " + b.replay_reason))});
  return html + "</table>\n";
}

const char* kStyle = R"(
body { font: 14px/1.4 system-ui, sans-serif; margin: 2em; max-width: 75em; color: #222; }
table { border-collapse: collapse; margin: 0.5em 0 1em; }
td, th { border: 1px solid #ccc; padding: 2px 8px; text-align: left; vertical-align: top; }
th { background: #f0f0f0; }
.bad { color: #b00; }
.finding { border-left: 4px solid #d62728; padding-left: 1em; margin: 1em 0; }
.finding h3 { font: 13px monospace; word-break: break-all; }
pre { background: #f7f7f7; padding: 0.5em; overflow-x: auto; }
.plot { margin: 1em 0 2em; }
)";

// Renders every plot, and records on the page what happened, for the browser test.
const char* kRenderScript = R"(
(function () {
  var errors = [];
  var logError = console.error.bind(console);
  console.error = function () {
    errors.push(Array.prototype.join.call(arguments, ' '));
    logError.apply(null, arguments);
  };
  window.addEventListener('error', function (e) { errors.push(String(e.message)); });
  function finish() {
    document.getElementById('page-errors').textContent = errors.join('\n');
    document.body.setAttribute('data-errors', String(errors.length));
    document.body.setAttribute('data-plots', 'done');
  }
  var plots = JSON.parse(document.getElementById('plot-specs').textContent);
  var runs = plots.map(function (plot) {
    var element = document.getElementById('plot-' + plot.name);
    try {
      var view = new vega.View(vega.parse(vegaLite.compile(plot.spec).spec),
                               {renderer: 'svg', container: element, hover: true});
      return view.runAsync().then(function () {
        var marks = element.querySelectorAll('g.role-mark > path, g.role-mark > text').length;
        element.setAttribute('data-marks', String(marks));
        element.setAttribute('data-state', 'rendered');
      }).catch(function (e) {
        element.setAttribute('data-state', 'error');
        console.error('plot ' + plot.name + ': ' + e);
      });
    } catch (e) {
      element.setAttribute('data-state', 'error');
      console.error('plot ' + plot.name + ': ' + e);
      return Promise.resolve();
    }
  });
  Promise.all(runs).then(finish, finish);
})();
)";

}  // namespace

std::string HtmlEscape(const std::string& text) {
  std::string out;
  for (char c : ValidUtf8(text)) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      case '\'':
        out += "&#39;";
        break;
      default:
        out += c;
    }
  }
  return out;
}

std::string ReportHtml(const HtmlReportInput& in) {
  const std::vector<PlotSpec> plots = CampaignPlots(in.summary);
  json specs = json::array();
  std::string plot_html;
  for (const PlotSpec& p : plots) {
    specs.push_back({{"name", p.name}, {"spec", p.spec}});
    plot_html += "<h3>" + HtmlEscape(p.title) + "</h3>\n<p>" + HtmlEscape(p.note) +
                 "</p>\n<div class=\"plot\" id=\"plot-" + p.name + "\" data-plot=\"" + p.name +
                 "\" data-state=\"pending\"></div>\n";
  }
  if (in.summary.bound_use.empty())
    plot_html += "<p>No check of a random fill: no plot of the error against its bound.</p>\n";
  const std::string title = "convparity report: " + in.folder;
  std::string html = "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n";
  // Nothing may be fetched: the page is read from disk, often with no network.
  html +=
      "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; "
      "script-src 'unsafe-inline' 'unsafe-eval'; style-src 'unsafe-inline'; img-src data:\">\n";
  html += "<title>" + HtmlEscape(title) + "</title>\n<style>" + kStyle + "</style>\n</head>\n";
  html += "<body data-plots=\"pending\">\n<h1>" + HtmlEscape(title) + "</h1>\n";
  html += "<h2>The campaign at a glance</h2>\n" + Glance(in);
  html += "<h2>Verdicts per SUT and direction</h2>\n" + Verdicts(in.summary);
  if (in.comparison) html += "<h2>Against the baseline</h2>\n" + Comparison(*in.comparison);
  html += "<h2>Findings</h2>\n" + Findings(in);
  html += "<h2>Plots</h2>\n" + plot_html;
  html += "<pre id=\"page-errors\"></pre>\n";
  html += "<script type=\"application/json\" id=\"plot-specs\">" +
          JsonScriptSafe(JsonFileText(specs)) + "</script>\n";
  html += "<script>" + ScriptSafe(in.vega_js) + "</script>\n";
  html += "<script>" + ScriptSafe(in.vega_lite_js) + "</script>\n";
  html += "<script>" + std::string(kRenderScript) + "</script>\n</body>\n</html>\n";
  return html;
}

}  // namespace convparity
