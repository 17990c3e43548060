// `convparity merge <run dir>… --out DIR`: one output folder from several `fuzz` runs, typically
// the N shards of one campaign (`--shard I/N` on N machines), as if one run had checked all their
// cases:
//
//   DIR/corpus/      the union of the runs' corpora; names are content hashes, so a case two runs
//                    found is one file.
//   DIR/reports/     one report per bucket. A report's name is derived from the bucket signature,
//                    so the same name is the same bucket; when several runs found it, the report
//                    kept is that of the run whose summary saw it earliest (seconds into its run,
//                    then case index; on a tie, the run named first) — the sighting
//                    CampaignSummary::Merge keeps, so summary and report tell the same story. A
//                    report no summary lists (a run killed between checkpoints) comes from the
//                    first run that has it.
//   DIR/summary.json the first run's summary with the others merged in (CampaignSummary::Merge):
//                    counts and times add, buckets are deduplicated, "shards" lists every shard.
//                    Its options and tool block are the first run's.
//
// Everything is read and checked before anything is written. DIR keeps what it held, and may be
// one of the runs (to add a late shard to an earlier merge). Runs whose cases overlap are refused:
// their counts would be added twice. So are runs made by another convparity, LibTorch or version
// of a SUT they share (each summary says which, summary/3), unless --mix-versions: the merged
// summary then lists what differed ("mixed_versions"). Shards of the campaign that no run covers
// are named missing, and runs that did not end by themselves (cancelled, killed: their last
// checkpoint says so) incomplete, on stderr and in the summary. Exit 0 when merged, 2 on bad input.
#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <numeric>
#include <optional>
#include <set>
#include <string>
#include <system_error>
#include <utility>
#include <vector>

#include "harness/cli/commands.h"
#include "harness/engine/summary_counts.h"
#include "harness/io/files.h"
#include "reports/json_values.h"
#include "reports/summary_json.h"

