// BenchdnnSettings: the option state of benchdnn's conv drivers while a batch is read, and the runs
// it stands for. Each option's values are parsed in benchdnn_option_values.cc.
#include "harness/io/benchdnn_settings.h"

#include <regex.h>

#include <cctype>
#include <cstring>
#include <utility>

#include "harness/io/benchdnn_option_values.h"

namespace convparity {
namespace {

constexpr int64_t kMaxRuns = int64_t{1} << 40;

}  // namespace

using benchdnn_options::AlgName;
using benchdnn_options::AllOf;
using benchdnn_options::CheckPattern;
using benchdnn_options::ParseAlg;
using benchdnn_options::ParseCfg;
using benchdnn_options::ParseDataType;
using benchdnn_options::ParseDataTypes;
using benchdnn_options::ParseDir;
using benchdnn_options::ParseList;
using benchdnn_options::ParseMb;
using benchdnn_options::ParseStrides;
using benchdnn_options::ParseTag;
using benchdnn_options::Shown;
using benchdnn_options::WhyIgnored;

const char* BenchdnnDirName(BenchdnnDir d) {
  switch (d) {
    case BenchdnnDir::kFwdD:
      return "FWD_D";
    case BenchdnnDir::kFwdB:
      return "FWD_B";
    case BenchdnnDir::kFwdI:
      return "FWD_I";
    case BenchdnnDir::kBwdD:
      return "BWD_D";
    case BenchdnnDir::kBwdW:
      return "BWD_W";
    case BenchdnnDir::kBwdWB:
      return "BWD_WB";
    case BenchdnnDir::kBwdDW:
      return "BWD_DW";
  }
  return "?";
}

std::string BenchdnnRun::Options() const {
  std::string s;
  auto add = [&](const char* option, const std::string& value) {
    if (!value.empty()) s += std::string(s.empty() ? "" : " ") + "--" + option + "=" + value;
  };
  add("dir", dir ? BenchdnnDirName(*dir) : "");
  add("dt", dt);
  add("bia-dt", bia_dt);
  add("stag", stag);
  add("wtag", wtag);
  add("dtag", dtag);
  add("strides", strides);
  add("alg", alg ? AlgName(*alg) : "");
  add("mb", mb > 0 ? std::to_string(mb) : "");
  return s;
}

BenchdnnSettings::~BenchdnnSettings() { SetMatch("").ok(); }

void BenchdnnSettings::Reset() {
  dir_.clear(), dt_.clear(), bia_dt_.clear(), stag_.clear(), wtag_.clear(), dtag_.clear();
  strides_.clear(), alg_.clear(), mb_.clear();
  (void)SetMatch("");
}

Status BenchdnnSettings::SetMatch(const std::string& pattern) {
  if (regex_ != nullptr) {
    regfree(static_cast<regex_t*>(regex_));
    delete static_cast<regex_t*>(regex_);
    regex_ = nullptr;
  }
  match_.clear();
  if (pattern.empty()) return Status::Ok();
  CP_RETURN_IF_ERROR(CheckPattern(pattern));
  auto* re = new regex_t;
  if (const int err = regcomp(re, pattern.c_str(), REG_NOSUB); err != 0) {
    char message[200];
    regerror(err, re, message, sizeof message);
    delete re;
    return Status::Invalid("--match=" + Shown(pattern) + ": " + message);
  }
  regex_ = re;
  match_ = pattern;
  return Status::Ok();
}

bool BenchdnnSettings::Matches(const std::string& text) const {
  return regex_ == nullptr ||
         regexec(static_cast<const regex_t*>(regex_), text.c_str(), 0, nullptr, 0) == 0;
}

Result<BenchdnnSettings::Applied> BenchdnnSettings::Apply(const std::string& token) {
  if (token.rfind("--", 0) != 0) {
    if (token.size() > 2 && token[1] == 'v' && AllOf(token.substr(2), ""))
      return Applied{true, "--verbose", "how benchdnn runs and reports"};
    return Status::Invalid("option " + Shown(token) + ": options start with '--'");
  }
  if (token == "--reset") {
    Reset();
    return Applied{};
  }
  const size_t eq = token.find('=');
  const std::string name = token.substr(2, eq == std::string::npos ? eq : eq - 2);
  const std::string option = "--" + name;
  if (eq == std::string::npos) {
    if (const char* why = WhyIgnored(name)) return Applied{true, option, why};
    return Status::Invalid("unknown option " + Shown(token) +
                           " (benchdnn's conv driver rejects it too)");
  }
  const std::string value = token.substr(eq + 1);
  Status st;
  if (name == "dir") {
    st = ParseList(option, value, dir_, ParseDir);
  } else if (name == "dt") {
    st = ParseList(option, value, dt_, ParseDataTypes);
  } else if (name == "cfg") {
    st = ParseList(option, value, dt_, ParseCfg);
  } else if (name == "bia-dt") {
    st = ParseList(option, value, bia_dt_, ParseDataType);
  } else if (name == "stag" || name == "wtag" || name == "dtag") {
    st = ParseList(option, value,
                   name == "stag"   ? stag_
                   : name == "wtag" ? wtag_
                                    : dtag_,
                   ParseTag);
  } else if (name == "strides") {
    st = ParseList(option, value, strides_, ParseStrides);
  } else if (name == "alg") {
    st = ParseList(option, value, alg_, ParseAlg);
  } else if (name == "mb") {
    st = ParseList(option, value, mb_, ParseMb);
  } else if (name == "match") {
    st = SetMatch(value);
  } else {
    if (const char* why = WhyIgnored(name)) return Applied{true, option, why};
    return Status::Invalid("unknown option " + Shown(token) +
                           " (benchdnn's conv driver rejects it too)");
  }
  if (!st.ok()) return st;
  return Applied{};
}

int64_t BenchdnnSettings::RunCount() const {
  int64_t n = 1;
  for (size_t size : {dir_.size(), dt_.size(), bia_dt_.size(), stag_.size(), wtag_.size(),
                      dtag_.size(), strides_.size(), alg_.size(), mb_.size()})
    n = std::min(kMaxRuns, n * static_cast<int64_t>(std::max<size_t>(size, 1)));
  return n;
}

void BenchdnnSettings::ForEachRun(const std::function<void(const BenchdnnRun&)>& visit) const {
  // An option not given runs once with its default.
  auto values = [](const auto& list, auto none) {
    using T = decltype(none);
    std::vector<T> v(list.begin(), list.end());
    if (v.empty()) v.push_back(none);
    return v;
  };
  const auto dirs = values(dir_, std::optional<BenchdnnDir>());
  const auto algs = values(alg_, std::optional<Algorithm>());
  const auto dts = values(dt_, std::string()), bias = values(bia_dt_, std::string());
  const auto stags = values(stag_, std::string()), wtags = values(wtag_, std::string());
  const auto dtags = values(dtag_, std::string()), strides = values(strides_, std::string());
  const auto mbs = values(mb_, int64_t{0});
  BenchdnnRun run;
  for (const auto& dir : dirs)
    for (const auto& dt : dts)
      for (const auto& bia : bias)
        for (const auto& stag : stags)
          for (const auto& wtag : wtags)
            for (const auto& dtag : dtags)
              for (const auto& stride : strides)
                for (const auto& alg : algs)
                  for (int64_t mb : mbs) {
                    run = {dir, dt, bia, stag, wtag, dtag, stride, alg, mb};
                    visit(run);
                  }
}

}  // namespace convparity
