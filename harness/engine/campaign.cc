#include "harness/engine/campaign.h"

#include <rapidcheck.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <deque>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <thread>

#include "core/descriptor.h"
#include "generators/problem_gen.h"
#include "harness/engine/campaign_cases.h"
#include "harness/engine/campaign_progress.h"
#include "harness/engine/case_runner.h"
#include "harness/engine/case_schedule.h"
#include "harness/engine/cases_in_flight.h"
#include "harness/engine/summary_counts.h"
#include "harness/engine/triage.h"
#include "harness/suts/sut_registry.h"
#include "reports/report_json.h"

namespace convparity {
namespace {

std::atomic<bool> g_stop{false};

// Shrinking stops being worth it once a signature has been shrunk this often: a SUT that fails
// everywhere would otherwise spend the whole campaign shrinking.
constexpr int kShrinksPerOriginalSignature = 3;
constexpr double kCheckpointSeconds = 5;
constexpr double kTerminalLineSeconds = 1;

using Clock = std::chrono::steady_clock;

// In-process checks (no isolation) from the workers and the triage thread take turns: the SUTs
// and the oracle in this process are not all safe to run from two threads at once (seen: our own
// kernel reported as a finding). The in-process runner does its work in Next().
class TakingTurns : public CaseRunner {
 public:
  TakingTurns(std::unique_ptr<CaseRunner> runner, std::mutex& turn)
      : runner_(std::move(runner)), turn_(turn) {}
  void Submit(const ConvCase& c, const std::vector<std::string>& suts) override {
    runner_->Submit(c, suts);
  }
  std::vector<CaseOutcome> Next() override {
    std::lock_guard<std::mutex> lock(turn_);
    return runner_->Next();
  }
  size_t pending() const override { return runner_->pending(); }

 private:
  std::unique_ptr<CaseRunner> runner_;
  std::mutex& turn_;
};

class Campaign {
 public:
  Campaign(const CampaignOptions& o, const CampaignHooks& hooks, CampaignSpace space)
      : o_(o), hooks_(hooks), space_(std::move(space)), suts_(space_.suts) {
    CampaignSummary::Options& so = summary_.options;
    static_cast<RunSettings&>(so) = o;
    so.time_budget_seconds = o.max_cases > 0 ? 0 : o.seconds;
    so.suts = suts_;
    for (Direction d : o.directions.empty() ? AllDirections() : o.directions)
      so.directions.push_back(DirectionName(d));
    for (Fill f : o.fills) so.fills.push_back(FillName(f));
    summary_.workers = std::max(o.jobs, 1);
  }

  CampaignSummary Run() {
    start_ = Clock::now();
    summary_.start_time = std::chrono::system_clock::now();
    std::vector<std::thread> workers;
    workers_ = static_cast<size_t>(std::max(o_.jobs, 1));
    for (size_t j = 0; j < workers_; ++j) workers.emplace_back([this] { Work(); });
    std::thread triage([this] { Triage(); });
    // The main thread reports progress and checkpoints until the workers and the triage are done.
    while (!triage_done_) {
      std::this_thread::sleep_for(std::chrono::milliseconds(200));
      Progress(false);
    }
    for (std::thread& t : workers) t.join();
    triage.join();
    std::lock_guard<std::mutex> lock(mu_);
    Progress(true);
    return summary_;
  }

 private:
  double Elapsed() const { return std::chrono::duration<double>(Clock::now() - start_).count(); }

  DrawnCase Draw(int64_t i) const { return DrawCase(o_, space_, i); }

  // The next case index of this shard, or -1 when the budget is spent.
  int64_t NextIndex() {
    if (g_stop || enough_buckets_ || (o_.max_cases == 0 && Elapsed() >= o_.seconds)) return -1;
    const int64_t k = next_++;
    if (o_.max_cases > 0 && k >= o_.max_cases) return -1;
    return k * o_.shard_count + o_.shard_index;
  }

