// The model formats convparity writes a case as, by the name a frontend's adapter gives (plugin ABI
// 4's model_format, the process protocol's hello): each with its writer and the files a model is
// handed over as (`convparity model`).
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "core/case_graphs.h"
#include "core/conv_problem.h"
#include "core/spelling.h"
#include "core/status.h"
#include "core/sut.h"

namespace convparity {

// The formats' names, for the layers below the writers (the plugin loader, the protocol's client),
// which check what an adapter names without linking the writers.
inline constexpr const char* kModelFormatNames[] = {"onnx", "tfjs-graph"};
inline bool IsModelFormat(const std::string& name) {
  for (const char* f : kModelFormatNames)
    if (name == f) return true;
  return false;
}
inline std::string ModelFormatList() {  // "onnx or tfjs-graph"
  std::string list;
  for (const char* f : kModelFormatNames) list += (list.empty() ? "" : " or ") + std::string(f);
  return list;
}

// How a model holds the case's weights, as a frontend asks (the process protocol's hello,
// "model_weights"): constants, as a deployed model does, or graph inputs after the model's input,
// so that the model's bytes depend on the case's problem, graph form, direction and spelling
// alone and a stack can reuse what it made of one model across cases.
enum class ModelWeights : uint8_t { kConstants, kInputs };
inline constexpr const char* kModelWeightsNames[] = {"constants", "inputs"};  // by value
// The formats whose writer can make the weights inputs (ModelFormat::write_weight_inputs).
inline constexpr const char* kWeightInputFormats[] = {"onnx"};
inline bool WritesWeightInputs(const std::string& format) {
  for (const char* f : kWeightInputFormats)
    if (format == f) return true;
  return false;
}

// One weight input of a model: its name in the model, its shape there, and the case's values for
// it (the case's weight as the model reads it: transposed or reshaped as the constant would be).
struct ModelWeightInput {
  std::string name;
  Shape shape;
  std::vector<float> values;
};

// A model with its weights as inputs, and their values in the model's order of inputs (after the
// model's input x).
struct WeightInputsModel {
  std::string model;
  std::vector<ModelWeightInput> weights;
};

using ModelFiles = std::vector<std::pair<std::string, std::string>>;  // file name, bytes

struct ModelFormat {
  const char* name;
  // The directions its writer writes, and the spelling values it never writes (the fields of
  // `unwritten` that are not plain): a campaign of its readers draws neither.
  std::vector<Direction> directions;
  Spelling unwritten;
  // The model of a case (kUnsupported for what the format cannot write).
  Result<std::string> (*write)(const ConvProblem& p, const GraphForm& form, Direction d,
                               const Spelling& spelling, const CaseBuffers& buffers);
  // The files `model` is, as the format's own tools read them.
  Result<ModelFiles> (*files)(const std::string& model);
  // The model of a case with the weights as its inputs (ModelWeights::kInputs); null where the
  // format writes constants only (WritesWeightInputs).
  Result<WeightInputsModel> (*write_weight_inputs)(const ConvProblem& p, const GraphForm& form,
                                                   Direction d, const Spelling& spelling,
                                                   const CaseBuffers& buffers) = nullptr;
};

// Ok when `format` writes the case, else its writer's kUnsupported: the writer run on zeros, since
// what it declines never depends on the values.
Status FormatWrites(const ModelFormat& format, const ConvProblem& p, const GraphForm& form,
                    Direction d, const Spelling& spelling);

// In kModelFormatNames' order.
const std::vector<ModelFormat>& ModelFormats();
const ModelFormat* FindModelFormat(const std::string& name);

}  // namespace convparity
