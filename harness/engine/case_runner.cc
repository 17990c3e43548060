#include "harness/engine/case_runner.h"

#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <deque>
#include <map>
#include <mutex>
#include <nlohmann/json.hpp>
#include <set>
#include <thread>
#include <utility>

#include "core/graph.h"
#include "harness/engine/cases_in_flight.h"
#include "harness/engine/check_case.h"
#include "harness/engine/sut_cache.h"
#include "harness/engine/time_limits.h"
#include "harness/engine/worker_process.h"

namespace convparity {
namespace {

class InProcessRunner : public CaseRunner {
 public:
  explicit InProcessRunner(const CheckContext& context) : context_(context), cache_(context.suts) {}

  void Submit(const ConvCase& c, const std::vector<std::string>& suts) override {
    queue_.push_back({c, suts});
  }
  std::vector<CaseOutcome> Next() override {
    const auto [c, suts] = std::move(queue_.front());
    queue_.pop_front();
    const PreparedCase prep = PrepareCase(c, context_);
    std::vector<CaseOutcome> outcomes;
    for (const std::string& name : suts) outcomes.push_back(RunOne(prep, cache_, name));
    return outcomes;
  }
  size_t pending() const override { return queue_.size(); }

 private:
  CheckContext context_;
  SutCache cache_;
  std::deque<std::pair<ConvCase, std::vector<std::string>>> queue_;
};

// Names shared by every runner of this process.
class NameSet {
 public:
  bool count(const std::string& name) {
    std::lock_guard<std::mutex> lock(mu_);
    return names_.count(name) != 0;
  }
  void insert(const std::string& name) {
    std::lock_guard<std::mutex> lock(mu_);
    names_.insert(name);
  }

 private:
  std::mutex mu_;
  std::set<std::string> names_;
};

class IsolatedRunner : public CaseRunner {
 public:
  IsolatedRunner(const std::string& executable, double timeout, const CheckContext& context,
                 const WorkerPolicy& policy)
      : worker_(executable, context, policy.malloc_check),
        spare_(executable, context, policy.malloc_check),
        timeout_(timeout),
        limits_{policy.timeout_floor_seconds, timeout},
        policy_(policy) {}

  void Submit(const ConvCase& c, const std::vector<std::string>& suts) override {
    queue_.push_back({next_id_++, c, suts, std::vector<CaseOutcome>(suts.size())});
    queue_.back().macs = FormMacs(*c.graph, c.problem);
    if (worker_.running()) Send(queue_.back());
    // else the next Next() starts a worker and sends everything queued
  }