namespace convparity {
namespace {

namespace fs = std::filesystem;
using Bucket = CampaignSummary::Bucket;

struct Run {
  std::string dir;
  CampaignSummary summary;
  ToolInfo tool;
};

Result<Run> ReadRun(const std::string& dir) {
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) return Status::Invalid(dir + ": no such folder");
  const std::string path = dir + "/summary.json";
  if (!fs::exists(path, ec))
    return Status::Invalid(path + ": missing; merge takes the --out folders of convparity fuzz");
  Result<std::string> text = ReadFile(path);
  if (!text.ok()) return text.status();
  const nlohmann::json j = nlohmann::json::parse(*text, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded()) return Status::Invalid(path + ": not valid JSON");
  Run run{dir, {}, {}};
  Result<CampaignSummary> summary = SummaryFromJson(j, &run.tool);
  if (!summary.ok()) return summary.status().WithContext(path);
  run.summary = *summary;
  return run;
}

// The *.json files directly in `folder`, sorted; none when it does not exist (a run that found
// nothing has no reports/ and no corpus/). Temp files of an interrupted write end in .tmp.<pid>.
Result<std::vector<std::string>> JsonFiles(const fs::path& folder) {
  std::vector<std::string> names;
  std::error_code ec;
  if (!fs::exists(folder, ec)) return names;
  for (fs::directory_iterator it(folder, ec), end; !ec && it != end; it.increment(ec)) {
    const std::string name = it->path().filename().string();
    std::error_code type_ec;
    if (it->is_regular_file(type_ec) && name[0] != '.' && name.size() > 5 &&
        name.compare(name.size() - 5, 5, ".json") == 0)
      names.push_back(name);
  }
  if (ec) return Status::Invalid(folder.string() + ": cannot list: " + ec.message());
  std::sort(names.begin(), names.end());
  return names;
}

// Every shard a summary covers, as (I, N).
std::vector<std::pair<int, int>> ShardsOf(const CampaignSummary& s) {
  std::vector<std::pair<int, int>> shards{{s.options.shard_index, s.options.shard_count}};
  for (const std::string& text : s.merged_shards)
    if (Result<std::pair<int, int>> shard = ShardFor(text); shard.ok()) shards.push_back(*shard);
  return shards;
}

// Two shards I/N and J/M of one campaign that share a case index, if `a` and `b` checked some of
// the same cases: the same campaign (seed and everything that shapes case i), a SUT in common, and
// shards whose index classes meet. I/N takes i ≡ I (mod N), so I/N and J/M share indices exactly
// when I ≡ J (mod gcd(N, M)). A merged summary's options are its first run's, so for it this sees
// only what that run shared with the others.
std::optional<std::string> Overlap(const CampaignSummary& a, const CampaignSummary& b) {
  const CampaignSummary::Options& x = a.options;
  const CampaignSummary::Options& y = b.options;
  if (a.cases == 0 || b.cases == 0 || x.seed != y.seed || x.directions != y.directions ||
      x.fills != y.fills || x.dims != y.dims || x.max_macs != y.max_macs)
    return std::nullopt;
  const bool common_sut = std::any_of(x.suts.begin(), x.suts.end(), [&](const std::string& sut) {
    return std::find(y.suts.begin(), y.suts.end(), sut) != y.suts.end();
  });
  if (!common_sut) return std::nullopt;
  for (const auto& [i, n] : ShardsOf(a))
    for (const auto& [j, m] : ShardsOf(b))
      if ((i - j) % std::gcd(n, m) == 0)
        return std::to_string(i) + "/" + std::to_string(n) + " and " + std::to_string(j) + "/" +
               std::to_string(m);
  return std::nullopt;
}

Status CheckDisjoint(const std::vector<Run>& runs) {
  for (size_t a = 0; a < runs.size(); ++a) {
    for (size_t b = a + 1; b < runs.size(); ++b) {
      std::error_code ec;
      if (fs::equivalent(runs[a].dir, runs[b].dir, ec))
        return Status::Invalid(runs[b].dir + ": named twice (as " + runs[a].dir + ")");
      if (std::optional<std::string> shards = Overlap(runs[a].summary, runs[b].summary))
        return Status::Invalid(runs[a].dir + " and " + runs[b].dir + " checked some of the same " +
                               "cases (shards " + *shards + " of seed " +
                               std::to_string(runs[a].summary.options.seed) +
                               "); merging would count them twice");
    }
  }
  return Status::Ok();
}

// Copies by reading and writing atomically, so an interrupted merge leaves no torn file; a target
// that is the source itself (DIR is one of the runs) stays as it is.
Status CopyInto(const fs::path& from, const fs::path& to) {
  std::error_code ec;
  if (fs::equivalent(from, to, ec)) return Status::Ok();
  Result<std::string> text = ReadFile(from.string());
  if (!text.ok()) return text.status();
  return WriteFileAtomically(to.string(), *text);
}

// Where each report of the merged folder comes from: its run, and the bucket that run's summary
// lists for it (null if none does).
struct ReportSource {
  size_t run = 0;
  const Bucket* bucket = nullptr;
};

Result<std::map<std::string, ReportSource>> ChooseReports(const std::vector<Run>& runs) {
  std::map<std::string, ReportSource> chosen;
  for (size_t r = 0; r < runs.size(); ++r) {
    std::map<std::string, const Bucket*> by_file;
    for (const auto& [signature, bucket] : runs[r].summary.buckets)
      if (!bucket.report_file.empty()) by_file[bucket.report_file] = &bucket;
    Result<std::vector<std::string>> names = JsonFiles(fs::path(runs[r].dir) / "reports");
    if (!names.ok()) return names.status();
    for (const std::string& name : *names) {
      auto listed = by_file.find(name);
      const ReportSource here{r, listed == by_file.end() ? nullptr : listed->second};
      auto [it, inserted] = chosen.try_emplace(name, here);
      // Strictly earlier replaces, so on a tie the run named first keeps it (as in Merge).
      const Bucket* kept = it->second.bucket;
      if (!inserted && here.bucket && (!kept || here.bucket->SeenBefore(*kept))) it->second = here;
    }
  }
  return chosen;
}

// Copies the union of the corpora into `corpus`; returns how many distinct cases the runs hold.
Result<size_t> MergeCorpora(const std::vector<Run>& runs, const fs::path& corpus) {
  std::set<std::string> seen;
  for (const Run& run : runs) {
    Result<std::vector<std::string>> names = JsonFiles(fs::path(run.dir) / "corpus");
    if (!names.ok()) return names.status();
    for (const std::string& name : *names) {
      if (!seen.insert(name).second) continue;  // same content hash: the same case
      std::error_code ec;
      if (fs::exists(corpus / name, ec)) continue;  // DIR had it already
      CP_RETURN_IF_ERROR(CopyInto(fs::path(run.dir) / "corpus" / name, corpus / name));
    }
  }
  return seen.size();
}

// What differs between the versions that made `a` and those that made `b`: convparity's,
// LibTorch's, and each SUT's that both ran. Empty when they agree.
std::vector<std::string> VersionDifferences(const Run& a, const Run& b) {
  std::vector<std::string> differences;
  auto differ = [&](const std::string& what, const std::string& x, const std::string& y) {
    if (x != y) differences.push_back(what + " '" + y + "' (" + a.dir + ": '" + x + "')");
  };
  differ("convparity", a.tool.version, b.tool.version);
  differ("LibTorch", a.tool.torch_version, b.tool.torch_version);
  for (const auto& [sut, version] : a.summary.sut_versions)
    if (auto theirs = b.summary.sut_versions.find(sut); theirs != b.summary.sut_versions.end())
      differ("SUT " + sut, version, theirs->second);
  return differences;
}

std::string Joined(const std::vector<std::string>& items, const char* separator = ", ") {
  std::string text;
  for (const std::string& item : items) text += (text.empty() ? "" : separator) + item;
  return text;
}

std::string Plural(size_t n, const char* noun) {
  return std::to_string(n) + " " + noun + (n == 1 ? "" : "s");
}

}  // namespace

