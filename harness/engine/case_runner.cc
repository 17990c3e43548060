#include "harness/engine/case_runner.h"

#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <deque>
#include <map>
#include <mutex>
#include <nlohmann/json.hpp>
#include <set>
#include <thread>

#include "harness/engine/cases_in_flight.h"
#include "harness/engine/check_case.h"
#include "harness/engine/outcome_json.h"
#include "harness/engine/sut_cache.h"
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

class IsolatedRunner : public CaseRunner {
 public:
  IsolatedRunner(const std::string& executable, double timeout, const CheckContext& context,
                 const WorkerPolicy& policy)
      : worker_(executable, context, policy.malloc_check),
        spare_(executable, context, policy.malloc_check),
        timeout_(timeout),
        policy_(policy) {}

  void Submit(const ConvCase& c, const std::vector<std::string>& suts) override {
    queue_.push_back({next_id_++, c, suts, std::vector<CaseOutcome>(suts.size())});
    // A fresh worker per case is given its one case when it starts.
    if (worker_.running() && !policy_.fresh_per_case) Send(queue_.back());
    // else the next Next() starts a worker and sends everything queued
  }

  std::vector<CaseOutcome> Next() override {
    Request& r = queue_.front();
    // Whether the worker said it prepared `r`: from then on it runs suts[r.done] (in order).
    bool prepared = false;
    double sut_timeout = timeout_;  // the adaptive one once the oracle's time is known
    while (r.done < r.suts.size()) {
      if (!worker_.running()) {
        const auto restart = std::chrono::steady_clock::now();
        const Status st = Restart();
        // Starting a worker (loading libtorch) is the isolation's cost, part of the protocol.
        r.protocol +=
            std::chrono::duration<double>(std::chrono::steady_clock::now() - restart).count();
        if (!st.ok()) {
          for (size_t k = r.done; k < r.suts.size(); ++k)
            r.out[k] = VerdictOutcome(Verdict::kCrashed, st.message());
          break;
        }
        prepared = false;
      }
      std::string line;
      const double waited = prepared ? sut_timeout : timeout_;
      switch (worker_.ReadLine(waited, line)) {
        case WorkerProcess::Read::kTimeout: {
          worker_.Stop();
          const size_t k = r.done;
          const std::string what = prepared ? r.suts[k] : "preparing the case";
          r.out[k] = VerdictOutcome(
              Verdict::kHung, what + " did not finish within " + std::to_string(waited) + " s");
          (prepared ? r.out[k].timing.sut : r.out[k].timing.oracle) = waited;
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
        // A SUT's first run includes its set-up (loading a library, starting a child, a JIT's
        // first compile): it gets the full timeout.
        if (policy_.timeout_floor_seconds > 0 && r.done < r.suts.size() &&
            warmed_.count(r.suts[r.done]) != 0)
          sut_timeout = std::min(
              timeout_, std::max(policy_.timeout_floor_seconds,
                                 kTimeoutPerOracleSecond * msg.value("oracle_seconds", timeout_)));
      } else if (msg.contains("outcome")) {
        const size_t k = r.base + msg["outcome"].get<size_t>();
        if (k >= r.suts.size()) continue;
        Result<CaseOutcome> o = OutcomeFromJson(msg["value"]);
        r.out[k] = o.ok() ? *o : VerdictOutcome(Verdict::kCrashed, o.status().message());
        r.done = k + 1;
        warmed_.insert(r.suts[k]);
        if (policy_.timeout_floor_seconds > 0 && r.done < r.suts.size() &&
            warmed_.count(r.suts[r.done]) == 0)
          sut_timeout = timeout_;
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
    if (policy_.fresh_per_case) worker_.Stop();
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
    if (policy_.spare_worker && spare_.running()) {
      worker_.Swap(spare_);
      CP_RETURN_IF_ERROR(worker_.WaitReady());
    } else {
      CP_RETURN_IF_ERROR(worker_.Start());
    }
    // The next restart's worker loads libtorch while this one works.
    if (policy_.spare_worker) (void)spare_.Spawn();
    for (Request& r : queue_) {
      if (r.done < r.suts.size()) Send(r);
      if (policy_.fresh_per_case) break;
    }
    return Status::Ok();
  }

  // The worker died while running SUT `current` of `r` (-1: before any, while preparing the case).
  void Died(Request& r, int current) {
    const std::string how = worker_.Stop(/*kill_it=*/false);
    if (current < 0) {
      // Nothing of a SUT ran: the harness itself failed on this case. Every SUT gets the verdict.
      for (size_t k = r.done; k < r.suts.size(); ++k)
        r.out[k] =
            VerdictOutcome(Verdict::kCrashed, "the worker " + how + " while preparing the case");
      r.done = r.suts.size();
      return;
    }
    r.out[current] = VerdictOutcome(Verdict::kCrashed, r.suts[current] + " " + how);
    r.done = static_cast<size_t>(current) + 1;
  }

  // SUTs that have finished a case in a worker of this process's runners: their set-up is done
  // once, and a triage's runner (a restart per hanging candidate) keeps the short timeout.
  struct WarmSuts {
    std::mutex mu;
    std::set<std::string> names;
    size_t count(const std::string& sut) {
      std::lock_guard<std::mutex> lock(mu);
      return names.count(sut);
    }
    void insert(const std::string& sut) {
      std::lock_guard<std::mutex> lock(mu);
      names.insert(sut);
    }
  };
  static inline WarmSuts warmed_;

  WorkerProcess worker_;
  WorkerProcess spare_;  // started ahead when policy_.spare_worker
  double timeout_;
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
  return options.isolate
             ? MakeIsolatedRunner(SelfExecutable(), options.timeout_seconds, options.context)
             : MakeInProcessRunner(options.context);
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
    CasesInFlight<size_t> in_flight({runner.get()});  // tagged with their group
    in_flight.Run([] { return kCasesInFlight; },
                  [&] {
                    const size_t g = next++;
                    if (g >= groups.size()) return false;
                    std::vector<std::string> suts;
                    for (size_t i : groups[g]) suts.push_back(cases[i].sut);
                    in_flight.Submit(cases[groups[g][0]], suts, g);
                    return true;
                  },
                  [&](size_t& g, std::vector<CaseOutcome>& got) {
                    for (size_t k = 0; k < got.size(); ++k)
                      outcomes[groups[g][k]] = std::move(got[k]);
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
