// The option state of benchdnn's conv and deconv drivers while a batch is read (oneDNN
// tests/benchdnn/doc/driver_conv.md, knobs_common.md, knobs_attr.md). Every option token changes
// the state; a descriptor is then run once for every combination of the values of the list
// options (`--dir=FWD_B,BWD_D --mb=1,4` is four runs of each problem that follows). `--reset` puts
// the driver options back to their defaults. An empty value (`--dt=`) is that option's default.
//
// Honoured, because they change the problem: --dir, --dt (and the deprecated --cfg), --bia-dt,
// --stag, --wtag, --dtag, --strides, --alg, --mb, --match. Known options that do not change the
// convolution (attributes, implementation filters, engine, mode, verbosity, …) are ignored; the
// caller counts them. Any other option is an error, as it is for benchdnn.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "core/conv_case.h"
#include "core/status.h"

namespace convparity {

// benchdnn's propagation kinds ("directions", knobs_dir.md).
enum class BenchdnnDir { kFwdD, kFwdB, kFwdI, kBwdD, kBwdW, kBwdWB, kBwdDW };
const char* BenchdnnDirName(BenchdnnDir d);  // FWD_D, FWD_B, …

// One combination of the honoured options' values. Empty strings (and nullopt) mean "not given".
struct BenchdnnRun {
  std::optional<BenchdnnDir> dir;  // benchdnn's default is FWD_B
  std::string dt;                  // "f32", "u8:s8:u8", …; default f32
  std::string bia_dt;              // default undef (no bias unless the direction has one)
  std::string stag, wtag, dtag;    // memory format tags; default any
  std::string strides;             // "SRC:WEI:DST", each "AxBx…" or empty
  std::optional<Algorithm> alg;    // default direct
  int64_t mb = 0;                  // 0: the descriptor's own

  // The given values in benchdnn's syntax, e.g. "--dir=BWD_D --stag=axb" ("" when none is).
  std::string Options() const;
};

class BenchdnnSettings {
 public:
  // What an option token did: changed the honoured state, or was ignored (`option` is its name,
  // e.g. "--attr-post-ops", and `why` says why it does not change the convolution).
  struct Applied {
    bool ignored = false;
    std::string option;
    std::string why;
  };
  // `token` starts with '-'. Errors (an unknown option, a malformed value of an honoured one) say
  // what was wrong; the caller adds where.
  Result<Applied> Apply(const std::string& token);

  // The number of runs of the next descriptor (at least 1), saturating at 2^40.
  int64_t RunCount() const;
  void ForEachRun(const std::function<void(const BenchdnnRun&)>& visit) const;

  // The --match pattern (a POSIX basic regular expression, as benchdnn compiles it on Linux), or
  // empty. Matches(text) searches it in text; true when there is none.
  const std::string& match() const { return match_; }
  bool Matches(const std::string& text) const;

  BenchdnnSettings() = default;
  ~BenchdnnSettings();
  BenchdnnSettings(const BenchdnnSettings&) = delete;
  BenchdnnSettings& operator=(const BenchdnnSettings&) = delete;

 private:
  void Reset();
  Status SetMatch(const std::string& pattern);

  std::vector<BenchdnnDir> dir_;
  std::vector<std::string> dt_, bia_dt_, stag_, wtag_, dtag_, strides_;
  std::vector<Algorithm> alg_;
  std::vector<int64_t> mb_;
  std::string match_;
  void* regex_ = nullptr;  // a compiled regex_t; <regex.h> stays out of this header
};

}  // namespace convparity
