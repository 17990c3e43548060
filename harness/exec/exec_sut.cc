#include "harness/exec/exec_sut.h"

#include <cstring>
#include <utility>
#include <vector>

#include "core/tensor.h"

namespace convparity {
namespace {

static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__,
              "the protocol's buffers are little-endian float32: this host would have to swap");

using Clock = ChildProcess::Clock;

Clock::time_point After(double seconds) {
  return Clock::now() +
         std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(seconds));
}

std::string Seconds(double s) {
  char text[32];
  std::snprintf(text, sizeof text, "%g s", s);
  return text;
}

// A buffer of the problem's memory layout in PyTorch's contiguous order, as the protocol sends it.
std::vector<float> LogicalOrder(const float* memory, const Shape& shape,
                                const std::vector<int>& order) {
  std::vector<float> logical(static_cast<size_t>(NumElements(shape)));
  const Shape strides = StridesFor(shape, order);
  if (strides == ContiguousStrides(shape)) {
    std::memcpy(logical.data(), memory, logical.size() * sizeof(float));
    return logical;
  }
  ForEachIndex(shape, [&](const int64_t* idx, int64_t linear) {
    int64_t offset = 0;
    for (size_t i = 0; i < shape.size(); ++i) offset += idx[i] * strides[i];
    logical[static_cast<size_t>(linear)] = memory[offset];
  });
  return logical;
}

void WriteInMemoryOrder(const std::vector<float>& logical, const Shape& shape,
                        const std::vector<int>& order, float* memory) {
  const Shape strides = StridesFor(shape, order);
  ForEachIndex(shape, [&](const int64_t* idx, int64_t linear) {
    int64_t offset = 0;
    for (size_t i = 0; i < shape.size(); ++i) offset += idx[i] * strides[i];
    memory[offset] = logical[static_cast<size_t>(linear)];
  });
}

const float* BufferOf(const ConvBuffers& b, const std::string& name) {
  if (name == "input") return b.input;
  if (name == "weight") return b.weight;
  if (name == "bias") return b.bias;
  if (name == "grad_output") return b.grad_output;
  return nullptr;
}

const std::vector<int>& OrderOf(const std::string& name, const std::vector<int>& data,
                                const std::vector<int>& weight, const std::vector<int>& flat) {
  return name == "weight" ? weight : name == "bias" ? flat : data;
}

}  // namespace

Result<std::unique_ptr<ExecSut>> ExecSut::Start(const std::string& command, std::string name,
                                                ExecOptions options) {
  if (command.find_first_not_of(" \t") == std::string::npos)
    return Status::Invalid(name + ": no command given (write exec:<command line>)");
  std::unique_ptr<ExecSut> sut(new ExecSut(command, std::move(name), options));
  Result<ChildHello> hello = sut->StartChild();
  if (!hello.ok()) return hello.status().WithContext(sut->name_);
  sut->hello_ = *hello;
  return sut;
}

Result<std::unique_ptr<ExecSut>> StartExecSut(const std::string& command, const std::string& name,
                                              ExecOptions options) {
  return ExecSut::Start(command, name, options);
}

ExecSut::~ExecSut() { child_.Stop(/*seconds=*/1); }

Result<ChildHello> ExecSut::StartChild() {
  CP_RETURN_IF_ERROR(child_.Start(command_));
  ++children_started_;
  next_id_ = 1;
  const Clock::time_point deadline = After(options_.startup_seconds);
  const std::string hello = HarnessHelloJson("convparity").dump() + "\n";
  std::string line;
  ChildProcess::Io io = child_.Write(hello.data(), hello.size(), deadline);
  if (io == ChildProcess::Io::kOk) io = child_.ReadLine(kMaxHeaderBytes, deadline, line);
  Status failed;
  switch (io) {
    case ChildProcess::Io::kOk: {
      Result<ChildHello> parsed = ParseChildHello(line);
      if (parsed.ok()) return parsed;
      failed = parsed.status();
      break;
    }
    case ChildProcess::Io::kEof:
      failed = Status::Invalid("the child ended before its hello");
      break;
    case ChildProcess::Io::kTimeout:
      failed = Status::Invalid("no hello within " + Seconds(options_.startup_seconds));
      break;
    case ChildProcess::Io::kTooLong:
      failed = Status::Invalid("the hello line is longer than " + std::to_string(kMaxHeaderBytes) +
                               " bytes");
      break;
  }
  const std::string how = child_.Kill(/*kill_first=*/io != ChildProcess::Io::kEof);
  const std::string stderr_tail = child_.StderrTail();
  return Status::Invalid(failed.message() + " (child " + how + ")" +
                         (stderr_tail.empty() ? "" : "; its stderr: " + stderr_tail));
}

