// The values of benchdnn's conv options, one parser each (--dir, --dt, --cfg, --bia-dt, the tags,
// --strides, --alg, --mb, --match's pattern), and the options known to change nothing: what
// BenchdnnSettings (benchdnn_settings.h) reads a token's value with. Every error names the option,
// the value and what was expected.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/status.h"
#include "harness/io/benchdnn_settings.h"

namespace convparity::benchdnn_options {

// Why a known option that does not change the convolution is ignored; nullptr for any other.
const char* WhyIgnored(const std::string& name);

// Whether `s` is non-empty and of letters, digits and `allowed_punctuation` only.
bool AllOf(const std::string& s, const char* allowed_punctuation);
// `s` quoted for a message: at most 60 bytes, unprintable bytes as '?'.
std::string Shown(const std::string& s);

// A comma list's values; empty ones are errors (benchdnn would fail on them one by one).
Result<std::vector<std::string>> SplitList(const std::string& option, const std::string& value);

template <typename T, typename F>
Status ParseList(const std::string& option, const std::string& value, std::vector<T>& out,
                 F parse_one) {
  out.clear();
  if (value.empty()) return Status::Ok();  // the default
  Result<std::vector<std::string>> items = SplitList(option, value);
  if (!items.ok()) return items.status();
  for (const std::string& item : *items) {
    Result<T> v = parse_one(item);
    if (!v.ok()) return Status::Invalid(option + "=" + Shown(value) + ": " + v.status().message());
    out.push_back(*v);
  }
  return Status::Ok();
}

Result<BenchdnnDir> ParseDir(const std::string& s);
Result<std::string> ParseDataTypes(const std::string& s);  // "f32" or "src:wei:dst"
Result<std::string> ParseCfg(const std::string& s);        // a deprecated --cfg name's types
Result<std::string> ParseDataType(const std::string& s);
Result<std::string> ParseTag(const std::string& s);
Result<std::string> ParseStrides(const std::string& s);  // "SRC:WEI:DST"
Result<Algorithm> ParseAlg(const std::string& s);
Result<int64_t> ParseMb(const std::string& s);
const char* AlgName(Algorithm a);
// Refuses --match patterns whose matching could take unbounded time or memory.
Status CheckPattern(const std::string& p);

}  // namespace convparity::benchdnn_options