  std::vector<CaseOutcome> Next() override {
    Request& r = queue_.front();
    // Whether the worker said it prepared `r`: from then on it runs suts[r.done] (in order).
    bool prepared = false;
    double limit = timeout_;  // for suts[r.done], once the oracle's time is known
    double cpu_at_start = 0;  // the worker's CPU seconds when suts[r.done] started (confirming)
    auto next_sut_starts = [&](double oracle_seconds) {
      if (r.done >= r.suts.size()) return;
      const std::string& sut = r.suts[r.done];
      limit = r.first_limit > 0 ? limits_.ConfirmWall(r.first_limit)
                                : limits_.First(sut, oracle_seconds, r.macs);
      if (r.first_limit > 0) cpu_at_start = worker_.CpuSeconds();
    };
    while (r.done < r.suts.size()) {
      if (PastDeadline()) {
        Abandon();
        break;
      }
      if (!worker_.running()) {
        const auto restart = Clock::now();
        const Status st = Restart();
        // Starting a worker (loading libtorch) is the isolation's cost, part of the protocol.
        r.protocol += std::chrono::duration<double>(Clock::now() - restart).count();
        if (!st.ok() && PastDeadline()) continue;  // abandoned at the top of the loop
        if (!st.ok()) {
          for (size_t k = r.done; k < r.suts.size(); ++k)
            r.out[k] = VerdictOutcome(Verdict::kCrashed, st.message());
          break;
        }
        prepared = false;
      }
      WorkerAnswer answer;
      const double cpu_limit =
          prepared && r.first_limit > 0 ? limits_.ConfirmCpu(r.first_limit) : 0;
      switch (Wait(prepared ? limit : limits_.Prepare(r.macs), cpu_limit, cpu_at_start, answer)) {
        case Waited::kDeadline:
          continue;  // abandoned at the top of the loop
        case Waited::kTimeout:
          if (prepared && r.first_limit == 0) {
            // Ran out of its first limit: load or slowness, or a hang. Run it again alone, in a
            // fresh worker, under the longer CPU-time limit, before calling it hung.
            worker_.Stop();
            r.first_limit = limit;
            continue;
          }
          Hung(r, prepared);
          continue;
        case Waited::kEof:
          Died(r, prepared);
          continue;
        case Waited::kMalformed:
          Died(r, prepared, "sent what is no answer (" + worker_.malformed() + ")");
          continue;
        case Waited::kAnswer:
          break;
      }
      // A worker answers its requests in order (a replaced one's pipe is closed): "prepared" for
      // the oldest, then its SUTs' outcomes one by one. Anything else is a broken worker.
      const bool in_turn =
          answer.id == r.id &&
          (prepared ? answer.kind == WorkerAnswer::Kind::kOutcome && r.base + answer.sut == r.done
                    : answer.kind == WorkerAnswer::Kind::kPrepared);
      if (!in_turn) {
        worker_.Stop();
        Died(r, prepared, "sent an answer out of turn");
        continue;
      }
      if (answer.kind == WorkerAnswer::Kind::kPrepared) {
        prepared = true;
        r.oracle_seconds = answer.oracle_seconds;
        next_sut_starts(r.oracle_seconds);
      } else {
        const size_t k = r.done;
        CaseOutcome& o = r.out[k] = std::move(answer.outcome);
        // The worker's time around the request comes with its last answer.
        r.protocol += std::exchange(o.timing.protocol, 0);
        r.idle += std::exchange(o.timing.idle, 0);
        if (r.first_limit > 0) {
          // Finished alone what it could not in its first limit: slow, not hung.
          o.slow = true;
          r.first_limit = 0;
        }
        r.done = k + 1;
        SutSpeeds::Shared().Observe(r.suts[k], o.timing.sut, r.macs);
        next_sut_starts(r.oracle_seconds);
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
  using Clock = std::chrono::steady_clock;

  struct Request {
    uint64_t id;
    ConvCase c;
    std::vector<std::string> suts;
    std::vector<CaseOutcome> out;
    int64_t macs = 0;
    size_t done = 0;  // SUTs with an outcome: suts[0, done)
    size_t base = 0;  // the worker's SUT k is suts[base + k] (a resent request starts at `done`)
    double protocol = 0, idle = 0;  // the worker's seconds around it (CaseTiming)
    double oracle_seconds = 0;
    // > 0: suts[done] ran out of this limit and is being run again alone (time_limits.h).
    double first_limit = 0;
  };

  enum class Waited { kAnswer, kEof, kMalformed, kTimeout, kDeadline };
  // Reads the worker's next answer within `wall` seconds and, with `cpu_limit` > 0, while the
  // worker's process tree has used less than that many CPU seconds since `cpu_at_start`; never
  // past the policy's deadline.
  Waited Wait(double wall, double cpu_limit, double cpu_at_start, WorkerAnswer& answer) {
    // How often the CPU time and the deadline are looked at.
    constexpr double kSliceSeconds = 0.05;
    const auto until = Clock::now() + std::chrono::duration<double>(wall);
    for (;;) {
      const double left = std::chrono::duration<double>(until - Clock::now()).count();
      if (left <= 0) return Waited::kTimeout;
      const bool sliced = cpu_limit > 0 || policy_.deadline;
      switch (worker_.ReadAnswer(sliced ? std::min(left, kSliceSeconds) : left, answer)) {
        case WorkerProcess::Read::kAnswer:
          return Waited::kAnswer;
        case WorkerProcess::Read::kEof:
          return Waited::kEof;
        case WorkerProcess::Read::kMalformed:
          return Waited::kMalformed;
        case WorkerProcess::Read::kTimeout:
          break;
      }
      if (PastDeadline()) return Waited::kDeadline;
      if (cpu_limit > 0 && worker_.CpuSeconds() - cpu_at_start > cpu_limit) return Waited::kTimeout;
    }
  }

  bool PastDeadline() const { return policy_.deadline && Clock::now() >= *policy_.deadline; }

  // The deadline passed: nothing pending will be run.
  void Abandon() {
    worker_.Stop();
    for (Request& q : queue_) {
      for (size_t k = q.done; k < q.suts.size(); ++k) {
        q.out[k] = VerdictOutcome(Verdict::kSkipped, "abandoned: the time budget ran out");
        q.out[k].abandoned = true;
      }
      q.done = q.suts.size();
    }
  }

  // The SUTs of `r` that have no outcome yet.
  void Send(Request& r) {
    r.base = r.done;
    ConvCase sent = r.c;
    sent.sut = r.suts[r.base];  // a case names a SUT; the request's list is what runs
    const std::vector<std::string> rest(r.suts.begin() + static_cast<int64_t>(r.base),
                                        r.suts.end());
    std::vector<std::string> fresh, kept;
    for (const std::string& sut : rest) {
      if (policy_.fork_per_case)
        fresh.push_back(sut);
      else if (ended_a_worker_.count(sut) != 0)
        kept.push_back(sut);
    }
    nlohmann::json request = {
        {"id", r.id}, {"case", CaseToJson(sent, /*with_descriptor=*/false)}, {"suts", rest}};
    if (!fresh.empty()) request["fresh"] = fresh;
    if (!kept.empty()) request["kept"] = kept;
    worker_.Send(request.dump() + "\n");  // a dead worker shows as end of file when read
  }

  // A new worker, given everything still queued (what the old one had in its pipe died with it).
  Status Restart() {
    // A start is not waited for past the deadline either.
    double startup = WorkerProcess::kStartupSeconds;
    if (policy_.deadline)
      startup = std::min(startup,
                         std::chrono::duration<double>(*policy_.deadline - Clock::now()).count());
    if (policy_.spare_worker && spare_.running()) {
      worker_.Swap(spare_);
      CP_RETURN_IF_ERROR(worker_.WaitReady(startup));
    } else {
      CP_RETURN_IF_ERROR(worker_.Start(startup));
    }
    // The next restart's worker loads libtorch while this one works.
    if (policy_.spare_worker) (void)spare_.Spawn();
    for (Request& r : queue_)
      if (r.done < r.suts.size()) Send(r);
    return Status::Ok();
  }

  // The worker did not answer in time: suts[r.done] hung (after its confirming run), or the case's
  // preparation ran out of its limit (the case is skipped: the oracle is not the SUT).
  void Hung(Request& r, bool prepared) {
    worker_.Stop();
    const size_t k = r.done;
    std::string why;
    if (!prepared) {
      // The harness's own time ran out, not a SUT's: the case is not checked.
      const double prepare = limits_.Prepare(r.macs);
      r.out[k] = VerdictOutcome(
          Verdict::kSkipped,
          "preparing the case (the oracle) did not finish within " + Seconds(prepare));
      r.out[k].timing.oracle = prepare;
      r.first_limit = 0;
      r.done = k + 1;
      return;
    } else {
      why = r.suts[k] + " did not finish within " + Seconds(r.first_limit) + ", nor alone within " +
            Seconds(limits_.ConfirmCpu(r.first_limit)) + " of CPU time (" +
            Seconds(limits_.ConfirmWall(r.first_limit)) + " wall-clock)";
      r.out[k].timing.sut = r.first_limit;
    }
    const CaseTiming timing = r.out[k].timing;
    r.out[k] = VerdictOutcome(Verdict::kHung, why);
    r.out[k].timing = timing;
    r.first_limit = 0;
    r.done = k + 1;
  }

  static std::string Seconds(double s) {
    char text[32];
    std::snprintf(text, sizeof text, "%.3g s", s);
    return text;
  }

  // The worker ended while preparing `r` (`prepared` false) or while its SUT r.suts[r.done] ran:
  // it died, or it broke the protocol and was stopped (`broke`: what it sent). A SUT that scribbles
  // over the worker's memory can do either, so that SUT is reported crashed and runs apart from
  // then on; a broken protocol's reason says what was seen, not that the SUT sent it.
  void Died(Request& r, bool prepared, const std::string& broke = "") {
    const std::string how = broke.empty() ? worker_.Stop(/*kill_it=*/false) : broke;
    r.first_limit = 0;
    if (!prepared) {
      // Nothing of a SUT ran: the harness itself failed on this case. Every SUT gets the verdict.
      for (size_t k = r.done; k < r.suts.size(); ++k)
        r.out[k] =
            VerdictOutcome(Verdict::kCrashed, "the worker " + how + " while preparing the case");
      r.done = r.suts.size();
      return;
    }
    const std::string& sut = r.suts[r.done];
    ended_a_worker_.insert(sut);
    r.out[r.done] = VerdictOutcome(
        Verdict::kCrashed,
        broke.empty() ? sut + " " + how : "the worker " + how + " while " + sut + " ran");
    ++r.done;
  }

  // SUTs whose run ended a worker of this process: they run apart (sut_host.h) from then on, in
  // every runner (the triage's too).
  static inline NameSet ended_a_worker_;

  WorkerProcess worker_;
  WorkerProcess spare_;  // started ahead when policy_.spare_worker
  double timeout_;
  TimeLimit limits_;
  WorkerPolicy policy_;
  std::deque<Request> queue_;
  uint64_t next_id_ = 0;
};

}  // namespace

std::unique_ptr<CaseRunner> MakeInProcessRunner(const CheckContext& context) {
  return std::make_unique<InProcessRunner>(context);
}

std::unique_ptr<CaseRunner> MakeIsolatedRunner(const std::string& executable,
                                               double timeout_seconds, const CheckContext& context,
                                               const WorkerPolicy& policy) {
  return std::make_unique<IsolatedRunner>(executable, timeout_seconds, context, policy);
}

std::unique_ptr<CaseRunner> MakeRunner(const RunnerOptions& options) {
  if (options.isolation == Isolation::kNone) return MakeInProcessRunner(options.context);
  WorkerPolicy policy;
  policy.fork_per_case = options.isolation == Isolation::kCase;
  return MakeIsolatedRunner(SelfExecutable(), options.timeout_seconds, options.context, policy);
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
    CasesInFlight<size_t> in_flight(*runner);  // tagged with their group
    in_flight.Run(
        kCasesInFlight,
        [&] {
          const size_t g = next++;
          if (g >= groups.size()) return false;
          std::vector<std::string> suts;
          for (size_t i : groups[g]) suts.push_back(cases[i].sut);
          in_flight.Submit(cases[groups[g][0]], suts, g);
          return true;
        },
        [&](size_t& g, std::vector<CaseOutcome>& got) {
          for (size_t k = 0; k < got.size(); ++k) outcomes[groups[g][k]] = std::move(got[k]);
        });
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

}  // namespace convparity