  std::unique_ptr<CaseRunner> Runner(bool spare = false) const {
    if (o_.isolation == Isolation::kNone)
      return std::make_unique<TakingTurns>(MakeInProcessRunner(o_.check), turn_);
    WorkerPolicy policy = WorkerPolicyFor(o_);
    policy.spare_worker = spare;
    return MakeIsolatedRunner(o_.worker_executable, o_.case_timeout, o_.check, policy);
  }

  // Keeps kCasesInFlight cases submitted (cases_in_flight.h). A SUT whose run ended a worker runs
  // in a child forked per case from then on (the runner sees to it). Discrepancies go to the triage
  // thread; this worker goes on with new cases.
  void Work() {
    std::unique_ptr<CaseRunner> runner = Runner();
    struct Drawn {
      int64_t index;
      DrawnCase drawn;
      ConvCase c;
      std::vector<std::string> suts;
    };
    CasesInFlight<Drawn> in_flight(*runner);
    in_flight.Run(
        kCasesInFlight,
        [&] {
          const int64_t i = NextIndex();
          if (i < 0) return false;
          const auto t0 = Clock::now();
          const DrawnCase drawn = Draw(i);
          const ConvCase c = drawn.Case();
          AddGenerateTime(std::chrono::duration<double>(Clock::now() - t0).count());
          Drawn d{i, drawn, c, {}};
          d.suts =  // + a random pipeline; a chain for graph SUTs only
              CampaignCaseSuts(suts_, o_.check.suts, o_.suts.empty(), o_.seed, i, *c.graph);
          const std::vector<std::string> suts = d.suts;  // d moves into the list
          in_flight.Submit(c, suts, std::move(d));
          return true;
        },
        [&](Drawn& d, std::vector<CaseOutcome>& outcomes) {
          Record(d.c, d.drawn.outside, d.suts, outcomes);
          for (size_t k = 0; k < d.suts.size(); ++k) {
            if (!IsDiscrepancy(outcomes[k].verdict)) continue;
            ConvCase differing = d.c;
            differing.sut = d.suts[k];
            Enqueue({d.index, d.drawn, differing, outcomes[k]});
          }
        });
    ++finished_workers_;
    queue_changed_.notify_all();
  }

  void AddGenerateTime(double seconds) {
    std::lock_guard<std::mutex> lock(mu_);
    summary_.time.generate += seconds;
  }

  void Record(const ConvCase& c, bool outside, const std::vector<std::string>& suts,
              const std::vector<CaseOutcome>& outcomes) {
    std::lock_guard<std::mutex> lock(mu_);
    ++generated_;
    for (size_t k = 0; k < outcomes.size() && k < suts.size(); ++k) {
      if (outcomes[k].abandoned) continue;
      ConvCase checked = c;
      // Random pipelines are counted together: one row each would bury the summary's table.
      // Findings keep the pipeline's own name.
      checked.sut = k + 1 < suts.size() || !o_.suts.empty() ? suts[k] : "transform:random";
      CountCase(&summary_, checked, outcomes[k], /*count_shared_time=*/k == 0);
      if (outside) ++summary_.outside;
    }
  }

  struct Seen {
    int64_t index;
    DrawnCase drawn;
    ConvCase c;
    CaseOutcome outcome;
  };

  // A discrepancy is triaged when its original signature has been triaged fewer than
  // kShrinksPerOriginalSignature times; the others count as hits of the bucket that signature's
  // triage landed in (at once, or when that triage ends).
  void Enqueue(Seen seen) {
    const std::string original = DiscrepancySignature(seen.c, seen.outcome);
    std::lock_guard<std::mutex> lock(mu_);
    if (shrinks_[original]++ < kShrinksPerOriginalSignature) {
      (shrinks_[original] == 1 ? first_seen_ : repeats_).push_back(std::move(seen));
      queue_changed_.notify_all();
      return;
    }
    auto landed = landed_.find(original);
    if (landed != landed_.end())
      CountHit(&summary_, landed->second, seen.index, Elapsed());
    else
      ++waiting_hits_[original];
  }

