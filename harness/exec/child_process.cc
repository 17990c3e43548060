#include "harness/exec/child_process.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <thread>

extern char** environ;

namespace convparity {
namespace {

void CloseFd(int& fd) {
  if (fd >= 0) close(fd);
  fd = -1;
}

int MillisecondsUntil(ChildProcess::Clock::time_point deadline) {
  const auto left =
      std::chrono::duration_cast<std::chrono::milliseconds>(deadline - ChildProcess::Clock::now());
  return left.count() <= 0 ? 0 : static_cast<int>(std::min<int64_t>(left.count() + 1, 1 << 30));
}

// Writing to a pipe whose reader is gone raises SIGPIPE, which would end the harness (tests and
// workers do not ignore it). Blocked for the write, and a pending one consumed, it is only EPIPE.
class SigpipeBlocked {
 public:
  SigpipeBlocked() {
    sigemptyset(&pipe_);
    sigaddset(&pipe_, SIGPIPE);
    pthread_sigmask(SIG_BLOCK, &pipe_, &old_);
  }
  ~SigpipeBlocked() {
    const timespec zero{0, 0};
    while (sigtimedwait(&pipe_, nullptr, &zero) > 0) {
    }
    pthread_sigmask(SIG_SETMASK, &old_, nullptr);
  }

 private:
  sigset_t pipe_, old_;
};

}  // namespace

std::string ProcessEndText(int status) {
  if (WIFSIGNALED(status)) {
    const int sig = WTERMSIG(status);
    const char* name = sigabbrev_np(sig);
    return std::string("killed by SIG") + (name ? name : std::to_string(sig));
  }
  if (WIFEXITED(status)) return "exited with code " + std::to_string(WEXITSTATUS(status));
  return "ended";
}

Status ChildProcess::Start(const std::string& command) {
  Kill();
  int in[2], out[2], err[2];
  if (pipe2(in, O_CLOEXEC) != 0) return Status::Internal("pipe failed");
  if (pipe2(out, O_CLOEXEC) != 0 || pipe2(err, O_CLOEXEC) != 0) {
    close(in[0]);
    close(in[1]);
    return Status::Internal("pipe failed");
  }
  const std::string script = "exec " + command;
  const char* argv[] = {"/bin/sh", "-c", script.c_str(), nullptr};
  const pid_t parent = getpid();
  // fork, not posix_spawn: the child must set its death signal and process group itself. Between
  // fork and exec it calls only async-signal-safe functions (the harness has threads).
  const pid_t pid = fork();
  if (pid == 0) {
    setpgid(0, 0);
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() != parent) _exit(127);  // the parent died before the line above
    dup2(in[0], STDIN_FILENO);
    dup2(out[1], STDOUT_FILENO);
    dup2(err[1], STDERR_FILENO);
    // Nothing else of the harness's leaks into the child (a worker's protocol pipe least of all).
    if (syscall(SYS_close_range, 3u, ~0u, 0u) != 0)
      for (int fd = 3; fd < 1024; ++fd) close(fd);
    sigset_t none;
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, nullptr);
    signal(SIGPIPE, SIG_DFL);
    execve("/bin/sh", const_cast<char* const*>(argv), environ);
    _exit(127);
  }
  close(in[0]);
  close(out[1]);
  close(err[1]);
  if (pid < 0) {
    close(in[1]);
    close(out[0]);
    close(err[0]);
    return Status::Internal(std::string("fork failed: ") + std::strerror(errno));
  }
  pid_ = pid;
  in_ = in[1];
  out_ = out[0];
  err_ = err[0];
  for (int fd : {in_, out_, err_}) fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
  pending_.clear();
  stderr_tail_.clear();
  return Status::Ok();
}

void ChildProcess::DrainStderr() {
  if (err_ < 0) return;
  char chunk[4096];
  for (;;) {
    const ssize_t n = read(err_, chunk, sizeof chunk);
    if (n > 0) {
      stderr_tail_.append(chunk, static_cast<size_t>(n));
      if (stderr_tail_.size() > 2 * kStderrTailBytes)
        stderr_tail_.erase(0, stderr_tail_.size() - kStderrTailBytes);
      continue;
    }
    if (n == 0) CloseFd(err_);  // the child closed its stderr (or ended)
    if (n < 0 && errno == EINTR) continue;
    return;
  }
}

ChildProcess::Io ChildProcess::Wait(int fd, short events, Clock::time_point deadline) {
  for (;;) {
    pollfd p[2] = {{fd, events, 0}, {err_, POLLIN, 0}};
    const int ready = poll(p, err_ >= 0 ? 2 : 1, MillisecondsUntil(deadline));
    if (ready < 0 && errno == EINTR) continue;
    if (ready < 0) return Io::kEof;
    if (p[1].revents != 0 && err_ >= 0) DrainStderr();
    if (p[0].revents & (events | POLLHUP | POLLERR | POLLNVAL)) return Io::kOk;
    if (Clock::now() >= deadline) return Io::kTimeout;
  }
}

