#include "harness/cli/cli_options.h"

#include <sched.h>

#include <algorithm>
#include <cinttypes>
#include <cstdio>
#include <cstdlib>

#include "harness/suts/sut_config.h"

namespace convparity {

Result<std::vector<Fill>> FillsFor(const std::string& mode) {
  if (mode == "exact") return std::vector<Fill>{Fill::kExact};
  if (mode == "random") return std::vector<Fill>{Fill::kUniform, Fill::kPositive, Fill::kWide};
  if (mode == "both")
    return std::vector<Fill>{Fill::kExact, Fill::kUniform, Fill::kPositive, Fill::kWide};
  Result<Fill> one = ParseFill(mode);
  if (!one.ok())
    return Status::Invalid(
        "--fill: expected exact, random, both, uniform, positive or wide, got '" + mode + "'");
  return std::vector<Fill>{*one};
}

Result<std::vector<Direction>> DirectionsFor(const std::vector<std::string>& names) {
  std::vector<Direction> out;
  for (const std::string& n : names) {
    Result<Direction> d = ParseDirection(n);
    if (!d.ok()) return d.status().WithContext("--direction");
    out.push_back(*d);
  }
  return out;
}

Result<std::vector<int>> DimsFor(const std::string& text) {
  std::vector<int> dims;
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] == ',') continue;
    if (text[i] < '1' || text[i] > '3' || (i + 1 < text.size() && text[i + 1] != ','))
      return Status::Invalid("--dims: expected a list of 1, 2 and 3 like 1,2,3, got '" + text +
                             "'");
    dims.push_back(text[i] - '0');
  }
  if (dims.empty()) return Status::Invalid("--dims: empty");
  return dims;
}

Result<std::pair<int, int>> ShardFor(const std::string& text) {
  int index = -1, count = 0;
  char tail = 0;
  if (std::sscanf(text.c_str(), "%d/%d%c", &index, &count, &tail) != 2 || count < 1 ||
      count > 1000000 || index < 0 || index >= count)
    return Status::Invalid("--shard: expected I/N with 0 <= I < N, got '" + text + "'");
  return std::pair{index, count};
}

int JobsFor(const Flags& f) {
  if (f.jobs > 0) return f.jobs;
  // The CPUs of our affinity mask (taskset, a container's cpuset), not every CPU of the machine.
  cpu_set_t cpus;
  if (sched_getaffinity(0, sizeof cpus, &cpus) == 0) return std::clamp(CPU_COUNT(&cpus), 1, 256);
  return 1;
}

Isolation IsolationFor(const Flags& f) {
  if (f.isolate == "none") return Isolation::kNone;
  return f.isolate == "case" ? Isolation::kCase : Isolation::kWorker;
}

TriageOptions TriageOptionsFor(const Flags& f, const CheckContext& context) {
  TriageOptions o;
  o.isolation = IsolationFor(f);
  o.case_timeout = f.timeout;
  o.check = context;
  o.timeout_floor = f.timeout_floor;
  o.malloc_check = f.malloc_check;
  o.max_shrink_calls = f.max_shrink_calls;
  return o;
}

RunnerOptions RunnerFor(const Flags& f, const CheckContext& context) {
  return RunnerOptions{IsolationFor(f), f.timeout, JobsFor(f), context};
}

Limits LimitsFor(const Flags& f, bool max_macs_given) {
  Limits limits;
  limits.max_tensor_elements = f.max_elements;
  limits.max_extent = f.max_extent;
  if (max_macs_given) limits.max_macs = f.max_macs;
  return limits;
}

Result<SutConfig> ConfigureSuts(const Flags& f) {
  SutConfig config;
  config.case_timeout_seconds = f.timeout;
  if (!f.config.empty()) CP_RETURN_IF_ERROR(config.LoadFile(f.config));
  for (const std::string& m : f.sut_map) CP_RETURN_IF_ERROR(config.AddMapping(m));
  CP_RETURN_IF_ERROR(config.CheckMappings());
  for (const std::string& spec : f.allow_sut) {
    if (!LoadsOrRunsCode(spec))
      return Status::Invalid("--allow-sut: '" + spec.substr(0, 120) +
                             "' neither loads nor runs code (expected plugin:... or exec:...)");
    config.allowed.insert(spec);
  }
  for (const std::string& sut : f.suts)
    if (LoadsOrRunsCode(sut)) config.allowed.insert(sut);
  SutConfigArgument(config);  // throws, as the workers' argument would, on a spec not in UTF-8
  return config;
}

std::string OneLine(const std::string& message) {
  std::string line;
  for (const char ch : message) {
    const unsigned char c = static_cast<unsigned char>(ch);
    if (c >= 0x20 && c != 0x7f) {
      line += ch;
    } else {
      char escaped[8];
      std::snprintf(escaped, sizeof escaped, "\\x%02x", c);
      line += escaped;
    }
  }
  return line;
}

int Fail(const Status& st) {
  std::fprintf(stderr, "convparity: %s\n", OneLine(st.message()).c_str());
  return st.code() == StatusCode::kInternal ? kExitInternal : kExitBadInput;
}

}  // namespace convparity
