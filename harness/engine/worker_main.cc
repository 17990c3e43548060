// The worker's side of the protocol (worker_process.h).
#include <fcntl.h>
#include <malloc.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "harness/engine/check_case.h"
#include "harness/engine/outcome_json.h"
#include "harness/engine/sut_cache.h"
#include "harness/engine/worker_process.h"
#include "harness/exec/child_process.h"

namespace convparity {
namespace {

// Free heap above which a forking worker gives it back before it forks.
constexpr size_t kForkTrimBytes = 8 << 20;

// Runs `name` on `prep` in a child forked for this case, as AFL's fork server does: a crash, a heap
// corruption or an abort ends the child, and the worker keeps what it loaded once (libtorch) and
// the oracle's answer. The child makes its own instance of the SUT, so nothing an earlier case did
// to one is there. NOTE: fork() is safe here because the worker runs on one thread (the oracle and
// our kernels use one, aten_conv.h UseOneThread), so the child misses no lock holder.
// Waits for those of `children` that have exited, without blocking.
void ReapExited(std::vector<pid_t>& children) {
  children.erase(std::remove_if(children.begin(), children.end(),
                                [](pid_t c) { return waitpid(c, nullptr, WNOHANG) != 0; }),
                 children.end());
}

CaseOutcome RunForked(const PreparedCase& prep, const SutConfig& config, const std::string& name,
                      std::vector<pid_t>& exiting) {
  // A fork copies the page tables of every resident page: free heap that the worker keeps for the
  // next large case (mallopt below) would make each fork cost more: a fork, exit and wait of a
  // plain process with 100 MB resident took 6 times as long as with 10 MB (8.5 against 1.4 ms, on
  // a busy machine).
  if (mallinfo2().fordblks > kForkTrimBytes) malloc_trim(0);
  int answer[2];
  if (pipe2(answer, O_CLOEXEC) != 0) return VerdictOutcome(Verdict::kCrashed, "pipe failed");
  const pid_t child = fork();
  if (child < 0) {
    close(answer[0]);
    close(answer[1]);
    return VerdictOutcome(Verdict::kCrashed, "fork failed");
  }
  if (child == 0) {
    close(answer[0]);
    SutCache own(config);
    const std::string out = OutcomeToJson(RunOne(prep, own, name)).dump();
    size_t done = 0;
    while (done < out.size()) {
      const ssize_t n = write(answer[1], out.data() + done, out.size() - done);
      if (n <= 0) break;
      done += static_cast<size_t>(n);
    }
    // Closed before exiting: tearing down a copy of the worker's memory takes milliseconds, which
    // the worker need not wait for.
    close(answer[1]);
    _exit(0);  // no destructors, no atexit handlers, no stdio flush: the worker owns all that
  }
  close(answer[1]);
  std::string text;
  char chunk[65536];
  for (ssize_t n; (n = read(answer[0], chunk, sizeof chunk)) != 0;) {
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) break;
    text.append(chunk, static_cast<size_t>(n));
  }
  close(answer[0]);
  // A whole answer: the child is exiting, and is reaped once it has (here or at a later fork).
  if (Result<CaseOutcome> o = OutcomeFromJson(nlohmann::json::parse(text, nullptr, false));
      o.ok()) {
    exiting.push_back(child);
    ReapExited(exiting);
    return *o;
  }
  int status = 0;
  while (waitpid(child, &status, 0) < 0 && errno == EINTR) {
  }
  return VerdictOutcome(Verdict::kCrashed,
                        name + " " + ProcessEndText(status) + " (in a child forked for the case)");
}

// One line at a time from a file descriptor (the worker's stdin, or a host's pipe), without C++
// streams: a forked host must not inherit what its parent's stream had buffered.
class LineReader {
 public:
  explicit LineReader(int fd) : fd_(fd) {}
  bool Next(std::string& line) {
    for (;;) {
      const size_t nl = buffer_.find('\n', scanned_);
      if (nl != std::string::npos) {
        line.assign(buffer_, 0, nl);
        buffer_.erase(0, nl + 1);
        scanned_ = 0;
        return true;
      }
      scanned_ = buffer_.size();
      char chunk[65536];
      const ssize_t n = read(fd_, chunk, sizeof chunk);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) return false;
      buffer_.append(chunk, static_cast<size_t>(n));
    }
  }

 private:
  int fd_;
  std::string buffer_;
  size_t scanned_ = 0;
};

