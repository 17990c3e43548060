#include "harness/engine/worker_process.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <fstream>
#include <iterator>
#include <sstream>
#include <utility>
#include <vector>

#include "harness/exec/child_process.h"

extern char** environ;

namespace convparity {
namespace {

// The CPU seconds of process `pid` (all its threads, and its children already waited for) and of
// every process below it; 0 for one that is gone.
double TreeCpuSeconds(pid_t pid) {
  std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
  std::string text((std::istreambuf_iterator<char>(stat)), std::istreambuf_iterator<char>());
  const size_t name_end = text.rfind(')');  // the command's name may hold spaces
  if (name_end == std::string::npos) return 0;
  std::istringstream fields(text.substr(name_end + 2));
  std::string field;
  double ticks = 0;
  // After the name: state is field 3; utime, stime, cutime, cstime are fields 14 to 17.
  for (int k = 3; k <= 17 && fields >> field; ++k)
    if (k >= 14) ticks += std::stod(field);
  double seconds = ticks / static_cast<double>(sysconf(_SC_CLK_TCK));
  std::ifstream children("/proc/" + std::to_string(pid) + "/task/" + std::to_string(pid) +
                         "/children");
  for (pid_t child; children >> child;) seconds += TreeCpuSeconds(child);
  return seconds;
}

}  // namespace

double WorkerProcess::CpuSeconds() const { return pid_ > 0 ? TreeCpuSeconds(pid_) : 0; }

WorkerProcess::WorkerProcess(std::string executable, const CheckContext& context, bool malloc_check)
    : executable_(std::move(executable)),
      limits_(LimitsArgument(context.limits)),
      suts_(SutConfigArgument(context.suts)),
      malloc_check_(malloc_check) {}

Status WorkerProcess::Spawn() {
  int to_child[2], from_child[2];
  // Close-on-exec, so that one worker never holds another's pipes (its end of file would hang).
  if (pipe2(to_child, O_CLOEXEC) != 0 || pipe2(from_child, O_CLOEXEC) != 0)
    return Status::Internal("pipe failed");
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, to_child[0], STDIN_FILENO);
  posix_spawn_file_actions_adddup2(&actions, from_child[1], STDOUT_FILENO);
  // A process group of its own: Ctrl-C at the terminal stops the campaign (which finishes its
  // cases in flight), not its workers, whose death would read as crashed SUTs. A worker whose
  // parent is gone sees its stdin close and exits.
  posix_spawnattr_t attributes;
  posix_spawnattr_init(&attributes);
  posix_spawnattr_setflags(&attributes, POSIX_SPAWN_SETPGROUP);
  posix_spawnattr_setpgroup(&attributes, 0);
  const char* argv[] = {executable_.c_str(), "worker", "--limits", limits_.c_str(), "--suts",
                        suts_.c_str(),       nullptr};
  std::vector<std::string> env_text;
  for (char** e = environ; *e != nullptr; ++e) env_text.emplace_back(*e);
  if (malloc_check_) {  // glibc 2.34+ checks only with its debugging malloc preloaded
    env_text.emplace_back("MALLOC_CHECK_=3");
    env_text.emplace_back("LD_PRELOAD=libc_malloc_debug.so.0");
  }
  std::vector<char*> env;
  for (std::string& e : env_text) env.push_back(e.data());
  env.push_back(nullptr);
  const int rc = posix_spawn(&pid_, executable_.c_str(), &actions, &attributes,
                             const_cast<char* const*>(argv), env.data());
  posix_spawn_file_actions_destroy(&actions);
  posix_spawnattr_destroy(&attributes);
  close(to_child[0]);
  close(from_child[1]);
  // Room for every request in flight, so that writing one never waits for the worker (which may
  // itself be waiting for us to read its answers).
  fcntl(to_child[1], F_SETPIPE_SZ, 1 << 20);
  if (rc != 0) {
    close(to_child[1]);
    close(from_child[0]);
    pid_ = -1;
    return Status::Internal("cannot start worker " + executable_ + ": " + std::strerror(rc));
  }
  to_ = to_child[1];
  from_ = from_child[0];
  buffer_.clear();
  return Status::Ok();
}

void WorkerProcess::Swap(WorkerProcess& other) {
  std::swap(pid_, other.pid_);
  std::swap(to_, other.to_);
  std::swap(from_, other.from_);
  std::swap(buffer_, other.buffer_);
}

Status WorkerProcess::WaitReady(double seconds) {
  WorkerAnswer ready;
  const Read read = ReadAnswer(seconds, ready);
  if (read != Read::kAnswer || ready.kind != WorkerAnswer::Kind::kReady) {
    const std::string how =
        read == Read::kMalformed ? "it sent what is no answer: " + malformed_ : Stop();
    return Status::Internal("the worker " + executable_ + " did not start (" + how + ")");
  }
  return Status::Ok();
}

std::string WorkerProcess::Stop(bool kill_it) {
  if (pid_ <= 0) return "";
  if (to_ >= 0) close(to_);
  if (from_ >= 0) close(from_);
  to_ = from_ = -1;
  // The worker leads its process group: a child it forked for a case (and hangs in) goes with it.
  if (kill_it) {
    kill(-pid_, SIGKILL);
    kill(pid_, SIGKILL);
  }
  int status = 0;
  waitpid(pid_, &status, 0);
  pid_ = -1;
  return ProcessEndText(status);
}

bool WorkerProcess::Send(const std::string& line) {
  size_t done = 0;
  while (done < line.size()) {
    ssize_t n = write(to_, line.data() + done, line.size() - done);
    if (n <= 0) return false;
    done += static_cast<size_t>(n);
  }
  return true;
}

WorkerProcess::Read WorkerProcess::ReadAnswer(double seconds, WorkerAnswer& answer) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
  for (;;) {
    uint32_t length = 0;
    if (buffer_.size() >= sizeof length) {
      std::memcpy(&length, buffer_.data(), sizeof length);
      if (length > kMaxAnswerBytes) {
        malformed_ = "an answer of " + std::to_string(length) + " bytes, over the limit of " +
                     std::to_string(kMaxAnswerBytes);
        Stop();
        return Read::kMalformed;
      }
      if (buffer_.size() >= sizeof length + length) {
        Result<WorkerAnswer> decoded =
            DecodeAnswer(std::string_view(buffer_).substr(sizeof length, length));
        buffer_.erase(0, sizeof length + length);
        if (!decoded.ok()) {
          malformed_ = decoded.status().message();
          Stop();
          return Read::kMalformed;
        }
        answer = std::move(decoded).value();
        return Read::kAnswer;
      }
    }
    const double left =
        std::chrono::duration<double>(deadline - std::chrono::steady_clock::now()).count();
    if (left <= 0) return Read::kTimeout;
    pollfd p{from_, POLLIN, 0};
    const int ready = poll(&p, 1, static_cast<int>(left * 1000) + 1);
    if (ready == 0) continue;
    if (ready < 0) {
      if (errno == EINTR) continue;
      return Read::kEof;
    }
    char chunk[65536];
    const ssize_t n = read(from_, chunk, sizeof chunk);
    if (n <= 0) return Read::kEof;
    buffer_.append(chunk, static_cast<size_t>(n));
  }
}

}  // namespace convparity