Status ExecSut::ChildFailed(StatusCode code, const std::string& what, bool kill_first) {
  const std::string how = child_.Kill(kill_first);
  const std::string stderr_tail = child_.StderrTail();
  return Status(code, what + " (child " + how + ")" +
                          (stderr_tail.empty() ? "" : "; its stderr: " + stderr_tail));
}

Status ExecSut::Run(const ConvProblem& p, Direction d, const ConvBuffers& b) {
  return RunSpelled(p, d, Spelling{}, b);
}

Status ExecSut::EnsureChild() {
  if (child_.running()) return Status::Ok();
  Result<ChildHello> hello = StartChild();
  if (!hello.ok())
    return Status::Internal("a fresh child did not start: " + hello.status().message());
  if (!(*hello == hello_))
    return ChildFailed(StatusCode::kInternal,
                       "protocol violation: the restarted child says it is " + hello->Text() +
                           ", the first one said " + hello_.Text());
  return Status::Ok();
}

Status ExecSut::RunSpelled(const ConvProblem& p, Direction d, const Spelling& s,
                           const ConvBuffers& b) {
  if (!hello_.model_format.empty())
    return Status::Unsupported(hello_.name + " reads " + hello_.model_format +
                               " models, not buffers");
  if (!hello_.Implements(d))
    return Status::Unsupported(hello_.name + " does not implement " + DirectionName(d));
  CP_RETURN_IF_ERROR(Validate(p));
  for (const ProtocolBuffer& in : RequestInputs(p, d))
    if (BufferOf(b, in.name) == nullptr)
      return Status::Internal("the buffer " + in.name + " that " + DirectionName(d) +
                              " sends is missing");
  if (b.result == nullptr) return Status::Internal("no result buffer");
  CP_RETURN_IF_ERROR(EnsureChild());
  return Exchange(p, d, s, b);
}

Status ExecSut::RunModel(const ConvProblem& p, Direction d, const Spelling& spelling,
                         const std::string& model, const float* input, const Shape& input_shape,
                         const std::vector<ModelWeightInput>& weights, float* output,
                         const Shape& output_shape, Shape* result_shape) {
  result_shape->clear();
  if (hello_.model_format.empty()) return Status::Internal(hello_.name + " reads no models");
  if (!hello_.Implements(d))
    return Status::Unsupported(hello_.name + " does not implement " + DirectionName(d));
  if (model.size() > kMaxModelBytes)
    return Status::Unsupported("the model has " + std::to_string(model.size()) +
                               " bytes, over the protocol's limit");
  CP_RETURN_IF_ERROR(EnsureChild());
  const Clock::time_point deadline = After(options_.answer_seconds);
  const uint64_t id = next_id_++;
  const std::string header = ModelRequestJson(id, p, d, spelling, hello_.model_format, model.size(),
                                              input_shape, output_shape, weights)
                                 .dump() +
                             "\n";
  std::vector<std::pair<const void*, size_t>> payload = {
      {input, static_cast<size_t>(NumElements(input_shape)) * sizeof(float)}};
  for (const ModelWeightInput& w : weights)
    payload.push_back({w.values.data(), w.values.size() * sizeof(float)});
  payload.push_back({model.data(), model.size()});
  Result<ChildAnswer> answer = Ask(id, header, payload, output_shape, deadline);
  if (!answer.ok()) return answer.status();
  if (!answer->shape.empty() && answer->shape != output_shape) {
    *result_shape = answer->shape;
    return Status::Ok();
  }
  std::vector<float> values(static_cast<size_t>(NumElements(output_shape)));
  CP_RETURN_IF_ERROR(ReadResult(id, values, deadline));
  std::memcpy(output, values.data(), values.size() * sizeof(float));
  return Status::Ok();
}

Status ExecSut::Lost(ChildProcess::Io io, const std::string& doing) {
  if (io == ChildProcess::Io::kTimeout)
    return ChildFailed(StatusCode::kTimedOut,
                       "no answer within " + Seconds(options_.answer_seconds) + " (" + doing + ")");
  return ChildFailed(StatusCode::kInternal, "the child ended while " + doing,
                     /*kill_first=*/false);
}

