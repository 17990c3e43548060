// A child process spoken to over pipes, for the process protocol (PROTOCOL.md): every read and
// write has a deadline and a size bound, so that whatever the child does (dies, hangs, floods its
// stdout or stderr, stops reading) the caller gets an answer in time and memory it chose.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <cstddef>
#include <string>

#include "core/status.h"

namespace convparity {

// How a process ended, from waitpid's status: "killed by SIGSEGV", "exited with code 3".
std::string ProcessEndText(int status);

class ChildProcess {
 public:
  using Clock = std::chrono::steady_clock;

  ChildProcess() = default;
  ChildProcess(const ChildProcess&) = delete;
  ChildProcess& operator=(const ChildProcess&) = delete;
  ~ChildProcess() { Kill(); }

  // Runs `/bin/sh -c 'exec <command>'` with pipes on stdin, stdout and stderr, in a process group
  // of its own (a terminal's Ctrl-C is the harness's to handle), killed when the thread that
  // started it ends (PR_SET_PDEATHSIG), so that a killed harness leaves no child behind.
  Status Start(const std::string& command);
  bool running() const { return pid_ > 0; }

  enum class Io { kOk, kEof, kTimeout, kTooLong };
  // Writes all of `data`, reading stderr meanwhile. kEof: the child closed its stdin (or died).
  Io Write(const void* data, size_t size, Clock::time_point deadline);
  // Reads one line of stdout without its '\n'; kTooLong once `max_bytes` arrive without one.
  Io ReadLine(size_t max_bytes, Clock::time_point deadline, std::string& line);
  // Reads exactly `size` bytes of stdout.
  Io Read(void* data, size_t size, Clock::time_point deadline);

  // Kills the child's process group and reaps it; returns how it ended ("exited with code 3",
  // "killed by SIGSEGV"), or "" when it was not running. When the child is already gone (its
  // stdout closed), `kill_first` = false waits for it instead, so that its own exit status shows.
  std::string Kill(bool kill_first = true);
  // Closes the child's stdin (end of the conversation) and waits up to `seconds` for it to exit
  // before killing it.
  std::string Stop(double seconds);

  // The last bytes the child wrote to stderr (at most kStderrTailBytes), as one line.
  std::string StderrTail() const;
  static constexpr size_t kStderrTailBytes = 4096;

 private:
  // Waits for the descriptor `fd` to be ready for `events`, draining stderr meanwhile.
  Io Wait(int fd, short events, Clock::time_point deadline);
  void DrainStderr();
  bool Ended() const;
  std::string Reap();  // kills the group, reaps the child, closes the pipes

  pid_t pid_ = -1;
  int in_ = -1, out_ = -1, err_ = -1;
  std::string pending_;  // stdout bytes read beyond the last line
  std::string stderr_tail_;
};

}  // namespace convparity
