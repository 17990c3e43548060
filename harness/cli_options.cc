#include "harness/cli_options.h"

#include <cstdio>

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

int Fail(const Status& st) {
  std::fprintf(stderr, "convparity: %s\n", st.message().c_str());
  return st.code() == StatusCode::kInternal ? kExitInternal : kExitBadInput;
}

}  // namespace convparity