  // The triage thread: one discrepancy at a time, with a runner of its own, beside the workers.
  // A signature never triaged goes before repeats. In a timed campaign the triage ends at the
  // campaign's deadline (its budget and a grace, RunCampaign), a finding being shrunk then is
  // reported with what it had, and what is still queued is counted untriaged.
  void Triage() {
    // Its worker restarts after every hanging candidate: a spare is kept loading.
    std::unique_ptr<CaseRunner> runner = Runner(/*spare=*/true);
    int64_t cases_at_start = 0;
    for (;;) {
      std::optional<Seen> seen;
      {
        std::unique_lock<std::mutex> lock(mu_);
        queue_changed_.wait_for(lock, std::chrono::milliseconds(200), [&] {
          return !first_seen_.empty() || !repeats_.empty() ||
                 finished_workers_ == static_cast<int>(workers_);
        });
        const bool workers_done = finished_workers_ == static_cast<int>(workers_);
        if (first_seen_.empty() && repeats_.empty()) {
          if (workers_done) break;
          continue;
        }
        const bool past_deadline = o_.deadline && Clock::now() >= *o_.deadline;
        if ((workers_done && g_stop) || past_deadline) {
          summary_.untriaged += static_cast<int64_t>(first_seen_.size() + repeats_.size());
          first_seen_.clear();
          repeats_.clear();
          break;
        }
        std::deque<Seen>& from = first_seen_.empty() ? repeats_ : first_seen_;
        seen.emplace(std::move(from.front()));
        from.pop_front();
        ++triaging_;
        cases_at_start = generated_;
      }
      const auto t0 = Clock::now();
      Finding f = TriageDiscrepancy(seen->drawn.problem, seen->c, seen->outcome, *runner, o_);
      Land(f, DiscrepancySignature(seen->c, seen->outcome), seen->index,
           std::chrono::duration<double>(Clock::now() - t0).count(), cases_at_start);
    }
    // Hits still waiting for a signature whose triage never ended count as untriaged too.
    std::lock_guard<std::mutex> lock(mu_);
    for (const auto& [signature, n] : waiting_hits_) summary_.untriaged += n;
    waiting_hits_.clear();
    triage_done_ = true;
  }

  // Buckets a triaged finding by the signature of its minimal case and reports a new bucket at
  // once; a finding whose bucket exists is a hit of it.
  void Land(Finding& f, const std::string& original_signature, int64_t index, double seconds,
            int64_t cases_at_start) {
    std::lock_guard<std::mutex> lock(mu_);
    --triaging_;
    summary_.time.shrink += seconds;
    f.bucket = FindingBucket(f);
    landed_[original_signature] = f.bucket;
    const bool is_new = summary_.buckets.count(f.bucket) == 0;
    CountFinding(&summary_, f.bucket, f.minimized, f.outcome.verdict, f.outcome.judgement.symptom,
                 ReportFileName(f), index, Elapsed());
    CountShrink(&summary_, f.bucket, static_cast<int64_t>(f.shrink_steps.size()), f.shrink_calls,
                f.shrink_bound_hit, f.shrink_cut_short, f.minimized.problem.macs(), seconds,
                generated_ - cases_at_start);
    if (auto waiting = waiting_hits_.find(original_signature); waiting != waiting_hits_.end()) {
      for (int64_t k = 0; k < waiting->second; ++k) CountHit(&summary_, f.bucket, index, Elapsed());
      waiting_hits_.erase(waiting);
    }
    if (o_.stop_after_buckets > 0 &&
        static_cast<int64_t>(summary_.buckets.size()) >= o_.stop_after_buckets)
      enough_buckets_ = true;
    if (is_new && hooks_.on_new_bucket) {
      const auto t0 = Clock::now();
      hooks_.on_new_bucket(f);
      summary_.time.io += std::chrono::duration<double>(Clock::now() - t0).count();
    }
  }