void WriteAll(int fd, const std::string& text) {
  for (size_t done = 0; done < text.size();) {
    const ssize_t n = write(fd, text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return;
    done += static_cast<size_t>(n);
  }
}

int ServeRequests(int in_fd, int out_fd, const CheckContext& context);

// A copy of this worker, forked once, that runs the SUTs whose crash ended a worker (the parent
// names them in "host"): it serves the same protocol on a pair of pipes. A crash ends the host, not
// the worker, and the next case forks a new one: a crash costs a fork, and a case only a round
// trip. The host computes the case's oracle again; the worker's own answer stays with the worker.
class ForkedHost {
 public:
  explicit ForkedHost(const CheckContext& context) : context_(context) {}
  ~ForkedHost() { Stop(); }

  CaseOutcome Run(const nlohmann::json& case_json, const std::string& sut) {
    if (pid_ <= 0 && !Start())
      return VerdictOutcome(Verdict::kCrashed, "cannot fork a host for " + sut);
    WriteAll(to_, nlohmann::json({{"id", 0}, {"case", case_json}, {"suts", {sut}}}).dump() + "\n");
    std::string line;
    while (from_->Next(line)) {
      const nlohmann::json msg = nlohmann::json::parse(line, nullptr, false);
      if (msg.is_discarded() || !msg.contains("outcome")) continue;  // "prepared"
      Result<CaseOutcome> o = OutcomeFromJson(msg["value"]);
      if (o.ok()) return *o;
      break;
    }
    const std::string how = Stop();
    return VerdictOutcome(Verdict::kCrashed,
                          sut + " " + how + " (in a host forked from the worker)");
  }

 private:
  bool Start() {
    int down[2], up[2];
    if (pipe2(down, O_CLOEXEC) != 0) return false;
    if (pipe2(up, O_CLOEXEC) != 0) {
      close(down[0]);
      close(down[1]);
      return false;
    }
    pid_ = fork();
    if (pid_ == 0) {
      close(down[1]);
      close(up[0]);
      _exit(ServeRequests(down[0], up[1], context_));
    }
    close(down[0]);
    close(up[1]);
    if (pid_ < 0) {
      close(down[1]);
      close(up[0]);
      return false;
    }
    to_ = down[1];
    from_fd_ = up[0];
    from_.emplace(from_fd_);
    std::string ready;
    if (from_->Next(ready)) return true;
    Stop();
    return false;
  }

  // Ends the host; returns how it ended.
  std::string Stop() {
    if (pid_ <= 0) return "";
    close(to_);
    close(from_fd_);
    from_.reset();
    kill(pid_, SIGKILL);  // one that is still there after a broken answer
    int status = 0;
    while (waitpid(pid_, &status, 0) < 0 && errno == EINTR) {
    }
    pid_ = -1;
    return ProcessEndText(status);
  }

  const CheckContext& context_;
  pid_t pid_ = -1;
  int to_ = -1, from_fd_ = -1;
  std::optional<LineReader> from_;
};

// The protocol's loop (worker_process.h), on `in_fd` and `out_fd`.
int ServeRequests(int in_fd, int out_fd, const CheckContext& context) {
  auto emit = [&](const nlohmann::json& j) { WriteAll(out_fd, j.dump() + "\n"); };
  SutCache cache(context.suts);
  ForkedHost host(context);
  std::vector<pid_t> exiting;  // forked children that answered, not yet reaped
  emit({{"ready", true}});
  using Clock = std::chrono::steady_clock;
  auto seconds = [](Clock::duration d) { return std::chrono::duration<double>(d).count(); };
  Clock::time_point idle_since = Clock::now();
  double tail = 0;  // the previous request's time after its protocol share was measured
  LineReader requests(in_fd);
  std::string line;
  while (requests.Next(line)) {
    const Clock::time_point received = Clock::now();
    const double idle = seconds(received - idle_since);
    nlohmann::json request = nlohmann::json::parse(line, nullptr, false);
    if (request.is_discarded() || !request.contains("case") || !request.contains("suts")) return 3;
    Result<ConvCase> c = CaseFromJson(request["case"]);
    if (!c.ok()) return 3;
    const nlohmann::json id = request.value("id", nlohmann::json(0));
    const PreparedCase prep = PrepareCase(*c, context);
    // The oracle's time lets the parent scale the SUT's timeout to the case (WorkerPolicy).
    emit({{"id", id}, {"prepared", true}, {"oracle_seconds", prep.timing.oracle}});
    double phases = prep.timing.fill + prep.timing.oracle;
    Clock::time_point measured = received;
    const auto suts = request["suts"].get<std::vector<std::string>>();
    auto named = [&](const char* field, const std::string& sut) {
      const auto names = request.value(field, std::vector<std::string>{});
      return std::find(names.begin(), names.end(), sut) != names.end();
    };
    for (size_t k = 0; k < suts.size(); ++k) {
      CaseOutcome outcome;
      if (named("fork", suts[k]))
        outcome = RunForked(prep, context.suts, suts[k], exiting);
      else if (named("host", suts[k]) && !prep.ended)  // an ended case has nothing to run
        outcome = host.Run(request["case"], suts[k]);
      else
        outcome = RunOne(prep, cache, suts[k]);
      phases += outcome.timing.sut + outcome.timing.compare;
      nlohmann::json answer = {{"id", id}, {"outcome", k}, {"value", OutcomeToJson(outcome)}};
      if (k + 1 == suts.size()) {
        // The last answer carries the worker's time around the request: what was not a phase of
        // a check went to the protocol (with the previous request's last answer), and before the
        // request came the worker waited.
        measured = Clock::now();
        answer["protocol"] = std::max(0.0, seconds(measured - received) - phases) + tail;
        answer["idle"] = idle;
      }
      emit(answer);
    }
    idle_since = Clock::now();
    tail = seconds(idle_since - measured);
  }
  return 0;
}

}  // namespace

int WorkerMain(const CheckContext& context) {
  // Each case allocates and frees tensors of up to a few MiB; above glibc's default threshold those
  // are mmap'ed and unmapped every time, and the page faults cost more than the small convolutions.
  mallopt(M_MMAP_THRESHOLD, 64 << 20);
  mallopt(M_TRIM_THRESHOLD, 256 << 20);
  // A SUT that prints to stdout must not corrupt the protocol: answers go to a private copy of the
  // original stdout, and the SUTs' stdout goes to stderr.
  const int protocol_fd = dup(STDOUT_FILENO);
  dup2(STDERR_FILENO, STDOUT_FILENO);
  return ServeRequests(STDIN_FILENO, protocol_fd, context);
}

}  // namespace convparity