int RunMerge(const std::vector<std::string>& dirs, const Flags& f) {
  std::vector<Run> runs;
  for (const std::string& dir : dirs) {
    Result<Run> run = ReadRun(dir);
    if (!run.ok()) return Fail(run.status());
    runs.push_back(*run);
  }
  if (runs.empty()) return Fail(Status::Invalid("merge: no run folders given"));
  if (Status st = CheckDisjoint(runs); !st.ok()) return Fail(st);
  std::vector<std::string> mixed;
  for (size_t r = 1; r < runs.size(); ++r) {
    const std::vector<std::string> differences = VersionDifferences(runs[0], runs[r]);
    if (differences.empty()) continue;
    if (!f.mix_versions)
      return Fail(Status::Invalid(runs[r].dir + " was made by other versions than " + runs[0].dir +
                                  ": " + Joined(differences, "; ") +
                                  " (--mix-versions merges them anyway)"));
    mixed.push_back(runs[r].dir + ": " + Joined(differences, "; "));
  }
  Result<std::map<std::string, ReportSource>> reports = ChooseReports(runs);
  if (!reports.ok()) return Fail(reports.status());

  CampaignSummary merged = runs[0].summary;
  size_t buckets_found = merged.buckets.size();
  for (size_t r = 1; r < runs.size(); ++r) {
    MergeSummary(&merged, runs[r].summary);
    buckets_found += runs[r].summary.buckets.size();
    // A SUT only later runs checked keeps its version; one they share is the first run's.
    merged.sut_versions.insert(runs[r].summary.sut_versions.begin(),
                               runs[r].summary.sut_versions.end());
  }
  merged.mixed_versions.insert(merged.mixed_versions.end(), mixed.begin(), mixed.end());
  for (const std::string& line : mixed)
    std::fprintf(stderr, "convparity: warning: versions mixed: %s\n", line.c_str());

  const fs::path out(f.out);
  Result<size_t> corpus_cases = MergeCorpora(runs, out / "corpus");
  if (!corpus_cases.ok()) return Fail(corpus_cases.status());
  for (const auto& [name, source] : *reports)
    if (Status st =
            CopyInto(fs::path(runs[source.run].dir) / "reports" / name, out / "reports" / name);
        !st.ok())
      return Fail(st);
  size_t missing = 0;
  for (const auto& [signature, bucket] : merged.buckets)
    if (!bucket.report_file.empty() && !reports->count(bucket.report_file)) ++missing;
  if (missing > 0)
    std::fprintf(stderr, "convparity: warning: %zu of %zu buckets have no report file in any run\n",
                 missing, merged.buckets.size());
  const std::string summary_path = (out / "summary.json").string();
  if (Status st =
          WriteFileAtomically(summary_path, JsonFileText(SummaryJson(merged, runs[0].tool)));
      !st.ok())
    return Fail(st);

  const std::vector<std::string> missing_shards = MissingShards(merged);
  if (!missing_shards.empty())
    std::fprintf(stderr, "convparity: warning: %s of %d missing: %s\n",
                 Plural(missing_shards.size(), "shard").c_str(), merged.options.shard_count,
                 Joined(missing_shards).c_str());
  if (!merged.incomplete_shards.empty())
    std::fprintf(
        stderr,
        "convparity: warning: %s incomplete (stopped or killed before its budget; "
        "merged with what it had written): %s\n",
        Plural(merged.incomplete_shards.size(), "shard").c_str(),
        Joined({merged.incomplete_shards.begin(), merged.incomplete_shards.end()}).c_str());
  std::printf("merged %s: %lld checks, %s (%s collapsed), %s; summary in %s\n",
              Plural(runs.size(), "run").c_str(), static_cast<long long>(merged.cases),
              Plural(merged.buckets.size(), "bucket").c_str(),
              Plural(buckets_found - merged.buckets.size(), "duplicate").c_str(),
              Plural(*corpus_cases, "corpus case").c_str(), summary_path.c_str());
  return kExitParity;
}

}  // namespace convparity
