// The TensorFlow graph model of a case: the GraphDef JSON that tfjs-converter loads (a tfjs "graph
// model": model.json and its weights), as a TensorFlow exporter writes one convolution.
//
// The case's model graph (model_graph.h) in TensorFlow's layouts (…IO weights, NHWC data or, with
// data_format=op, the problem's own through the ops' data_format attribute), 1-D convolutions as
// ExpandDims → 2-D op → Squeeze (TensorFlow has no 1-D convolution), node by node:
//   - an ordinary convolution is Conv2D / Conv3D, a depthwise one with depthwise=multiplier
//     DepthwiseConv2dNative over its HWIM weight; backward-data and a transposed convolution are
//     Conv2DBackpropInput / Conv3DBackpropInputV2, backward-weight Conv2DBackpropFilter /
//     Conv3DBackpropFilterV2 (the filter gradients);
//   - padding EXPLICIT (2-D; 3-D ops pad SAME or VALID only), or SAME / VALID where the spelling
//     says so and they give the convolution's pads (TensorFlow's SAME is ONNX's SAME_UPPER);
//   - the bias a BiasAdd (TensorFlow's ops have no bias operand), an AddV2 (bias=add) or the fused
//     op (_FusedConv2D, FusedDepthwiseConv2dNative);
//   - the identity batch normalization a FusedBatchNormV3 after the first convolution;
//   - the model's input the placeholder of ModelInputVar, every other var a Const holding the
//     case's values, the result "y".
// A transposed convolution's size is always its output's shape (input_sizes): output_size has
// nothing to choose here. kUnsupported for what TensorFlow cannot write: SAME_LOWER, explicit pads
// of a 3-D op, groups in the backprop ops, a fused 3-D or transposed op.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "core/case_graphs.h"
#include "core/conv_problem.h"
#include "core/spelling.h"
#include "core/status.h"
#include "core/sut.h"

namespace convparity {

// convparity's one-file form of a tfjs graph model: model.json whose weights are inline, as
// base64 in "weightData" (what tf.io.fromMemory takes with the manifest's weight specs).
Result<std::string> TfGraphModel(const ConvProblem& p, const GraphForm& form, Direction direction,
                                 const Spelling& spelling, const CaseBuffers& buffers);

// The files tfjs-converter's loadGraphModel reads: model.json (its manifest naming weights.bin)
// and weights.bin. kInvalid for a text that is not TfGraphModel's.
Result<std::vector<std::pair<std::string, std::string>>> TfGraphModelFiles(
    const std::string& model);

}  // namespace convparity
