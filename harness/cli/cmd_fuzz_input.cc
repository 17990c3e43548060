// `convparity import-fuzz-input` and `export-fuzz-seeds`: between libFuzzer inputs and case files.
// Import decodes a fuzzer's input (a crash-* file, a corpus entry) with the fuzz targets' own
// decoder and SUT list into a case file that `convparity repro` runs. Export encodes case files
// (and generated cases) as seed inputs of fuzz_parity, or of fuzz_inputs' readers.
#include <cstdio>
#include <cstring>
#include <set>

#include "core/descriptor.h"
#include "core/features.h"
#include "harness/cli/commands.h"
#include "harness/engine/campaign.h"
#include "harness/engine/campaign_cases.h"
#include "harness/engine/outcome_wire.h"
#include "harness/engine/summary_counts.h"
#include "harness/engine/tool_info.h"
#include "harness/io/case_files.h"
#include "harness/io/files.h"
#include "harness/io/fuzz_support.h"
#include "harness/plugin/plugin_sut.h"
#include "harness/suts/sut_registry.h"
#include "reports/json_values.h"
#include "reports/summary_json.h"

namespace convparity {
namespace {

constexpr size_t kMaxFuzzInputBytes = 1 << 20;

// The decoder options of the fuzz targets, every SUT checked to exist (a typo is a usage error,
// not a case that cannot be replayed).
Result<ByteDecoderOptions> CheckedOptions(const Flags& f, const SutConfig& config,
                                          bool max_macs_given) {
  Result<ByteDecoderOptions> o = FuzzDecoderOptions(f.suts, max_macs_given ? f.max_macs : 0);
  if (!o.ok()) return o.status();
  for (const std::string& name : o->suts)
    if (Result<std::unique_ptr<Sut>> sut = MakeSut(name, config); !sut.ok()) return sut.status();
  return o;
}

std::string HashName(const std::string& bytes) {
  uint64_t h = 0xcbf29ce484222325ull;  // FNV-1a, as case file names
  for (unsigned char ch : bytes) h = (h ^ ch) * 0x100000001b3ull;
  char name[24];
  std::snprintf(name, sizeof name, "%016llx", static_cast<unsigned long long>(h));
  return name;
}

// A benchdnn problem line for `p` (fuzz_inputs' benchdnn reader): i, k, s, p and d per spatial
// axis, the output left to benchdnn's deduction. NOTE: benchdnn's dilation is ours minus one.
std::string BenchdnnLine(const ConvProblem& p) {
  static const char* const kAxes[kMaxSpatialRank + 1] = {"", "w", "hw", "dhw"};
  std::string s = "g" + std::to_string(p.groups) + "mb" + std::to_string(p.batch) + "ic" +
                  std::to_string(p.in_channels) + "oc" + std::to_string(p.out_channels);
  for (auto [key, dims, minus] : {std::tuple{'i', &p.input, 0},
                                  {'k', &p.kernel, 0},
                                  {'s', &p.stride, 0},
                                  {'p', &p.pad_begin, 0},
                                  {'d', &p.dilation, 1}})
    for (int i = 0; i < p.rank; ++i)
      s += std::string(1, key) + kAxes[p.rank][i] + std::to_string((*dims)[i] - minus);
  return s + "n\"seed\"\n";
}

}  // namespace

int RunImportFuzzInput(const std::vector<std::string>& files, const Flags& f,
                       const SutConfig& config, bool max_macs_given) {
  Result<ByteDecoderOptions> options = CheckedOptions(f, config, max_macs_given);
  if (!options.ok()) return Fail(options.status());
  const std::string corpus = f.corpus.empty() ? f.out + "/corpus" : f.corpus;
  for (const std::string& file : files) {
    Result<std::string> bytes = ReadFile(file, kMaxFuzzInputBytes);
    if (!bytes.ok()) return Fail(bytes.status());
    const ConvCase c = DecodeCase(*bytes, *options);
    Result<std::string> path = WriteCaseFile(corpus, c);
    if (!path.ok()) return Fail(path.status());
    std::printf("%s %s %s seed %llu: %s\n", CaseTitle(c).c_str(), c.sut.c_str(), FillName(c.fill),
                static_cast<unsigned long long>(c.seed), path->c_str());
  }
  return kExitParity;
}

int RunExportFuzzSeeds(const std::vector<std::string>& paths, const Flags& f,
                       const SutConfig& config, bool max_macs_given) {
  const std::string& target = f.target;
  const int64_t generate = f.generate;
  if (target != "parity" && target != "inputs")
    return Fail(Status::Invalid("--target: expected parity or inputs, got '" + target + "'"));
  Result<ByteDecoderOptions> options = CheckedOptions(f, config, max_macs_given);
  if (!options.ok()) return Fail(options.status());
  Result<std::vector<LoadedCase>> loaded = LoadCaseFiles(paths);
  if (!loaded.ok()) return Fail(loaded.status());
  std::vector<ConvCase> cases;
  for (const LoadedCase& l : *loaded) cases.push_back(l.c);
  // Generated cases spread the seeds over every feature, whatever the corpus holds.
  CampaignOptions campaign;
  campaign.seed = f.seed;
  campaign.max_macs = options->max_macs;
  // Large generated cases only where the decoder carries them (not under --max-macs).
  campaign.check.limits.max_macs = LargeMacs(*options);
  Result<CampaignSpace> space = MakeCampaignSpace(campaign, OurSutNames());
  if (!space.ok()) return Fail(space.status());
  for (int64_t i = 0; i < generate; ++i) {
    ConvCase c = DrawCase(campaign, *space, i).Case();
    c.sut = options->suts[static_cast<size_t>(i) % options->suts.size()];
    cases.push_back(c);
  }
  std::set<std::string> written;
  int skipped = 0;
  auto write = [&](const std::string& bytes) -> Status {
    if (!written.insert(bytes).second) return Status::Ok();
    return WriteFileAtomically(f.out + "/" + HashName(bytes), bytes);
  };
  CampaignSummary summary;
  for (ConvCase c : cases) {
    // The format carries parity cases of the decoder's SUTs: a regression witness or another
    // SUT's case still seeds its problem.
    c.expect = Verdict::kPassed;
    c.note.clear();
    c.origin = {};
    c.algorithm = Algorithm::kDirect;
    if (c.transform) {
      ++skipped;
      continue;
    }
    if (std::find(options->suts.begin(), options->suts.end(), c.sut) == options->suts.end())
      c.sut = options->suts.front();
    // Likewise a graph given to a SUT that runs single convolutions seeds its convolution.
    if (*c.graph != ConvForm() && !options->runs_graphs(c.sut)) c.graph = &ConvForm();
    // And a spelled case given to a SUT that reads no model seeds its problem, plainly spelled.
    if (!options->reads_models(c.sut)) c.spelling = Spelling{};
    Result<std::string> bytes = EncodeCase(c, *options);
    Status st;
    if (target == "parity") {
      if (bytes.ok()) st = write(*bytes);
    } else {
      auto tagged = [](FuzzReader r, const std::string& text) {
        return std::string(1, static_cast<char>(r)) + text;
      };
      convparity_problem s = PluginStructFromProblem(c.problem);
      s.spelling = nullptr;  // an address means nothing in a file: the seed stays reproducible
      CaseOutcome outcome;
      outcome.verdict = Verdict::kPassed;
      CountCase(&summary, c, outcome, true);
      for (const std::string& seed :
           {tagged(FuzzReader::kDescriptor, CaseDescriptor(c.problem, c.direction)),
            tagged(FuzzReader::kCaseJson, JsonFileText(CaseToJson(c))),
            tagged(c.problem.transposed ? FuzzReader::kBenchdnnDeconv : FuzzReader::kBenchdnn,
                   BenchdnnLine(c.problem)),
            tagged(FuzzReader::kPluginStruct,
                   std::string(reinterpret_cast<const char*>(&s), sizeof s)),
            tagged(FuzzReader::kByteDecoder, bytes.ok() ? *bytes : std::string())})
        if (st.ok()) st = write(seed);
    }
    if (!st.ok()) return Fail(st);
    if (!bytes.ok()) {
      ++skipped;
      if (!f.quiet)
        std::fprintf(stderr, "not encoded: %s: %s\n", CaseTitle(c).c_str(),
                     bytes.status().message().c_str());
    }
  }
  if (target == "inputs") {
    CaseOutcome outcome;
    outcome.verdict = Verdict::kFailed;
    outcome.reason = "1 of 4 elements differ";
    for (const std::string& seed :
         {std::string(1, static_cast<char>(FuzzReader::kSummaryJson)) +
              JsonFileText(SummaryJson(summary, CurrentToolInfo())),
          std::string(1, static_cast<char>(FuzzReader::kWorkerAnswer)) +
              FramedAnswer({WorkerAnswer::Kind::kOutcome, 7, 0, 1, outcome})
                  .substr(sizeof(uint32_t))})
      if (Status st = write(seed); !st.ok()) return Fail(st);
  }
  std::printf("%zu seeds written to %s (%d cases not encodable, skipped)\n", written.size(),
              f.out.c_str(), skipped);
  return kExitParity;
}

}  // namespace convparity
