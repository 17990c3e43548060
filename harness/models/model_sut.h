// A system under test that reads a model: a frontend. The harness writes the case's graph, in its
// spelling, as a model of the stack's format (model_formats.h) and the stack's side runs it — a
// plugin's run_model (ABI 4), a child's run — on the model's input. It runs any graph form and
// direction the format can write.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "core/capabilities.h"
#include "core/sut.h"
#include "harness/models/model_formats.h"

namespace convparity {

// One model run, as the stack's side gets it.
struct ModelRun {
  const ConvProblem* problem = nullptr;  // the case's convolution, for logs and declines
  Direction direction = Direction::kForward;
  const Spelling* spelling = nullptr;
  std::string format;            // "onnx", "tfjs-graph" (model_formats.h)
  std::string model;             // the model file
  const float* input = nullptr;  // the model's input x (model_graph.h ModelInputVar)
  Shape input_shape;             // as the model declares it: the problem's memory layout
  // ModelWeights::kInputs: the model's other inputs, in its order, with the case's values.
  std::vector<ModelWeightInput> weights;
  float* output = nullptr;
  Shape output_shape;  // as the model declares its result "y"
  // What the stack says it computed; empty: it did not say (taken to be output_shape).
  Shape result_shape;
};

// Ok (the result is written), Unsupported(reason) when the stack refuses the model, anything else
// an error of the stack, as a ConvSut's Run.
using ModelRunner = std::function<Status(ModelRun& run)>;

class ModelSut : public Sut {
 public:
  // `version`: what the stack says it is (a plugin's name, a child's hello), for summaries.
  // `weights`: how the stack wants the model's weights (the format must write them so).
  ModelSut(std::string name, std::string format, ModelRunner runner, std::string version,
           Capabilities capabilities = {}, std::function<RunNotes()> notes = {},
           ModelWeights weights = ModelWeights::kConstants)
      : name_(std::move(name)),
        format_(std::move(format)),
        weights_(weights),
        runner_(std::move(runner)),
        version_(std::move(version)),
        capabilities_(std::move(capabilities)),
        notes_(std::move(notes)) {}

  std::string name() const override { return name_; }
  // Unsupported for what the format cannot write (a backward direction in ONNX, SAME_LOWER in
  // TensorFlow); the
  // verdict shape_mismatch when the stack computes another shape than the model declares.
  GraphRun RunGraph(const ConvProblem& p, const GraphForm& form, Direction d,
                    const Spelling& spelling, const CaseBuffers& buffers) override;
  RunNotes LastRunNotes() const override { return notes_ ? notes_() : RunNotes{}; }
  const Capabilities& capabilities() const override { return capabilities_; }
  const std::string& version() const { return version_; }
  const std::string& format() const { return format_; }

 private:
  std::string name_;
  std::string format_;
  ModelWeights weights_;
  ModelRunner runner_;
  std::string version_;
  Capabilities capabilities_;
  std::function<RunNotes()> notes_;
};

}  // namespace convparity
