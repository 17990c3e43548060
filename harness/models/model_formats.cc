#include "harness/models/model_formats.h"

#include <algorithm>

#include "harness/models/onnx_model.h"
#include "harness/models/tf_graph_model.h"

namespace convparity {
namespace {

Spelling Spelled(void (*set)(Spelling&)) {
  Spelling s;
  set(s);
  return s;
}

}  // namespace

const std::vector<ModelFormat>& ModelFormats() {
  static const std::vector<ModelFormat> formats = {
      {"onnx",
       {Direction::kForward},
       Spelled([](Spelling& s) { s.bias = BiasSpelling::kFused; }),
       OnnxModel,
       [](const std::string& model) -> Result<ModelFiles> {
         return ModelFiles{{"model.onnx", model}};
       },
       OnnxModelWithWeightInputs},
      {"tfjs-graph", AllDirections(),
       Spelled([](Spelling& s) { s.pads = PadsSpelling::kSameLower; }), TfGraphModel,
       TfGraphModelFiles, nullptr},
  };
  return formats;
}

Status FormatWrites(const ModelFormat& format, const ConvProblem& p, const GraphForm& form,
                    Direction d, const Spelling& spelling) {
  const std::vector<CaseVar> vars = CaseVars(form, p, d);
  int64_t most = 0;
  for (const CaseVar& v : vars) most = std::max(most, NumElements(v.shape));
  const std::vector<float> zeros(static_cast<size_t>(most));
  CaseBuffers buffers;
  for (const CaseVar& v : vars) buffers.vars[v.name] = zeros.data();
  Result<std::string> model = format.write(p, form, d, spelling, buffers);
  return model.ok() ? Status::Ok() : model.status();
}

const ModelFormat* FindModelFormat(const std::string& name) {
  for (const ModelFormat& f : ModelFormats())
    if (name == f.name) return &f;
  return nullptr;
}

}  // namespace convparity
