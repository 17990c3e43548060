#include "harness/models/model_sut.h"

#include "core/graph.h"
#include "core/tensor.h"
#include "harness/models/onnx_model.h"

namespace convparity {

GraphRun ModelSut::RunGraph(const ConvProblem& p, const GraphForm& form, Direction d,
                            const Spelling& spelling, const CaseBuffers& buffers) {
  Result<std::string> model = OnnxModel(p, form, d, spelling, buffers);
  if (!model.ok()) return model.status();
  ModelRun run;
  run.problem = &p;
  run.direction = d;
  run.spelling = &spelling;
  run.format = format_;
  run.model = std::move(model).value();
  run.input = buffers.Get(kInputVar);
  run.input_shape = MemoryShape(p.input_shape(), DataMemoryOrder(p));
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
