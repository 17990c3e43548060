// Systems under test in any language: a long-lived child process that speaks the process protocol
// (harness/exec/PROTOCOL.md) over its stdin and stdout (`--sut 'exec:<command line>'`, and the
// named adapters of adapters/, e.g. tfjs-wasm).
//
// The child is started once and reused for every case. Whatever it does wrong (dies, hangs, writes
// garbage or a short buffer, changes its hello) is the verdict of the case it was running —
// crashed, or hung for a timeout, with the tail of its stderr — and the next case gets a fresh
// child. Nothing read from the child is unbounded.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "core/conv_problem.h"
#include "core/status.h"
#include "core/sut.h"
#include "harness/exec/child_process.h"
#include "harness/exec/exec_protocol.h"

namespace convparity {

// The registry's prefix: the SUT "exec:<command line>" is that command's child.
inline constexpr char kExecSutPrefix[] = "exec:";

struct ExecOptions {
  double answer_seconds = 24;   // per case, from sending the request to the last result byte
  double startup_seconds = 60;  // from starting the child to its hello
};

class ExecSut : public ConvSut {
 public:
  // Starts `command` and checks its hello. A child that does not start, refuses the hello, speaks
  // another protocol version or says nothing in time is Invalid (bad input: the user named it),
  // with the reason and the child's stderr. `name` is what reports call it ("exec:<command>",
  // or an adapter's name).
  static Result<std::unique_ptr<ExecSut>> Start(const std::string& command, std::string name,
                                                ExecOptions options = {});
  ~ExecSut() override;

  std::string name() const override { return name_; }
  // Unsupported for a direction the hello does not list, or when the child declines; Internal
  // (verdict crashed) for an error answer, a dead child or a protocol violation; kTimedOut
  // (verdict hung) when the answer does not come in time.
  Status Run(const ConvProblem& p, Direction direction, const ConvBuffers& buffers) override;
  // Run with the case's spelling in the request (PROTOCOL.md), for a child that writes a model.
  Status RunSpelled(const ConvProblem& p, Direction direction, const Spelling& spelling,
                    const ConvBuffers& buffers) override;
  // A model reader's run (its hello named a model_format): `model`, its input "x" (`input_shape`)
  // and its weight inputs (`weights`, for a child that asked for them) go to the child, its result
  // comes into `output` (`output_shape`), or only the other shape it computed into `result_shape`
  // (left empty when it computed the requested one). Statuses as Run's.
  Status RunModel(const ConvProblem& p, Direction d, const Spelling& spelling,
                  const std::string& model, const float* input, const Shape& input_shape,
                  const std::vector<ModelWeightInput>& weights, float* output,
                  const Shape& output_shape, Shape* result_shape);

  const Capabilities& capabilities() const override { return hello_.capabilities; }
  // What the child said it ran in its last ok answer ("implementation").
  RunNotes LastRunNotes() const override { return last_notes_; }
  const ChildHello& hello() const { return hello_; }
  int64_t children_started() const { return children_started_; }

 private:
  ExecSut(std::string command, std::string name, ExecOptions options)
      : command_(std::move(command)), name_(std::move(name)), options_(options) {}
  // A fresh child and its hello, within the startup time.
  Result<ChildHello> StartChild();
  // Ends the child after it failed a case; the message says how, with its stderr.
  Status ChildFailed(StatusCode code, const std::string& what, bool kill_first = true);
  // A running child, started again (and its hello checked) after a failed case.
  Status EnsureChild();
  // Sends a request's header and bytes; reads the answer's header.
  Result<ChildAnswer> Ask(uint64_t id, const std::string& header,
                          const std::vector<std::pair<const void*, size_t>>& payload,
                          const Shape& result_shape, ChildProcess::Clock::time_point deadline);
  // Reads an ok answer's floats.
  Status ReadResult(uint64_t id, std::vector<float>& values,
                    ChildProcess::Clock::time_point deadline);
  Status Lost(ChildProcess::Io io, const std::string& doing);
  Status Exchange(const ConvProblem& p, Direction d, const Spelling& s, const ConvBuffers& b);

  std::string command_;
  std::string name_;
  ExecOptions options_;
  ChildProcess child_;
  ChildHello hello_;
  uint64_t next_id_ = 1;
  int64_t children_started_ = 0;
  RunNotes last_notes_;
};

// ExecSut::Start as the registry's factory.
Result<std::unique_ptr<ExecSut>> StartExecSut(const std::string& command, const std::string& name,
                                              ExecOptions options);

}  // namespace convparity
