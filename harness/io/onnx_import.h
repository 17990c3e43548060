// Importing the convolutions of ONNX models (every Conv and ConvTranspose node of a model's graph)
// as ConvProblems with the spelling each node is written in, and writing them as case files.
// `convparity import-onnx` is built on this API, as import-benchdnn is on benchdnn_import.h: the
// same scaling (benchdnn_scale.h), limits, tally (import_tally.h) and origin.
//
// A model is parsed with ONNX's own protobuf classes (Debian's libonnx-dev) and its shapes are
// inferred by ONNX's shape inference; a graph input whose first dimension is not a number (a
// dynamic batch) gets 1 first, counted. Each node becomes one problem (onnx_conv_node.h) with the
// shapes of its operands, or is skipped for one counted reason:
//   - data type: an operand or the result is not FLOAT, or the node is an integer convolution
//     (ConvInteger, QLinearConv);
//   - shapes: an operand's or the result's shape is not known after shape inference;
//   - rank, size, attribute, illegal: as ProblemFromOnnxConv says;
//   - output shape: the problem's output shape is not the one the model declares or ONNX infers
//     for the node (the reading of its attributes would be wrong);
//   - subgraph: the node is in a control-flow body (If, Loop, Scan) or a model-local function;
//   - size: over the MAC budget after scaling, or over the limits of a check (as for benchdnn).
// The weights and every other value the model holds are not imported: cases carry generated data.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/conv_case.h"
#include "core/conv_problem.h"
#include "core/spelling.h"
#include "core/status.h"
#include "harness/io/benchdnn_scale.h"
#include "harness/io/import_tally.h"

namespace convparity {

struct OnnxProblem {
  ConvProblem problem;  // scaled as the options say
  Spelling spelling;    // as the node writes it (pads, output_size) where it fits the problem
  std::string file;     // the model file ("<bytes>" when parsed from memory)
  int64_t node = 0;     // the node's 1-based position among the nodes of the model's graph
  std::string name;     // the node's name, may be empty
  // The node as written: "Conv [1,3,224,224] [64,3,7,7] [64] kernel_shape=[7,7] pads=[3,3,3,3]
  // strides=[2,2] -> [1,64,112,112]": its type, its operands' and result's shapes and its
  // attributes in the model's order.
  std::string written;

  std::string Where() const;  // "<file> node <node>"
};

struct OnnxImportOptions {
  ScaleOptions scale;  // applied to every imported problem
  // Of the check that is to replay the cases: none unless the caller names them.
  Limits case_limits{INT64_MAX, INT64_MAX, INT64_MAX};
  size_t max_file_bytes = (size_t{1} << 31) - 1;  // protobuf's limit on a message
  size_t max_problems = 500000;                   // problems imported
};

struct OnnxImport {
  std::vector<OnnxProblem> problems;
  ImportTally tally;
};

// A serialized ModelProto, as if read from file `source`. kInvalid when it is not an ONNX model
// (it does not parse, or has no graph or IR version) or ONNX's shape inference fails on it.
Result<OnnxImport> ParseOnnxModel(const std::string& bytes, const std::string& source = "<bytes>",
                                  const OnnxImportOptions& options = {});
// The same from a file; kInvalid naming the file when it cannot be read.
Result<OnnxImport> ImportOnnxFile(const std::string& path, const OnnxImportOptions& options = {});

// Writes one case file per (problem, direction, fill) into out_dir (WriteCaseFile: atomic,
// content-hash names), with the given SUT and seed, the problem's spelling, note = "<name or
// type> (<file> node <n>)" and its origin (format onnx, file, line = the node's position, name,
// repro = the node as written).
Result<WrittenCases> WriteOnnxCases(const std::vector<OnnxProblem>& problems,
                                    const std::vector<Direction>& directions,
                                    const std::vector<Fill>& fills, const std::string& sut,
                                    const std::string& out_dir, uint64_t seed);

}  // namespace convparity
