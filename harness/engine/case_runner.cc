#include "harness/engine/case_runner.h"

#include <fcntl.h>
#include <malloc.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstring>
#include <deque>
#include <iostream>
#include <map>
#include <nlohmann/json.hpp>
#include <thread>

#include "harness/engine/check_case.h"
#include "harness/engine/outcome_json.h"
#include "harness/suts/sut_registry.h"

extern char** environ;

namespace convparity {
namespace {

CaseOutcome Outcome(Verdict v, std::string reason) {
  CaseOutcome out;
  out.verdict = v;
  out.reason = std::move(reason);
  return out;
}

// SUT instances by name, made once per process (a plugin is loaded once).
class SutCache {
 public:
  Result<ConvSut*> Get(const std::string& name) {
    auto it = suts_.find(name);
    if (it == suts_.end()) {
      Result<std::unique_ptr<ConvSut>> made = MakeSut(name);
      if (!made.ok()) return made.status();
      it = suts_.emplace(name, std::move(made).value()).first;
    }
    return it->second.get();
  }

 private:
  std::map<std::string, std::unique_ptr<ConvSut>> suts_;
};

CaseOutcome RunOne(const PreparedCase& prep, SutCache& cache, const std::string& name) {
  Result<ConvSut*> sut = cache.Get(name);
  if (!sut.ok()) return Outcome(Verdict::kInvalid, sut.status().message());
  return RunPrepared(prep, **sut);
}

class InProcessRunner : public CaseRunner {
 public:
  void Submit(const ConvCase& c, const std::vector<std::string>& suts) override {
    queue_.push_back({c, suts});
  }
  std::vector<CaseOutcome> Next() override {
    const auto [c, suts] = std::move(queue_.front());
    queue_.pop_front();
    const PreparedCase prep = PrepareCase(c);
    std::vector<CaseOutcome> outcomes;
    for (const std::string& name : suts) outcomes.push_back(RunOne(prep, cache_, name));
    return outcomes;
  }
  size_t pending() const override { return queue_.size(); }

 private:
  SutCache cache_;
  std::deque<std::pair<ConvCase, std::vector<std::string>>> queue_;
};

constexpr double kStartupSeconds = 120;

std::string SignalText(int status) {
  if (WIFSIGNALED(status)) {
    const int sig = WTERMSIG(status);
    const char* name = sigabbrev_np(sig);
    return std::string("killed by SIG") + (name ? name : std::to_string(sig));
  }
  if (WIFEXITED(status)) return "exited with code " + std::to_string(WEXITSTATUS(status));
  return "ended";
}

// One worker process and the pipes to it. Protocol, one JSON object a line:
//   parent → worker: {"id": n, "case": <case>, "suts": [names]}, several ahead; the worker takes
//     them in order.
//   worker → parent: {"ready": true} once started; for request n: {"id": n, "prepared": true}
//     once its inputs and reference are there, then {"id": n, "outcome": k, "value": <outcome>}
//     after each SUT k in order (the last one also with "protocol" and "idle": the worker's
//     seconds around the request, CaseTiming). A SUT that crashes or hangs is the one after the
//     last outcome; before "prepared", the case's preparation is. Every line is a write of its
//     own, on the pipe before the next SUT starts, so that a crash cannot take it along.
class WorkerProcess {
 public:
  explicit WorkerProcess(std::string executable) : executable_(std::move(executable)) {}
  ~WorkerProcess() { Stop(); }

  bool running() const { return pid_ > 0; }

  Status Start() {
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
    const char* argv[] = {executable_.c_str(), "worker", nullptr};
    const int rc = posix_spawn(&pid_, executable_.c_str(), &actions, &attributes,
                               const_cast<char* const*>(argv), environ);
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
    // Loading libtorch takes a while (longer on a busy machine): that is not the SUT's time.
    std::string line;
    if (ReadLine(kStartupSeconds, line) != Read::kLine || line.find("ready") == std::string::npos) {
      const std::string how = Stop();
      return Status::Internal("the worker " + executable_ + " did not start (" + how + ")");
    }
    return Status::Ok();
  }