  // Writes a checkpoint every kCheckpointSeconds and shows a progress line: on a terminal every
  // kTerminalLineSeconds (over the last one), elsewhere one per checkpoint. Caller holds no lock
  // except when `final`.
  void Progress(bool final) {
    const double now = Elapsed();
    const bool tty = isatty(STDERR_FILENO);
    const bool checkpoint = final || now >= next_checkpoint_;
    const bool line = !o_.quiet && (final || (tty ? now >= next_line_ : checkpoint));
    if (!checkpoint && !line) return;
    if (checkpoint) next_checkpoint_ = now + kCheckpointSeconds;
    if (line) next_line_ = now + kTerminalLineSeconds;
    std::unique_lock<std::mutex> lock(mu_, std::defer_lock);
    if (!final) lock.lock();
    summary_.elapsed_seconds = now;
    summary_.end_time = std::chrono::system_clock::now();
    const CampaignSummary snapshot = summary_;
    const int64_t generated = generated_;
    if (lock.owns_lock()) lock.unlock();
    if (checkpoint && hooks_.on_checkpoint) hooks_.on_checkpoint(snapshot);
    if (!line) return;
    std::fprintf(stderr, "%s%s%s", tty ? "\r" : "",
                 ProgressLine(o_, generated, snapshot, now, final).c_str(),
                 tty && !final ? "   " : "\n");
  }

  const CampaignOptions& o_;
  const CampaignHooks& hooks_;
  const CampaignSpace space_;
  const std::vector<std::string>& suts_;
  Clock::time_point start_;
  std::atomic<int64_t> next_{0};
  std::atomic<int> finished_workers_{0};
  std::atomic<bool> enough_buckets_{false};
  double next_checkpoint_ = 0;  // the first checkpoint at once: a summary exists from the start
  double next_line_ = 0;
  std::mutex mu_;
  CampaignSummary summary_;
  int64_t generated_ = 0;
  std::map<std::string, int> shrinks_;           // original signature → discrepancies queued
  std::map<std::string, std::string> landed_;    // original signature → its triage's bucket
  std::map<std::string, int64_t> waiting_hits_;  // hits of a signature still being triaged
  std::deque<Seen> first_seen_, repeats_;        // the triage's queue, first sightings first
  int triaging_ = 0;
  size_t workers_ = 1;
  std::atomic<bool> triage_done_{false};
  std::condition_variable queue_changed_;
  mutable std::mutex turn_;  // in-process checks, one at a time (TakingTurns)
};

}  // namespace

void RequestCampaignStop() { g_stop = true; }
bool CampaignStopRequested() { return g_stop; }

Result<CampaignSummary> RunCampaign(const CampaignOptions& options, const CampaignHooks& hooks) {
  Result<CampaignSpace> space =
      MakeCampaignSpace(options, options.suts.empty() ? OurSutNames() : options.suts);
  if (!space.ok()) return space.status();
  if (options.fills.empty()) return Status::Invalid("no fill selected");
  if (options.shard_count < 1 || options.shard_index < 0 ||
      options.shard_index >= options.shard_count)
    return Status::Invalid("--shard: expected I/N with 0 <= I < N");
  CampaignOptions o = options;
  if (o.isolation != Isolation::kNone && o.worker_executable.empty())
    o.worker_executable = SelfExecutable();
  // `--time S` holds, triage included: the workers draw until S, and what is in flight or being
  // shrunk then gets a grace (a tenth of the budget, 2 s to --shrink-seconds), after which nothing
  // is waited for.
  if (o.max_cases == 0)
    o.deadline =
        Clock::now() + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(
                           o.seconds + std::min(o.shrink_seconds, std::max(2.0, 0.1 * o.seconds))));
  g_stop = false;
  Campaign campaign(o, hooks, std::move(space).value());
  return campaign.Run();
}

}  // namespace convparity
