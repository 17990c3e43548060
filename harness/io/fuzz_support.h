// What the libFuzzer targets (fuzz/) and the `import-fuzz-input` / `export-fuzz-seeds` commands
// share, so that a fuzzer's input decodes to the same case everywhere: the byte decoder's SUT list
// and caps, both taken from the same environment, and how a finding is written.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/conv_case.h"
#include "core/status.h"
#include "core/verdict.h"
#include "generators/byte_decoder.h"

namespace convparity {

// The decoder's SUTs: `suts` when given; else $CONVPARITY_FUZZ_SUT (comma-separated names, e.g.
// known-bug:tvm-9465); else our own kernels. Its MAC cap: `max_macs` when > 0; else
// $CONVPARITY_FUZZ_MAX_MACS; else ByteDecoderOptions' default. Which SUTs run graphs (and so take
// chain cases): harness/suts/sut_registry.h RunsGraphs. Invalid on a malformed variable.
Result<ByteDecoderOptions> FuzzDecoderOptions(const std::vector<std::string>& suts = {},
                                              int64_t max_macs = 0);

// The readers of user input that fuzz_inputs drives; its first byte (modulo kFuzzReaderCount) picks
// one, the rest is the reader's input. Seeds (`export-fuzz-seeds --target inputs`) use the same.
enum class FuzzReader : uint8_t {
  kDescriptor,      // ParseDescriptor
  kCaseJson,        // ParseCaseText
  kSummaryJson,     // SummaryFromJson
  kWorkerAnswer,    // DecodeAnswer (what a worker process answers, outcome_wire.h)
  kBenchdnn,        // ParseBenchdnnText, conv
  kBenchdnnDeconv,  // ParseBenchdnnText, deconv
  kPluginStruct,    // ProblemFromPluginStruct
  kByteDecoder,     // DecodeCase / EncodeCase
};
constexpr int kFuzzReaderCount = 8;

// The comma-separated names in environment variable `variable`; empty when it is unset or empty.
// Invalid, naming the variable, for an empty name ("a,,b").
Result<std::vector<std::string>> NamesFromEnv(const char* variable);

// For a fuzz target's initialization: prints "<target>: <message>" and exits with status 2.
[[noreturn]] void ExitOnBadSetup(const char* target, const Status& status);

// Where fuzz targets write findings: $CONVPARITY_FUZZ_OUT, else ./convparity-fuzz-out.
std::string FuzzOutDir();

// A finding as a campaign writes it (harness/io/finding_files.h): the case into
// <out>/corpus/<hash>.json and its report (convparity.report/1, not shrunk: libFuzzer minimizes
// inputs itself) into <out>/reports/. Returns the report's path.
Result<std::string> WriteFuzzFinding(const std::string& out, const ConvCase& c,
                                     const CaseOutcome& outcome);

}  // namespace convparity
