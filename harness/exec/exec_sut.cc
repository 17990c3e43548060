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

Result<std::unique_ptr<ConvSut>> StartExecSut(const std::string& command, const std::string& name,
                                              ExecOptions options) {
  Result<std::unique_ptr<ExecSut>> sut = ExecSut::Start(command, name, options);
  if (!sut.ok()) return sut.status();
  return std::unique_ptr<ConvSut>(std::move(sut).value());
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
  if (!hello_.Implements(d))
    return Status::Unsupported(hello_.name + " does not implement " + DirectionName(d));
  CP_RETURN_IF_ERROR(Validate(p));
  for (const ProtocolBuffer& in : RequestInputs(p, d))
    if (BufferOf(b, in.name) == nullptr)
      return Status::Internal("the buffer " + in.name + " that " + DirectionName(d) +
                              " sends is missing");
  if (b.result == nullptr) return Status::Internal("no result buffer");
  if (!child_.running()) {
    Result<ChildHello> hello = StartChild();
    if (!hello.ok())
      return Status::Internal("a fresh child did not start: " + hello.status().message());
    if (!(*hello == hello_))
      return ChildFailed(StatusCode::kInternal,
                         "protocol violation: the restarted child says it is " + hello->Text() +
                             ", the first one said " + hello_.Text());
  }
  return Exchange(p, d, b);
}

Status ExecSut::Exchange(const ConvProblem& p, Direction d, const ConvBuffers& b) {
  const Clock::time_point deadline = After(options_.answer_seconds);
  const uint64_t id = next_id_++;
  const std::vector<int> data_order = DataMemoryOrder(p), weight_order = WeightMemoryOrder(p);
  const std::vector<int> flat = {0};
  using Io = ChildProcess::Io;
  auto lost = [&](Io io, const std::string& doing) {
    if (io == Io::kTimeout)
      return ChildFailed(
          StatusCode::kTimedOut,
          "no answer within " + Seconds(options_.answer_seconds) + " (" + doing + ")");
    return ChildFailed(StatusCode::kInternal, "the child ended while " + doing,
                       /*kill_first=*/false);
  };

  const std::string header = RunRequestJson(id, p, d).dump() + "\n";
  if (Io io = child_.Write(header.data(), header.size(), deadline); io != Io::kOk)
    return lost(io, "reading request " + std::to_string(id));
  for (const ProtocolBuffer& in : RequestInputs(p, d)) {
    const std::vector<float> values = LogicalOrder(
        BufferOf(b, in.name), in.shape, OrderOf(in.name, data_order, weight_order, flat));
    if (Io io = child_.Write(values.data(), values.size() * sizeof(float), deadline); io != Io::kOk)
      return lost(io, "reading the " + in.name + " of request " + std::to_string(id));
  }

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
    return lost(io, "computing request " + std::to_string(id));
  }
  const ProtocolBuffer result = RequestResult(p, d);
  const int64_t count = NumElements(result.shape);
  Result<ChildAnswer> answer = ParseAnswer(line, id, count);
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
  std::vector<float> values(static_cast<size_t>(count));
  if (Io io = child_.Read(values.data(), values.size() * sizeof(float), deadline); io != Io::kOk) {
    if (io == Io::kTimeout)
      return lost(io, "writing the " + std::to_string(count) + " floats of its result");
    return ChildFailed(StatusCode::kInternal,
                       "protocol violation: a short buffer (the result of " +
                           std::to_string(count) + " floats ended early)",
                       /*kill_first=*/false);
  }
  WriteInMemoryOrder(values, result.shape, ResultMemoryOrder(p, d), b.result);
  return Status::Ok();
}

}  // namespace convparity
