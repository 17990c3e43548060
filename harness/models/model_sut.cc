#include "harness/models/model_sut.h"

#include "core/graph.h"
#include "core/tensor.h"
#include "harness/models/model_formats.h"
#include "harness/models/model_graph.h"

namespace convparity {

GraphRun ModelSut::RunGraph(const ConvProblem& p, const GraphForm& form, Direction d,
                            const Spelling& spelling, const CaseBuffers& buffers) {
  const ModelFormat* format = FindModelFormat(format_);
  if (format == nullptr) return Status::Internal("no writer of the model format " + format_);
  ModelRun run;
  if (weights_ == ModelWeights::kInputs) {
    if (format->write_weight_inputs == nullptr)
      return Status::Internal("the " + format_ + " writer makes no weight inputs");
    Result<WeightInputsModel> model = format->write_weight_inputs(p, form, d, spelling, buffers);
    if (!model.ok()) return model.status();
    run.model = std::move(model->model);
    run.weights = std::move(model->weights);
  } else {
    Result<std::string> model = format->write(p, form, d, spelling, buffers);
    if (!model.ok()) return model.status();
    run.model = std::move(model).value();
  }
  run.problem = &p;
  run.direction = d;
  run.spelling = &spelling;
  run.format = format_;
  // The model's input: one of the case's vars (x; backward-data's grad_output).
  const std::string input = ModelInputVar(d);
  for (const CaseVar& v : CaseVars(form, p, d))
    if (v.name == input) run.input_shape = MemoryShape(v.shape, v.memory_order);
  run.input = buffers.Get(input);
  run.output = buffers.result;
  run.output_shape = MemoryShape(ResultShape(p, d), ResultMemoryOrder(p, d));
  if (run.input == nullptr || run.output == nullptr)
    return Status::Internal("a model run needs the case's input and result buffers");
  Status status = runner_(run);
  if (!status.ok()) return status;
  if (!run.result_shape.empty() && run.result_shape != run.output_shape)
    return GraphRun::Ended(Verdict::kShapeMismatch,
                           name_ + " computed a result of shape " + ShapeText(run.result_shape) +
                               ", the model declares " + ShapeText(run.output_shape));
  return GraphRun();
}

}  // namespace convparity
