#include "harness/io/fuzz_support.h"

#include <cstdio>
#include <cstdlib>

#include "core/features.h"
#include "harness/engine/triage.h"
#include "harness/io/finding_files.h"
#include "harness/suts/sut_registry.h"

namespace convparity {

Result<ByteDecoderOptions> FuzzDecoderOptions(const std::vector<std::string>& suts,
                                              int64_t max_macs) {
  ByteDecoderOptions o;
  o.suts = suts;
  if (o.suts.empty()) {
    Result<std::vector<std::string>> names = NamesFromEnv("CONVPARITY_FUZZ_SUT");
    if (!names.ok()) return names.status();
    o.suts = *names;
  }
  if (o.suts.empty()) o.suts = OurSutNames();
  // Their cases may be chains.
  o.runs_graphs = [](const std::string& sut) { return RunsGraphs(sut); };
  // Theirs are spelled.
  o.reads_models = [](const std::string& sut) { return ReadsModels(sut); };
  const char* env_macs = std::getenv("CONVPARITY_FUZZ_MAX_MACS");
  if (max_macs > 0) {
    o.max_macs = max_macs;
    o.large_factor = 1;  // --max-macs is then the limit of every case too
  } else if (env_macs != nullptr && env_macs[0] != '\0') {
    char* end = nullptr;
    const long long v = std::strtoll(env_macs, &end, 10);
    if (*end != '\0' || v < 1 || v > (int64_t{1} << 40))
      return Status::Invalid(std::string("CONVPARITY_FUZZ_MAX_MACS: expected a count from 1 to "
                                         "2^40, got '") +
                             env_macs + "'");
    o.max_macs = v;
  }
  return o;
}

Result<std::vector<std::string>> NamesFromEnv(const char* variable) {
  std::vector<std::string> names;
  const char* value = std::getenv(variable);
  if (value == nullptr || value[0] == '\0') return names;
  const std::string list = value;
  for (size_t start = 0; start <= list.size();) {
    size_t comma = list.find(',', start);
    if (comma == std::string::npos) comma = list.size();
    if (comma == start)
      return Status::Invalid(std::string(variable) + ": empty name in '" + list + "'");
    names.push_back(list.substr(start, comma - start));
    start = comma + 1;
  }
  return names;
}

void ExitOnBadSetup(const char* target, const Status& status) {
  std::fprintf(stderr, "%s: %s\n", target, status.message().c_str());
  std::exit(2);
}

std::string FuzzOutDir() {
  const char* out = std::getenv("CONVPARITY_FUZZ_OUT");
  return out != nullptr && out[0] != '\0' ? out : "convparity-fuzz-out";
}

Result<std::string> WriteFuzzFinding(const std::string& out, const ConvCase& c,
                                     const CaseOutcome& outcome) {
  Finding f{c, outcome, c, outcome, {}};
  f.bucket = FindingBucket(f);
  Result<FindingFiles> files = WriteFinding(f, out, "", CheckContext{});
  if (!files.ok()) return files.status();
  return files->report_path;
}

}  // namespace convparity
