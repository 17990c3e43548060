#include "harness/io/benchdnn_option_values.h"

#include <algorithm>
#include <cctype>
#include <cstring>

namespace convparity::benchdnn_options {
namespace {

constexpr size_t kMaxListValues = 1000;  // per option; real lists hold at most a dozen
constexpr size_t kMaxPatternBytes = 200;
constexpr int64_t kMaxRepetition = 1000;  // product of a pattern's \{m,n\} bounds

// Options that do not change the convolution, and why (benchdnn's knobs_common.md, knobs_attr.md).
struct IgnoredOption {
  const char* name;
  const char* why;
};
constexpr IgnoredOption kIgnored[] = {
    {"attr-post-ops", "post-ops act on the result (a fused depthwise convolution too)"},
    {"attr-scales", "quantization scales, for integer and low-precision data"},
    {"attr-zero-points", "quantization zero points, for integer data"},
    {"attr-fpmath", "lets the library compute in a lower precision"},
    {"attr-acc-mode", "the library's accumulation mode"},
    {"attr-rounding-mode", "rounding of the result's conversion"},
    {"attr-deterministic", "asks the library for deterministic results"},
    {"attr-scratchpad", "who allocates the library's scratch memory"},
    {"attr-dropout", "a dropout applied to the result"},
    {"skip-impl", "chooses among oneDNN's implementations"},
    {"impl", "chooses among oneDNN's implementations"},
    {"global-impl", "chooses among oneDNN's implementations"},
    {"global-skip-impl", "chooses among oneDNN's implementations"},
    {"cpu-isa-hints", "an instruction-set hint to oneDNN's CPU engine"},
    {"engine", "where oneDNN runs"},
    {"memory-kind", "where oneDNN runs"},
    {"stream-kind", "where oneDNN runs"},
    {"execution-mode", "where oneDNN runs"},
    {"num-streams", "where oneDNN runs"},
    {"ctx-init", "oneDNN's threading"},
    {"ctx-exe", "oneDNN's threading"},
    {"allow-enum-tags-only", "a check of benchdnn's"},
    {"check-ref-impl", "a check of benchdnn's"},
    {"attr-same-pd-check", "a check of benchdnn's"},
    {"mem-check", "a check of benchdnn's"},
    {"fast-ref", "benchdnn's own reference"},
    {"canonical", "how benchdnn prints problems"},
    {"mode", "how benchdnn runs and reports"},
    {"mode-modifier", "how benchdnn runs and reports"},
    {"max-ms-per-prb", "how benchdnn runs and reports"},
    {"fix-times-per-prb", "how benchdnn runs and reports"},
    {"repeats-per-prb", "how benchdnn runs and reports"},
    {"cold-cache", "how benchdnn runs and reports"},
    {"perf-template", "how benchdnn runs and reports"},
    {"summary", "how benchdnn runs and reports"},
    {"verbose", "how benchdnn runs and reports"},
    {"start", "how benchdnn runs and reports (it skips the first tests)"},
    {"help", "prints benchdnn's help"},
};

// The deprecated --cfg names of driver_conv.md and the data types they stand for.
struct CfgName {
  const char* cfg;
  const char* dt;
};
constexpr CfgName kCfgs[] = {
    {"f32", "f32"},
    {"f64", "f64"},
    {"f32f32s8", "f32:f32:s8"},
    {"u8s8f32", "u8:s8:f32"},
    {"u8s8s32", "u8:s8:s32"},
    {"u8s8s8", "u8:s8:s8"},
    {"u8s8u8", "u8:s8:u8"},
    {"s8s8f32", "s8:s8:f32"},
    {"s8s8s32", "s8:s8:s32"},
    {"s8s8s8", "s8:s8:s8"},
    {"s8s8u8", "s8:s8:u8"},
    {"f32_wino", "f32"},
    {"f16", "f16"},
    {"f16f16s8", "f16:f16:s8"},
    {"bf16bf16bf16", "bf16"},
    {"bf16bf16f32", "bf16:bf16:f32"},
    {"bf16f32bf16", "bf16:f32:bf16"},
    {"f32bf16bf16", "f32:bf16:bf16"},
};

bool EqualsIgnoringCase(const std::string& a, const char* b) {
  if (a.size() != std::strlen(b)) return false;
  for (size_t i = 0; i < a.size(); ++i)
    if (std::tolower(static_cast<unsigned char>(a[i])) !=
        std::tolower(static_cast<unsigned char>(b[i])))
      return false;
  return true;
}

}  // namespace

const char* WhyIgnored(const std::string& name) {
  for (const IgnoredOption& o : kIgnored)
    if (name == o.name) return o.why;
  return nullptr;
}

bool AllOf(const std::string& s, const char* allowed_punctuation) {
  for (char c : s)
    if (!std::isalnum(static_cast<unsigned char>(c)) && !std::strchr(allowed_punctuation, c))
      return false;
  return !s.empty();
}

std::string Shown(const std::string& s) {
  std::string out = s.substr(0, 60);
  for (char& c : out)
    if (static_cast<unsigned char>(c) < 0x20 || static_cast<unsigned char>(c) >= 0x7f) c = '?';
  return "'" + out + (s.size() > 60 ? "...'" : "'");
}

// A comma list's values; empty ones are errors (benchdnn would fail on them one by one).
Result<std::vector<std::string>> SplitList(const std::string& option, const std::string& value) {
  std::vector<std::string> items;
  for (size_t begin = 0;;) {
    const size_t comma = value.find(',', begin);
    const std::string item = value.substr(begin, comma - begin);
    if (item.empty())
      return Status::Invalid(option + "=" + Shown(value) + ": an empty value in the list");
    items.push_back(item);
    if (items.size() > kMaxListValues)
      return Status::Limit(option + ": more than " + std::to_string(kMaxListValues) + " values");
    if (comma == std::string::npos) return items;
    begin = comma + 1;
  }
}

Result<BenchdnnDir> ParseDir(const std::string& s) {
  for (BenchdnnDir d :
       {BenchdnnDir::kFwdD, BenchdnnDir::kFwdB, BenchdnnDir::kFwdI, BenchdnnDir::kBwdD,
        BenchdnnDir::kBwdW, BenchdnnDir::kBwdWB, BenchdnnDir::kBwdDW})
    if (EqualsIgnoringCase(s, BenchdnnDirName(d))) return d;
  return Status::Invalid("unknown direction " + Shown(s) +
                         " (FWD_D, FWD_B, FWD_I, BWD_D, BWD_W, BWD_WB or BWD_DW)");
}

Result<std::string> ParseDataTypes(const std::string& s) {
  size_t parts = 1;
  for (char c : s) parts += c == ':';
  if (!AllOf(s, ":_") || (parts != 1 && parts != 3) || s.find("::") != std::string::npos ||
      s.front() == ':' || s.back() == ':')
    return Status::Invalid("data types " + Shown(s) +
                           ": expected one type or three (src:wei:dst), e.g. f32 or u8:s8:u8");
  return s;
}

Result<std::string> ParseCfg(const std::string& s) {
  for (const CfgName& c : kCfgs)
    if (s == c.cfg) return std::string(c.dt);
  return Status::Invalid("unknown configuration " + Shown(s));
}

Result<std::string> ParseDataType(const std::string& s) {
  if (!AllOf(s, "_")) return Status::Invalid("malformed data type " + Shown(s));
  return s;
}

Result<std::string> ParseTag(const std::string& s) {
  if (!AllOf(s, "_")) return Status::Invalid("malformed format tag " + Shown(s));
  return s;
}

// "SRC:WEI:DST", each empty or "AxBx…" of decimal numbers.
Result<std::string> ParseStrides(const std::string& s) {
  size_t colons = 0;
  bool ok = true;
  for (size_t i = 0; i < s.size(); ++i) {
    const char c = s[i];
    if (c == ':') {
      ++colons;
    } else if (c == 'x') {
      ok &= i > 0 && std::isdigit(static_cast<unsigned char>(s[i - 1])) && i + 1 < s.size() &&
            std::isdigit(static_cast<unsigned char>(s[i + 1]));
    } else {
      ok &= std::isdigit(static_cast<unsigned char>(c)) != 0;
    }
  }
  if (!ok || colons != 2)
    return Status::Invalid("strides " + Shown(s) +
                           ": expected SRC:WEI:DST, each empty or like 9600x1x480x48");
  return s;
}

Result<Algorithm> ParseAlg(const std::string& s) {
  if (EqualsIgnoringCase(s, "direct") || EqualsIgnoringCase(s, "convolution_direct"))
    return Algorithm::kDirect;
  if (EqualsIgnoringCase(s, "wino") || EqualsIgnoringCase(s, "convolution_wino"))
    return Algorithm::kWinograd;
  if (EqualsIgnoringCase(s, "auto") || EqualsIgnoringCase(s, "convolution_auto"))
    return Algorithm::kAuto;
  return Status::Invalid("unknown algorithm " + Shown(s) + " (direct, wino or auto)");
}

Result<int64_t> ParseMb(const std::string& s) {
  int64_t v = 0;
  for (char c : s) {
    if (!std::isdigit(static_cast<unsigned char>(c)) || (v = v * 10 + (c - '0')) > (1 << 30))
      return Status::Invalid("minibatch " + Shown(s) + ": expected a number from 0 to 2^30");
  }
  return s.empty() ? Status::Invalid("an empty minibatch") : Result<int64_t>(v);
}

const char* AlgName(Algorithm a) {
  return a == Algorithm::kWinograd ? "wino" : a == Algorithm::kAuto ? "auto" : "direct";
}

// Patterns whose matching could take unbounded time or memory are refused: back-references
// (exponential in glibc too) and nested repetition counts.
Status CheckPattern(const std::string& p) {
  if (p.size() > kMaxPatternBytes)
    return Status::Invalid("--match: the pattern is longer than " +
                           std::to_string(kMaxPatternBytes) + " bytes");
  int64_t repetition = 1;
  for (size_t i = 0; i + 1 < p.size(); ++i) {
    if (p[i] != '\\') continue;
    const char next = p[++i];
    if (next >= '1' && next <= '9')
      return Status::Invalid("--match: back-references are not supported");
    if (next != '{') continue;
    int64_t bound = 0;
    for (size_t j = i + 1; j < p.size() && p[j] != '\\'; ++j)
      if (std::isdigit(static_cast<unsigned char>(p[j])))
        bound = std::min<int64_t>(bound * 10 + (p[j] - '0'), kMaxRepetition + 1);
      else
        bound = p[j] == ',' ? 0 : bound;  // the largest bound is the last number
    repetition *= std::max<int64_t>(bound, 1);
    if (repetition > kMaxRepetition)
      return Status::Invalid("--match: repetition counts multiply to more than " +
                             std::to_string(kMaxRepetition));
  }
  return Status::Ok();
}

}  // namespace convparity::benchdnn_options
