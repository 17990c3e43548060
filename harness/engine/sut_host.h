// Where a worker runs the SUTs it must keep apart (WorkerPolicy: those whose crash ended a worker,
// and every SUT under --isolate case or a crash's triage): a small process the worker forks when it
// starts, before it loads the oracle (oracles/oracle_module.h), which forks a child for each case,
// as AFL's fork server does, or keeps one child for a SUT that crashed a worker. The child fills
// the case's inputs, makes its instance of the SUT, runs it and hands its result back, while the
// worker computes the reference; the worker then judges the result. A
// crash, an abort or a heap corruption ends the child; the host and the worker go on. A fork of
// the host costs a fraction of a millisecond where a fork of a worker holding LibTorch cost
// several, and a fresh worker a second.
#pragma once

#include <sys/types.h>

#include <optional>
#include <string>

#include "core/verdict.h"
#include "harness/engine/check_case.h"
#include "harness/engine/check_context.h"
#include "harness/engine/pipe_io.h"

namespace convparity {

class SutHost {
 public:
  // Forks the host. NOTE: call it while the process runs one thread: a fork copies only the caller.
  explicit SutHost(const CheckContext& context);
  ~SutHost();
  SutHost(const SutHost&) = delete;
  SutHost& operator=(const SutHost&) = delete;

  // `sut` run on case `c` in a child of the host: a fresh one forked for the case, or with `keep`
  // the host's kept child, which keeps its SUTs' instances from case to case (a library's set-up
  // is paid once) and is forked again after a crash. Send starts the run, and the worker computes
  // the reference meanwhile; Receive judges the run against it (`prep` is `c` prepared). Runs are
  // received in the order sent.
  void Send(const ConvCase& c, const std::string& sut, bool keep);
  CaseOutcome Receive(const PreparedCase& prep, const std::string& sut, bool keep);

 private:
  static std::string Request(const ConvCase& c, const std::string& sut, bool keep);
  bool Start();
  void Stop();

  const CheckContext& context_;
  pid_t pid_ = -1;
  int to_ = -1, from_ = -1;
  std::optional<PipeReader> answers_;
};

}  // namespace convparity
