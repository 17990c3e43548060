// Worker processes: `convparity worker` (the same binary: fork() after ATen's threads have started
// is unsafe) runs cases for a parent, so that a SUT that crashes or hangs ends the worker, not the
// campaign. The protocol:
//   parent → worker, one JSON object a line: {"id": n, "case": <case>, "suts": [names],
//     "fresh": [names], "kept": [names]}, several ahead; the worker takes them in order. The SUTs
//     named in "fresh" run in a child forked for the case from the worker's SUT host (sut_host.h),
//     those in "kept" in the host's child kept from case to case (WorkerPolicy): their crash ends
//     that child, not the worker.
//   worker → parent, framed answers (WorkerAnswer, outcome_wire.h): "ready" once started; for
//     request n, "prepared" with the oracle's time once its inputs and reference are there (an
//     adaptive timeout scales that time), then an outcome after each SUT k in order (the last one's
//     timing also holds the worker's protocol and idle seconds around the request, CaseTiming). A
//     SUT that crashes or hangs is the one after the last outcome; before "prepared", the case's
//     preparation is. Every answer is a write of its own, on the pipe before the next SUT starts,
//     so that a crash cannot take it along.
// The worker's check context comes on its command line: `convparity worker --limits …`.
#pragma once

#include <sys/types.h>

#include <string>

#include "core/status.h"
#include "harness/engine/check_context.h"
#include "harness/engine/outcome_wire.h"

namespace convparity {

// The parent's side: one worker process and the pipes to it.
class WorkerProcess {
 public:
  // `malloc_check`: the worker runs under glibc's checking malloc (WorkerPolicy).
  WorkerProcess(std::string executable, const CheckContext& context, bool malloc_check = false);
  ~WorkerProcess() { Stop(); }
  WorkerProcess(const WorkerProcess&) = delete;
  WorkerProcess& operator=(const WorkerProcess&) = delete;

  bool running() const { return pid_ > 0; }

  // Starts the worker and waits for its "ready" (loading libtorch takes a while), at most
  // `seconds`.
  Status Start(double seconds = kStartupSeconds) {
    CP_RETURN_IF_ERROR(Spawn());
    return WaitReady(seconds);
  }
  // The two halves of Start(): a spare worker is spawned ahead and waited for when needed.
  Status Spawn();
  Status WaitReady(double seconds = kStartupSeconds);
  // Long: loading libtorch on a busy machine is not the SUT's time.
  static constexpr double kStartupSeconds = 120;
  // Swaps processes with `other` (a spare started ahead).
  void Swap(WorkerProcess& other);
  // Kills the worker, and the children it forked for cases, if they are still there; returns how
  // the worker ended ("killed by SIGSEGV", …).
  std::string Stop(bool kill_it = true);
  // The CPU seconds the worker and every process below it have used so far (its forked cases, an
  // exec: child): what a confirming run's limit counts, which load from other processes does not
  // inflate.
  double CpuSeconds() const;
  // Writes a whole line; false when the worker is gone.
  bool Send(const std::string& line);

  // kMalformed: bytes that are no answer (the worker is broken, and stopped; malformed() says how).
  enum class Read { kAnswer, kEof, kTimeout, kMalformed };
  // Reads one answer, waiting at most `seconds`.
  Read ReadAnswer(double seconds, WorkerAnswer& answer);
  const std::string& malformed() const { return malformed_; }

 private:
  std::string executable_;
  std::string limits_;  // LimitsArgument of the check context
  std::string suts_;    // SutConfigArgument of the check context
  bool malloc_check_;
  pid_t pid_ = -1;
  int to_ = -1, from_ = -1;
  std::string buffer_;
  std::string malformed_;
};

// The worker's side: reads requests from stdin and answers on stdout, until stdin closes.
int WorkerMain(const CheckContext& context);

}  // namespace convparity
