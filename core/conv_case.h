// A case: everything needed to reproduce one check bit for bit (docs/INTERFACES.md,
// convparity.case/1).
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "core/case_graphs.h"
#include "core/case_origin.h"
#include "core/conv_problem.h"
#include "core/spelling.h"
#include "core/status.h"
#include "core/verdict.h"

namespace convparity {

// How inputs are filled (docs/TOLERANCE.md). kExact: small integers, judged bitwise. The others are
// the "random" family, judged against the error bound.
enum class Fill { kExact, kUniform, kPositive, kWide };
// The algorithm a case asks a SUT for, where the SUT can choose (benchdnn's --alg). Winograd is
// inexact even on exact fill (its transforms divide), and kAuto lets the library pick it, so both
// are judged against the error bound instead of bitwise (harness/judge.h).
enum class Algorithm { kDirect, kWinograd, kAuto };

const char* FillName(Fill f);  // exact, uniform, positive, wide
Result<Fill> ParseFill(const std::string& s);
const char* AlgorithmName(Algorithm a);  // direct, winograd, auto
Result<Algorithm> ParseAlgorithm(const std::string& s);

// The graphs a transform SUT builds for a case, as its finding's case file shows them
// (harness/suts/transform_sut.cc AddTransformGraphs): the passes it runs, in order, and the graph
// before them in the printer's text (core/graph.h). Written for a reader: running the case builds
// both again from the SUT's name and the graph form. JSON: {"graph": "…", "pipeline": ["…", …]}.
struct TransformGraph {
  std::vector<std::string> pipeline;
  std::string graph;

  bool operator==(const TransformGraph& o) const {
    return pipeline == o.pipeline && graph == o.graph;
  }
};

struct ConvCase {
  ConvProblem problem;
  Direction direction = Direction::kForward;
  std::string sut = "direct";
  Fill fill = Fill::kExact;
  uint64_t seed = 0;
  // The verdict `convparity check` must see, exactly (a known bug's regression case: failed,
  // unwritten, broken_promise …). Case files may say "parity" for passed and "discrepancy" for
  // failed, the names of before exact verdicts.
  Verdict expect = Verdict::kPassed;
  std::string note;  // e.g. the public bug id a regression case reproduces
  // What the case checks: the graph of this form built from the problem (core/case_graphs.h).
  const GraphForm* graph = &ConvForm();
  std::optional<TransformGraph> transform;  // a transform SUT's finding only
  Algorithm algorithm = Algorithm::kDirect;
  CaseOrigin origin;  // where an imported case came from; empty otherwise
  // How a model file writes the problem's convolution (core/spelling.h): for SUTs that read a
  // model format; plain by default. CheckSpelling holds for the problem.
  Spelling spelling;

  bool operator==(const ConvCase& o) const;
};

// Its descriptor, followed by " (as a chain)" for a graph form other than conv and by
// " spelled pads=same_upper" for a spelling that is not plain: how log lines name a case.
std::string CaseTitle(const ConvCase& c);

constexpr const char* kCaseSchema = "convparity.case/1";

// Reading and writing case files: core/case_json_read.cc, core/case_json_write.cc.
// `with_descriptor` = false leaves the descriptor out (the expanded problem alone reproduces the
// case): what files show first is of no use between processes, and printing and parsing it back
// is most of the cost of reading and writing a case.
nlohmann::json CaseToJson(const ConvCase& c, bool with_descriptor = true);
// Strict: unknown fields, wrong types, a wrong schema or a descriptor that disagrees with the
// expanded problem are errors naming the field.
Result<ConvCase> CaseFromJson(const nlohmann::json& j);
Result<ConvCase> ParseCaseText(const std::string& text);

}  // namespace convparity
