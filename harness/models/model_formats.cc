#include "harness/models/model_formats.h"

#include "harness/models/onnx_model.h"
#include "harness/models/tf_graph_model.h"

namespace convparity {

const std::vector<ModelFormat>& ModelFormats() {
  static const std::vector<ModelFormat> formats = {
      {"onnx", OnnxModel,
       [](const std::string& model) -> Result<ModelFiles> {
         return ModelFiles{{"model.onnx", model}};
       },
       OnnxModelWithWeightInputs},
      {"tfjs-graph", TfGraphModel, TfGraphModelFiles, nullptr},
  };
  return formats;
}

const ModelFormat* FindModelFormat(const std::string& name) {
  for (const ModelFormat& f : ModelFormats())
    if (name == f.name) return &f;
  return nullptr;
}

}  // namespace convparity