  // Kills the worker if it is still there; returns how it ended.
  std::string Stop(bool kill_it = true) {
    if (pid_ <= 0) return "";
    if (to_ >= 0) close(to_);
    if (from_ >= 0) close(from_);
    to_ = from_ = -1;
    if (kill_it) kill(pid_, SIGKILL);
    int status = 0;
    waitpid(pid_, &status, 0);
    pid_ = -1;
    return SignalText(status);
  }

  bool Send(const std::string& line) {
    size_t done = 0;
    while (done < line.size()) {
      ssize_t n = write(to_, line.data() + done, line.size() - done);
      if (n <= 0) return false;
      done += static_cast<size_t>(n);
    }
    return true;
  }

  enum class Read { kLine, kEof, kTimeout };
  // Reads one line, waiting at most `seconds`.
  Read ReadLine(double seconds, std::string& line) {
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
    for (;;) {
      const size_t nl = buffer_.find('\n');
      if (nl != std::string::npos) {
        line = buffer_.substr(0, nl);
        buffer_.erase(0, nl + 1);
        return Read::kLine;
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

 private:
  std::string executable_;
  pid_t pid_ = -1;
  int to_ = -1, from_ = -1;
  std::string buffer_;
};

class IsolatedRunner : public CaseRunner {
 public:
  IsolatedRunner(const std::string& executable, double timeout)
      : worker_(executable), timeout_(timeout) {}

  void Submit(const ConvCase& c, const std::vector<std::string>& suts) override {
    queue_.push_back({next_id_++, c, suts, std::vector<CaseOutcome>(suts.size())});
    if (worker_.running()) Send(queue_.back());
    // else the next Next() starts a worker and sends everything queued
  }

  std::vector<CaseOutcome> Next() override {
    Request& r = queue_.front();
    // Whether the worker said it prepared `r`: from then on it runs suts[r.done] (in order).
    bool prepared = false;
    while (r.done < r.suts.size()) {
      if (!worker_.running()) {
        const auto restart = std::chrono::steady_clock::now();
        const Status st = Restart();
        // Starting a worker (loading libtorch) is the isolation's cost, part of the protocol.
        r.protocol +=
            std::chrono::duration<double>(std::chrono::steady_clock::now() - restart).count();
        if (!st.ok()) {
          for (size_t k = r.done; k < r.suts.size(); ++k)
            r.out[k] = Outcome(Verdict::kCrashed, st.message());
          break;
        }
        prepared = false;
      }
      std::string line;
      switch (worker_.ReadLine(timeout_, line)) {
        case WorkerProcess::Read::kTimeout: {
          worker_.Stop();
          const size_t k = r.done;
          const std::string what = prepared ? r.suts[k] : "preparing the case";
          r.out[k] = Outcome(Verdict::kHung,
                             what + " did not finish within " + std::to_string(timeout_) + " s");
          (prepared ? r.out[k].timing.sut : r.out[k].timing.oracle) = timeout_;
          r.done = k + 1;
          continue;
        }
        case WorkerProcess::Read::kEof:
          Died(r, prepared ? static_cast<int>(r.done) : -1);
          continue;
        case WorkerProcess::Read::kLine:
          break;
      }
      nlohmann::json msg = nlohmann::json::parse(line, nullptr, /*allow_exceptions=*/false);
      // Not ours (a SUT wrote to stdout), or an answer to a request sent to a worker since
      // replaced.
      if (msg.is_discarded() || !msg.is_object() || msg.value("id", ~uint64_t{0}) != r.id) continue;
      if (msg.contains("prepared")) {
        prepared = true;
      } else if (msg.contains("outcome")) {
        const size_t k = r.base + msg["outcome"].get<size_t>();
        if (k >= r.suts.size()) continue;
        Result<CaseOutcome> o = OutcomeFromJson(msg["value"]);
        r.out[k] = o.ok() ? *o : Outcome(Verdict::kCrashed, o.status().message());
        r.done = k + 1;
        // The worker's time around the request comes with its last answer.
        r.protocol += msg.value("protocol", 0.0);
        r.idle += msg.value("idle", 0.0);
      }
    }
    std::vector<CaseOutcome> out = std::move(r.out);
    // Counted once per request, with the shared phases (fill, oracle) of the first SUT.
    if (!out.empty()) {
      out[0].timing.protocol += r.protocol;
      out[0].timing.idle += r.idle;
    }
    queue_.pop_front();
    return out;
  }

  size_t pending() const override { return queue_.size(); }

 private:
  struct Request {
    uint64_t id;
    ConvCase c;
    std::vector<std::string> suts;
    std::vector<CaseOutcome> out;
    size_t done = 0;  // SUTs with an outcome: suts[0, done)
    size_t base = 0;  // the worker's SUT k is suts[base + k] (a resent request starts at `done`)
    double protocol = 0, idle = 0;  // the worker's seconds around it (CaseTiming)
  };

  // Sends the SUTs of `r` that have no outcome yet.
  void Send(Request& r) {
    r.base = r.done;
    ConvCase sent = r.c;
    sent.sut = r.suts[r.base];  // a case names a SUT; the request's list is what runs
    const std::vector<std::string> rest(r.suts.begin() + static_cast<int64_t>(r.base),
                                        r.suts.end());
    const nlohmann::json request = {
        {"id", r.id}, {"case", CaseToJson(sent, /*with_descriptor=*/false)}, {"suts", rest}};
    worker_.Send(request.dump() + "\n");  // a dead worker shows as end of file when read
  }

  // A new worker, given everything still queued (what the old one had in its pipe died with it).
  Status Restart() {
    CP_RETURN_IF_ERROR(worker_.Start());
    for (Request& r : queue_)
      if (r.done < r.suts.size()) Send(r);
    return Status::Ok();
  }

  // The worker died while running SUT `current` of `r` (-1: before any, while preparing the case).
  void Died(Request& r, int current) {
    const std::string how = worker_.Stop(/*kill_it=*/false);
    if (current < 0) {
      // Nothing of a SUT ran: the harness itself failed on this case. Every SUT gets the verdict.
      for (size_t k = r.done; k < r.suts.size(); ++k)
        r.out[k] = Outcome(Verdict::kCrashed, "the worker " + how + " while preparing the case");
      r.done = r.suts.size();
      return;
    }
    r.out[current] = Outcome(Verdict::kCrashed, r.suts[current] + " " + how);
    r.done = static_cast<size_t>(current) + 1;
  }

  WorkerProcess worker_;
  double timeout_;
  std::deque<Request> queue_;
  uint64_t next_id_ = 0;
};

}  // namespace

std::unique_ptr<CaseRunner> MakeInProcessRunner() { return std::make_unique<InProcessRunner>(); }

std::unique_ptr<CaseRunner> MakeIsolatedRunner(const std::string& executable,
                                               double timeout_seconds) {
  return std::make_unique<IsolatedRunner>(executable, timeout_seconds);
}

std::unique_ptr<CaseRunner> MakeRunner(const RunnerOptions& options) {
  return options.isolate ? MakeIsolatedRunner(SelfExecutable(), options.timeout_seconds)
                         : MakeInProcessRunner();
}

std::vector<CaseOutcome> RunCases(const std::vector<ConvCase>& cases,
                                  const RunnerOptions& options) {
  // Group by everything but the SUT, keeping first-seen order.
  std::map<std::string, size_t> group_of;
  std::vector<std::vector<size_t>> groups;
  for (size_t i = 0; i < cases.size(); ++i) {
    ConvCase key = cases[i];
    key.sut = key.note = "";
    key.origin = {};  // the same problem from two lines of a list is prepared once
    key.expect = Verdict::kPassed;
    auto [it, is_new] = group_of.try_emplace(CaseToJson(key).dump(), groups.size());
    if (is_new) groups.emplace_back();
    groups[it->second].push_back(i);
  }
  std::vector<CaseOutcome> outcomes(cases.size());
  std::atomic<size_t> next{0};
  auto work = [&] {
    std::unique_ptr<CaseRunner> runner = MakeRunner(options);
    std::deque<size_t> submitted;  // groups, in the order their outcomes come back
    for (;;) {
      for (size_t g; submitted.size() < kCasesInFlight && (g = next++) < groups.size();) {
        std::vector<std::string> suts;
        for (size_t i : groups[g]) suts.push_back(cases[i].sut);
        runner->Submit(cases[groups[g][0]], suts);
        submitted.push_back(g);
      }
      if (submitted.empty()) return;
      std::vector<CaseOutcome> got = runner->Next();
      const std::vector<size_t>& group = groups[submitted.front()];
      submitted.pop_front();
      for (size_t k = 0; k < got.size(); ++k) outcomes[group[k]] = std::move(got[k]);
    }
  };
  std::vector<std::thread> threads;
  for (int j = 1; j < std::min<int>(options.jobs, static_cast<int>(groups.size())); ++j)
    threads.emplace_back(work);
  work();
  for (std::thread& t : threads) t.join();
  return outcomes;
}

std::string SelfExecutable() {
  char path[4096];
  const ssize_t n = readlink("/proc/self/exe", path, sizeof path - 1);
  return n > 0 ? std::string(path, static_cast<size_t>(n)) : std::string();
}

int WorkerMain() {
  // Requests are read line by line: without this, every character is a locked C stdio call.
  std::ios::sync_with_stdio(false);
  // Each case allocates and frees tensors of up to a few MiB; above glibc's default threshold those
  // are mmap'ed and unmapped every time, and the page faults cost more than the small convolutions.
  mallopt(M_MMAP_THRESHOLD, 64 << 20);
  mallopt(M_TRIM_THRESHOLD, 256 << 20);
  // A SUT that prints to stdout must not corrupt the protocol: answers go to a private copy of the
  // original stdout, and the SUTs' stdout goes to stderr.
  const int protocol_fd = dup(STDOUT_FILENO);
  dup2(STDERR_FILENO, STDOUT_FILENO);
  FILE* protocol = fdopen(protocol_fd, "w");
  auto emit = [&](const nlohmann::json& j) {
    const std::string line = j.dump() + "\n";
    std::fwrite(line.data(), 1, line.size(), protocol);
    std::fflush(protocol);
  };
  SutCache cache;
  emit({{"ready", true}});
  using Clock = std::chrono::steady_clock;
  auto seconds = [](Clock::duration d) { return std::chrono::duration<double>(d).count(); };
  Clock::time_point idle_since = Clock::now();
  double tail = 0;  // the previous request's time after its protocol share was measured
  std::string line;
  while (std::getline(std::cin, line)) {
    const Clock::time_point received = Clock::now();
    const double idle = seconds(received - idle_since);
    nlohmann::json request = nlohmann::json::parse(line, nullptr, false);
    if (request.is_discarded() || !request.contains("case") || !request.contains("suts")) return 3;
    Result<ConvCase> c = CaseFromJson(request["case"]);
    if (!c.ok()) return 3;
    const nlohmann::json id = request.value("id", nlohmann::json(0));
    const PreparedCase prep = PrepareCase(*c);
    emit({{"id", id}, {"prepared", true}});
    double phases = prep.timing.fill + prep.timing.oracle;
    Clock::time_point measured = received;
    const auto suts = request["suts"].get<std::vector<std::string>>();
    for (size_t k = 0; k < suts.size(); ++k) {
      const CaseOutcome outcome = RunOne(prep, cache, suts[k]);
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

}  // namespace convparity