ChildProcess::Io ChildProcess::Write(const void* data, size_t size, Clock::time_point deadline) {
  if (in_ < 0) return Io::kEof;
  SigpipeBlocked blocked;
  const char* p = static_cast<const char*>(data);
  while (size > 0) {
    const ssize_t n = write(in_, p, size);
    if (n > 0) {
      p += n;
      size -= static_cast<size_t>(n);
      continue;
    }
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && errno != EAGAIN) return Io::kEof;  // EPIPE: the child is gone
    if (Io io = Wait(in_, POLLOUT, deadline); io != Io::kOk) return io;
  }
  return Io::kOk;
}

ChildProcess::Io ChildProcess::ReadLine(size_t max_bytes, Clock::time_point deadline,
                                        std::string& line) {
  for (;;) {
    const size_t nl = pending_.find('\n');
    if (nl != std::string::npos && nl < max_bytes) {
      line = pending_.substr(0, nl);
      pending_.erase(0, nl + 1);
      return Io::kOk;
    }
    if (pending_.size() >= max_bytes) {
      line = pending_.substr(0, std::min<size_t>(max_bytes, 200));
      return Io::kTooLong;
    }
    if (out_ < 0) return Io::kEof;
    char chunk[65536];
    const size_t want = std::min(sizeof chunk, max_bytes - pending_.size());
    const ssize_t n = read(out_, chunk, want);
    if (n > 0) {
      pending_.append(chunk, static_cast<size_t>(n));
      continue;
    }
    if (n == 0) {
      line = pending_;  // what came before the end, for the message
      return Io::kEof;
    }
    if (errno == EINTR) continue;
    if (errno != EAGAIN) return Io::kEof;
    if (Io io = Wait(out_, POLLIN, deadline); io != Io::kOk) return io;
  }
}

ChildProcess::Io ChildProcess::Read(void* data, size_t size, Clock::time_point deadline) {
  char* p = static_cast<char*>(data);
  const size_t from_pending = std::min(size, pending_.size());
  std::memcpy(p, pending_.data(), from_pending);
  pending_.erase(0, from_pending);
  p += from_pending;
  size -= from_pending;
  while (size > 0) {
    if (out_ < 0) return Io::kEof;
    const ssize_t n = read(out_, p, size);
    if (n > 0) {
      p += n;
      size -= static_cast<size_t>(n);
      continue;
    }
    if (n == 0) return Io::kEof;
    if (errno == EINTR) continue;
    if (errno != EAGAIN) return Io::kEof;
    if (Io io = Wait(out_, POLLIN, deadline); io != Io::kOk) return io;
  }
  return Io::kOk;
}

// True once the child has ended; it stays a zombie (not reaped), so that its process group id
// cannot be reused before the group is killed.
bool ChildProcess::Ended() const {
  siginfo_t info{};
  return waitid(P_PID, static_cast<id_t>(pid_), &info, WEXITED | WNOHANG | WNOWAIT) == 0 &&
         info.si_pid == pid_;
}

std::string ChildProcess::Reap() {
  kill(-pid_, SIGKILL);  // its process group: whatever it started goes too
  int status = 0;
  waitpid(pid_, &status, 0);
  DrainStderr();
  CloseFd(in_);
  CloseFd(out_);
  CloseFd(err_);
  pid_ = -1;
  return ProcessEndText(status);
}

std::string ChildProcess::Kill(bool kill_first) {
  if (pid_ <= 0) return "";
  if (!kill_first) {
    // Gone or going (its stdout closed): a moment to end by itself, so that its own status shows.
    const auto deadline = Clock::now() + std::chrono::seconds(2);
    while (!Ended() && Clock::now() < deadline)
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  return Reap();
}

std::string ChildProcess::Stop(double seconds) {
  if (pid_ <= 0) return "";
  CloseFd(in_);
  const auto deadline = Clock::now() + std::chrono::duration_cast<Clock::duration>(
                                           std::chrono::duration<double>(seconds));
  while (!Ended() && Clock::now() < deadline) {
    DrainStderr();
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  return Reap();
}

std::string ChildProcess::StderrTail() const {
  std::string tail = stderr_tail_.size() > kStderrTailBytes
                         ? stderr_tail_.substr(stderr_tail_.size() - kStderrTailBytes)
                         : stderr_tail_;
  std::string line;
  for (char ch : tail) {
    const unsigned char c = static_cast<unsigned char>(ch);
    line += (c == '\n' || c == '\r' || c == '\t') ? ' ' : (c < 0x20 || c == 0x7f) ? '?' : ch;
  }
  const size_t first = line.find_first_not_of(' '), last = line.find_last_not_of(' ');
  return first == std::string::npos ? "" : line.substr(first, last - first + 1);
}

}  // namespace convparity
