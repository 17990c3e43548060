// The ONNX model of a case: what an ONNX frontend (OpenCV DNN, ONNX Runtime, an ML compiler's
// importer) reads, written with ONNX's own protobuf classes (Debian's libonnx-dev).
//
// The case's model graph (model_graph.h) in ONNX's convolution layouts (NC… data, OI… weights, IO…
// for ConvTranspose), node by node, at opset 13: %x is the graph's input, every other var an
// initializer holding the case's values, the result the graph's output "y". The spelling's
// attributes go on the problem's Conv / ConvTranspose (auto_pad, output_shape), its identity
// BatchNormalization after it, and its weight's transposes stay nodes (weight=transposed) or are
// folded into the initializer (weight=constant; a multiplier weight's Reshape stays, and a
// Transpose after it with it). Forward only: ONNX has no gradient operators.
//
// With the weights as inputs (OnnxModelWithWeightInputs), each initializer of case values is a
// graph input after %x instead, the same graph otherwise: the spelling's nodes stay (a weight's
// Transpose, a multiplier weight's Reshape), as do the constants that are no case data (the
// identity BatchNormalization's, the int64 operands of Reshape, Pad, …).
#pragma once

#include <map>
#include <string>

#include "core/case_graphs.h"
#include "core/conv_problem.h"
#include "core/spelling.h"
#include "core/status.h"
#include "core/sut.h"
#include "harness/models/model_formats.h"
#include "harness/models/model_graph.h"

namespace convparity {

inline constexpr int kOnnxOpset = 13;

// The serialized ModelProto. `buffers` holds every var the case reads but %x's value is not
// needed (it is the model's input). kUnsupported for what ONNX cannot write (a backward
// direction, bias=fused, a spelling that does not fit p). The tests hold every model it writes to
// CheckOnnxModel.
Result<std::string> OnnxModel(const ConvProblem& p, const GraphForm& form, Direction direction,
                              const Spelling& spelling, const CaseBuffers& buffers);

// The model with the weights as inputs (model_formats.h ModelWeights::kInputs), and the values
// of those inputs; what OnnxModel declines it declines. The tests hold it to CheckOnnxModel too.
Result<WeightInputsModel> OnnxModelWithWeightInputs(const ConvProblem& p, const GraphForm& form,
                                                    Direction direction, const Spelling& spelling,
                                                    const CaseBuffers& buffers);
// The graph that model is written from, which the tests evaluate with the oracle.
Result<WeightInputsGraph> OnnxWeightInputsGraph(const ConvProblem& p, const GraphForm& form,
                                                Direction direction, const Spelling& spelling,
                                                const CaseBuffers& buffers);

// The ONNX checker's verdict on a serialized model (onnx::checker::check_model, with shape
// inference): Ok, or kInvalid with its message.
Status CheckOnnxModel(const std::string& model);

}  // namespace convparity