Result<ChildAnswer> ExecSut::Ask(uint64_t id, const std::string& header,
                                 const std::vector<std::pair<const void*, size_t>>& payload,
                                 const Shape& result_shape, Clock::time_point deadline) {
  using Io = ChildProcess::Io;
  const std::string request = "request " + std::to_string(id);
  if (Io io = child_.Write(header.data(), header.size(), deadline); io != Io::kOk)
    return Lost(io, "reading " + request);
  for (const auto& [data, bytes] : payload)
    if (Io io = child_.Write(data, bytes, deadline); io != Io::kOk)
      return Lost(io, "reading the buffers of " + request);
  std::string line;
  if (Io io = child_.ReadLine(kMaxHeaderBytes, deadline, line); io != Io::kOk) {
    if (io == Io::kTooLong)
      return ChildFailed(StatusCode::kInternal, "protocol violation: a line of more than " +
                                                    std::to_string(kMaxHeaderBytes) +
                                                    " bytes on stdout, starting '" +
                                                    PrintableLine(line, 60) + "'");
    if (io == Io::kEof && !line.empty())
      return ChildFailed(StatusCode::kInternal,
                         "protocol violation: the child ended after writing '" +
                             PrintableLine(line, 100) + "' without a newline",
                         /*kill_first=*/false);
    return Lost(io, "computing " + request);
  }
  Result<ChildAnswer> answer = ParseAnswer(line, id, result_shape);
  last_notes_ = RunNotes{};
  if (answer.ok()) last_notes_.implementation = answer->implementation;
  if (!answer.ok())
    return ChildFailed(StatusCode::kInternal, "protocol violation: " + answer.status().message());
  switch (answer->kind) {
    case ChildAnswer::Kind::kUnsupported:
      return Status::Unsupported(hello_.name + " declined: " + answer->text);
    case ChildAnswer::Kind::kError:
      return Status::Internal(hello_.name + " failed: " + answer->text);
    case ChildAnswer::Kind::kOk:
      break;
  }
  return answer;
}

Status ExecSut::ReadResult(uint64_t id, std::vector<float>& values, Clock::time_point deadline) {
  using Io = ChildProcess::Io;
  if (Io io = child_.Read(values.data(), values.size() * sizeof(float), deadline); io != Io::kOk) {
    if (io == Io::kTimeout)
      return Lost(io, "writing the " + std::to_string(values.size()) + " floats of its result");
    return ChildFailed(StatusCode::kInternal,
                       "protocol violation: a short buffer (the result of " +
                           std::to_string(values.size()) + " floats ended early)",
                       /*kill_first=*/false);
  }
  return Status::Ok();
}

Status ExecSut::Exchange(const ConvProblem& p, Direction d, const Spelling& s,
                         const ConvBuffers& b) {
  const Clock::time_point deadline = After(options_.answer_seconds);
  const uint64_t id = next_id_++;
  const std::vector<int> data_order = DataMemoryOrder(p), weight_order = WeightMemoryOrder(p);
  const std::vector<int> flat = {0};
  std::vector<std::vector<float>> inputs;
  inputs.reserve(3);  // their data stay where the payload points
  std::vector<std::pair<const void*, size_t>> payload;
  for (const ProtocolBuffer& in : RequestInputs(p, d)) {
    inputs.push_back(LogicalOrder(BufferOf(b, in.name), in.shape,
                                  OrderOf(in.name, data_order, weight_order, flat)));
    payload.push_back({inputs.back().data(), inputs.back().size() * sizeof(float)});
  }
  const ProtocolBuffer result = RequestResult(p, d);
  Result<ChildAnswer> answer =
      Ask(id, RunRequestJson(id, p, d, s).dump() + "\n", payload, result.shape, deadline);
  if (!answer.ok()) return answer.status();
  if (!answer->shape.empty() && answer->shape != result.shape)
    return ChildFailed(StatusCode::kInternal,
                       "protocol violation: an answer of another shape from a child that reads "
                       "no models");
  std::vector<float> values(static_cast<size_t>(NumElements(result.shape)));
  CP_RETURN_IF_ERROR(ReadResult(id, values, deadline));
  WriteInMemoryOrder(values, result.shape, ResultMemoryOrder(p, d), b.result);
  return Status::Ok();
}

}  // namespace convparity
