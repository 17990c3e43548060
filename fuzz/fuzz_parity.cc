// libFuzzer target: bytes → case (generators/byte_decoder.h) → checked in this process against the
// LibTorch oracle → on a discrepancy, the case file and report a campaign writes go into
// $CONVPARITY_FUZZ_OUT (default ./convparity-fuzz-out), then abort() so that libFuzzer keeps the
// input (crash-<sha1>; `convparity import-fuzz-input` turns it into a case file again).
//
// SUTs: our own kernels; $CONVPARITY_FUZZ_SUT (comma-separated) picks others, e.g.
// known-bug:tvm-9465 to hunt a reproduced historical bug. $CONVPARITY_FUZZ_MAX_MACS caps sizes.
// The cases of SUTs that run graphs (transform:…, their known bugs) may be chains: the problem's
// residual block (core/case_graphs.h ChainGraph), the decoder's last choice.
// Coverage: our libraries are instrumented, LibTorch is not, so the fuzzer steers by what our
// kernels and harness do, not by ATen's internals.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <memory>
#include <string>

#include "core/descriptor.h"
#include "harness/engine/check_case.h"
#include "harness/io/fuzz_support.h"
#include "harness/suts/sut_registry.h"

namespace convparity {
namespace {

struct Target {
  ByteDecoderOptions options;
  std::map<std::string, std::unique_ptr<Sut>> suts;
  std::string out;
};

Target& TheTarget() {
  static Target* target = [] {
    auto* t = new Target;
    Result<ByteDecoderOptions> options = FuzzDecoderOptions();
    if (!options.ok()) ExitOnBadSetup("fuzz_parity", options.status());
    t->options = *options;
    for (const std::string& name : t->options.suts) {
      Result<std::unique_ptr<Sut>> sut = MakeSut(name);
      if (!sut.ok()) ExitOnBadSetup("fuzz_parity", sut.status());
      t->suts[name] = std::move(sut).value();
    }
    t->out = FuzzOutDir();
    return t;
  }();
  return *target;
}

}  // namespace
}  // namespace convparity

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  convparity::TheTarget();  // fail on a bad environment before the first input, not during it
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace convparity;
  Target& t = TheTarget();
  const ConvCase c = DecodeCase(data, size, t.options);
  const CaseOutcome outcome = CheckCase(c, *t.suts.at(c.sut));
  // The decoder promises valid cases: an invalid one is a bug of the decoder (or an oracle that
  // disagrees with Validate), and as much a finding as a discrepancy.
  if (!IsDiscrepancy(outcome.verdict) && outcome.verdict != Verdict::kInvalid) return 0;
  const std::string what = CaseTitle(c) + " " + c.sut + " " + FillName(c.fill) + " seed " +
                           std::to_string(c.seed) + ": " + VerdictName(outcome.verdict) + ": " +
                           outcome.reason;
  Result<std::string> report = WriteFuzzFinding(t.out, c, outcome);
  std::fprintf(stderr, "fuzz_parity: %s\n  report %s\n", what.c_str(),
               report.ok() ? report->c_str() : report.status().message().c_str());
  std::fflush(stderr);
  std::abort();
}
