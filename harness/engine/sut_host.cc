#include "harness/engine/sut_host.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <nlohmann/json.hpp>
#include <vector>

#include "core/conv_case.h"
#include "harness/engine/outcome_wire.h"
#include "harness/engine/sut_cache.h"
#include "harness/exec/child_process.h"

namespace convparity {
namespace {

// The host's pipes: requests come on 3, answers go out on 4 (0 is /dev/null: a SUT that reads
// its stdin must not take the requests).
constexpr int kRequestFd = 3;
constexpr int kAnswerFd = 4;

// A child's answer: one JSON line, then bytes: {"outcome": true} and the outcome
// (EncodeOutcome) for a case that ended before its SUT ran, or {"run": …} (SutRun without its
// result) and the result's float32 values.
std::string RunAnswer(const SutRun& run, const std::string& sut_name, double around) {
  nlohmann::json r = {{"status", static_cast<int>(run.status.code())},
                      {"message", run.status.message()},
                      {"seconds", run.seconds},
                      {"around", around},
                      {"sut_name", sut_name},
                      {"shape", run.result.shape},
                      {"implementation", run.notes.implementation},
                      {"inexact", run.notes.inexact}};
  if (run.verdict) r["verdict"] = VerdictName(*run.verdict);
  if (run.declared) r["declared"] = true;
  if (run.outside) r["outside"] = *run.outside;
  std::string answer = nlohmann::json({{"run", r}}).dump() + "\n";
  answer.append(reinterpret_cast<const char*>(run.result.values.data()),
                run.result.values.size() * sizeof(float));
  return answer;
}

// In a child: the case's inputs, the SUT's instance (from `suts`) and run; nothing of the oracle.
std::string RunInChild(const nlohmann::json& request, const CheckContext& context, SutCache& suts) {
  auto outcome = [](const CaseOutcome& o) {
    return nlohmann::json({{"outcome", true}}).dump() + "\n" + EncodeOutcome(o);
  };
  Result<ConvCase> c = CaseFromJson(request.at("case"));
  if (!c.ok()) return outcome(VerdictOutcome(Verdict::kInvalid, c.status().message()));
  const PreparedCase prep = PrepareInputs(*c, context);
  if (prep.ended) return outcome(*prep.ended);
  Result<Sut*> sut = suts.Get(request.at("sut").get<std::string>());
  if (!sut.ok()) return outcome(VerdictOutcome(Verdict::kInvalid, sut.status().message()));
  const auto start = std::chrono::steady_clock::now();
  const SutRun run =
      RunSut(**sut, prep.c.problem, prep.c.direction, prep.inputs, *prep.c.graph, prep.c.spelling);
  return RunAnswer(run, (*sut)->name(),
                   std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
}

// A child of the host and the pipes to it. A child serves requests, each answer framed as
// {"bytes": n} and n bytes, until its pipe closes, or one request only (a fresh child).
struct Child {
  pid_t pid = -1;
  int to = -1, from = -1;
  std::optional<PipeReader> answers;
};

[[noreturn]] void ServeAsChild(int in, int out, const CheckContext& context, bool once) {
  prctl(PR_SET_PDEATHSIG, SIGKILL);  // a host that dies takes its children along
  prctl(PR_SET_NAME, "cp-sut-child");
  SutCache suts(context.suts);  // a kept child keeps its SUTs' instances from case to case
  PipeReader requests(in);
  for (std::string line; requests.Line(line);) {
    const nlohmann::json request = nlohmann::json::parse(line, nullptr, false);
    if (!request.is_object()) break;
    const std::string answer = RunInChild(request, context, suts);
    if (!WriteAll(out, nlohmann::json({{"bytes", answer.size()}}).dump() + "\n" + answer) || once)
      break;
  }
  _exit(0);  // no destructors, no atexit handlers: the host owns all that
}

bool StartChild(Child& child, const CheckContext& context, bool once) {
  int down[2], up[2];
  if (pipe2(down, O_CLOEXEC) != 0) return false;
  if (pipe2(up, O_CLOEXEC) != 0) {
    close(down[0]);
    close(down[1]);
    return false;
  }
  child.pid = fork();
  if (child.pid == 0) {
    close(kRequestFd);
    close(kAnswerFd);
    close(down[1]);
    close(up[0]);
    ServeAsChild(down[0], up[1], context, once);
  }
  close(down[0]);
  close(up[1]);
  if (child.pid < 0) {
    close(down[1]);
    close(up[0]);
    return false;
  }
  child.to = down[1];
  child.from = up[0];
  child.answers.emplace(child.from);
  return true;
}

// Ends `child` (a fresh one has ended by itself); returns how it ended.
std::string EndChild(Child& child) {
  if (child.pid <= 0) return "could not be forked";
  close(child.to);
  close(child.from);
  child.answers.reset();
  kill(child.pid, SIGKILL);  // harmless on one that has exited
  int status = 0;
  while (waitpid(child.pid, &status, 0) < 0 && errno == EINTR) {
  }
  child.pid = -1;
  return ProcessEndText(status);
}

// The host's loop: each request goes to a fresh child, or to the kept child ("keep"), forked
// again once it has died. The answer goes to the worker after a line that says how the child
// ended, when it did ("" when it answered).
[[noreturn]] void ServeHost(const CheckContext& context) {
  prctl(PR_SET_PDEATHSIG, SIGKILL);   // a worker that dies takes its host along
  prctl(PR_SET_NAME, "cp-sut-host");  // for ps and perf: a worker's host and its children
  PipeReader requests(kRequestFd);
  Child kept;
  for (std::string line; requests.Line(line);) {
    const nlohmann::json request = nlohmann::json::parse(line, nullptr, false);
    const bool keep = request.is_object() && request.value("keep", false);
    Child fresh;
    Child& child = keep ? kept : fresh;
    if (child.pid <= 0) StartChild(child, context, /*once=*/!keep);
    std::string frame, answer, ended;
    nlohmann::json head;
    const bool answered = child.pid > 0 && WriteAll(child.to, line + "\n") &&
                          child.answers->Line(frame) &&
                          (head = nlohmann::json::parse(frame, nullptr, false)).is_object() &&
                          child.answers->Bytes(head.value("bytes", size_t{0}), answer);
    if (!answered) {
      answer.clear();  // a child that died while writing left half an answer
      ended = EndChild(child);
    }
    if (!WriteAll(kAnswerFd, nlohmann::json({{"ended", ended}, {"bytes", answer.size()}}).dump() +
                                 "\n" + answer))
      break;
    if (!keep && fresh.pid > 0) EndChild(fresh);  // reaped once the worker has its answer
  }
  _exit(0);
}

// The worker's side of a child's answer: `r` its "run", the result's bytes from `offset` on.
Result<SutRun> RunFromAnswer(const nlohmann::json& r, const std::string& answer, size_t offset,
                             double* around) {
  try {
    SutRun run;
    run.status = Status(static_cast<StatusCode>(r.at("status").get<int>()),
                        r.at("message").get<std::string>());
    if (r.contains("verdict")) {
      Result<Verdict> v = ParseVerdict(r.at("verdict").get<std::string>());
      if (!v.ok()) return v.status();
      run.verdict = *v;
    }
    run.seconds = r.at("seconds").get<double>();
    run.declared = r.value("declared", false);
    if (r.contains("outside")) run.outside = r.at("outside").get<std::string>();
    *around = r.at("around").get<double>();
    run.notes.implementation = r.at("implementation").get<std::string>();
    run.notes.inexact = r.at("inexact").get<bool>();
    run.result.shape = r.at("shape").get<Shape>();
    run.result.values.resize(static_cast<size_t>(NumElements(run.result.shape)));
    const size_t bytes = run.result.values.size() * sizeof(float);
    if (answer.size() - offset != bytes) return Status::Internal("a result of the wrong size");
    std::memcpy(run.result.values.data(), answer.data() + offset, bytes);
    return run;
  } catch (const nlohmann::json::exception& e) {
    return Status::Internal(e.what());
  }
}

}  // namespace

SutHost::SutHost(const CheckContext& context) : context_(context) { Start(); }

SutHost::~SutHost() { Stop(); }

bool SutHost::Start() {
  int down[2], up[2];
  if (pipe(down) != 0) return false;
  if (pipe(up) != 0) {
    close(down[0]);
    close(down[1]);
    return false;
  }
  pid_ = fork();
  if (pid_ == 0) {
    // Only the host's two pipes stay open, and not across an exec: a copy of the worker's
    // protocol pipe here would keep the campaign from seeing the worker end, and a SUT's output
    // would corrupt it (stdout goes to stderr, as in the worker).
    if (dup2(down[0], kRequestFd) < 0 || dup2(up[1], kAnswerFd) < 0) _exit(3);
    fcntl(kRequestFd, F_SETFD, FD_CLOEXEC);
    fcntl(kAnswerFd, F_SETFD, FD_CLOEXEC);
    const int null = open("/dev/null", O_RDONLY);
    if (null >= 0) dup2(null, STDIN_FILENO);
    dup2(STDERR_FILENO, STDOUT_FILENO);
    close_range(kAnswerFd + 1, ~0U, 0);
    ServeHost(context_);
  }
  close(down[0]);
  close(up[1]);
  if (pid_ < 0) {
    close(down[1]);
    close(up[0]);
    return false;
  }
  fcntl(down[1], F_SETFD, FD_CLOEXEC);
  fcntl(up[0], F_SETFD, FD_CLOEXEC);
  to_ = down[1];
  from_ = up[0];
  answers_.emplace(from_);
  return true;
}

void SutHost::Stop() {
  if (pid_ <= 0) return;
  close(to_);
  close(from_);
  answers_.reset();
  kill(pid_, SIGKILL);
  while (waitpid(pid_, nullptr, 0) < 0 && errno == EINTR) {
  }
  pid_ = -1;
}

std::string SutHost::Request(const ConvCase& c, const std::string& sut, bool keep) {
  return nlohmann::json(
             {{"case", CaseToJson(c, /*with_descriptor=*/false)}, {"sut", sut}, {"keep", keep}})
             .dump() +
         "\n";
}

void SutHost::Send(const ConvCase& c, const std::string& sut, bool keep) {
  if (pid_ <= 0) Start();
  if (pid_ > 0 && !WriteAll(to_, Request(c, sut, keep))) Stop();  // Receive forks a new one
}

CaseOutcome SutHost::Receive(const PreparedCase& prep, const std::string& sut, bool keep) {
  std::string line, answer;
  nlohmann::json ended;
  // A host that died (it runs no SUT, so that is rare) is forked again, from a worker that may
  // hold LibTorch by now, and given the case again.
  for (int attempt = 0;; ++attempt) {
    if (pid_ > 0 && answers_->Line(line)) {
      ended = nlohmann::json::parse(line, nullptr, false);
      if (ended.is_object() && answers_->Bytes(ended.value("bytes", size_t{0}), answer)) break;
    }
    Stop();
    if (attempt == 1 || !Start() || !WriteAll(to_, Request(prep.c, sut, keep)))
      return VerdictOutcome(Verdict::kCrashed, "the SUT host of " + sut + " failed");
  }
  if (prep.ended) return *prep.ended;  // the child's answer is not needed
  if (answer.empty())
    return VerdictOutcome(Verdict::kCrashed,
                          sut + " " + ended.value("ended", std::string()) +
                              (keep ? " (in a child of the SUT host, kept from case to case)"
                                    : " (in a child forked for the case)"));
  // The answer: its first line, then the result's bytes.
  const size_t nl = answer.find('\n');
  const nlohmann::json head = nlohmann::json::parse(answer.substr(0, nl), nullptr, false);
  std::string why = "no first line";
  if (head.is_object() && head.contains("outcome") && nl != std::string::npos) {
    Result<CaseOutcome> o = DecodeOutcome(std::string_view(answer).substr(nl + 1));
    if (o.ok()) return *o;
    why = o.status().message();
  } else if (head.is_object() && head.contains("run") && nl != std::string::npos) {
    double around = 0;
    Result<SutRun> run = RunFromAnswer(head["run"], answer, nl + 1, &around);
    if (run.ok()) return JudgeRun(prep, head["run"].value("sut_name", sut), *run, around);
    why = run.status().message();
  }
  return VerdictOutcome(Verdict::kCrashed,
                        sut + ": a malformed answer from its child (" + why + ")");
}

}  // namespace convparity
