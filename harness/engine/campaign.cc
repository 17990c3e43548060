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
#include "core/prng.h"
#include "generators/problem_gen.h"
#include "harness/engine/case_runner.h"
#include "harness/engine/case_schedule.h"
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

struct DrawnCase {
  rc::Shrinkable<ConvProblem> problem;
  Direction direction;
  Fill fill;
  uint64_t seed;
  GraphForm graph;

  ConvCase Case() const {
    ConvCase c{problem.value(), direction, "", fill, seed};
    c.graph = graph;
    return c;
  }
};

// Case i of the campaign: a function of (seed, i) and the SUTs alone.
DrawnCase DrawCase(const CampaignOptions& o, const rc::Gen<ConvProblem>& gen,
                   const std::vector<Direction>& directions, const std::vector<std::string>& suts,
                   int64_t i) {
  const size_t nd = directions.size();
  rc::Shrinkable<ConvProblem> problem =
      gen(rc::Random(MixSeed(o.seed, static_cast<uint64_t>(i))), rc::kNominalSize);
  const GraphForm graph = CampaignGraphForm(problem.value(), suts, o.max_macs, i);
  return {std::move(problem), directions[i % nd], o.fills[(i / nd) % o.fills.size()],
          MixSeed(o.seed ^ 0x5EEDull, static_cast<uint64_t>(i)), graph};
}

ProblemSpace SpaceOf(const CampaignOptions& o) {
  ProblemSpace space;
  space.ranks = o.dims;
  space.max_macs = o.max_macs;
  // Large cases (ProblemSpace::large_factor) stay under the limit of every case: with --max-macs
  // given (it is then the limit too), there are none.
  space.large_factor = std::min<int64_t>(
      space.large_factor, o.check.limits.max_macs / std::max<int64_t>(o.max_macs, 1));
  space.channel_multiple = ChannelMultipleFor(o.suts);
  return space;
}

// The bucket of a discrepancy: its signature, and the implementation the SUT said it used, so
// that one SUT's implementations (an adapter's jit and gemm paths) are reported apart.
std::string SignatureOf(const ConvCase& c, const CaseOutcome& outcome) {
  const std::string signature = BucketSignature(c, outcome.verdict);
  return outcome.notes.implementation.empty() ? signature
                                              : signature + "@" + outcome.notes.implementation;
}

std::vector<Direction> DirectionsOf(const CampaignOptions& o) {
  return o.directions.empty() ? AllDirections() : o.directions;
}

// "45 s", "12 min", "3.5 h".
std::string Duration(double seconds) {
  char text[32];
  if (seconds < 120)
    std::snprintf(text, sizeof text, "%.0f s", seconds);
  else if (seconds < 7200)
    std::snprintf(text, sizeof text, "%.0f min", seconds / 60);
  else
    std::snprintf(text, sizeof text, "%.1f h", seconds / 3600);
  return text;
}

// What a campaign has done and how long it has left: the time budget's rest, or with --cases the
// cases left at the rate so far.
std::string ProgressLine(const CampaignOptions& o, int64_t generated, int64_t checks,
                         size_t buckets, double now, bool final) {
  std::string left;
  if (final)
    left = "done";
  else if (o.max_cases > 0)
    left = generated > 0 && now > 0
               ? "ETA " + Duration(static_cast<double>(o.max_cases - generated) /
                                   (static_cast<double>(generated) / now))
               : "ETA ?";
  else
    left = "ETA " + Duration(std::max(0.0, o.seconds - now));
  char text[256];
  std::snprintf(text, sizeof text,
                "[convparity] %lld cases, %lld checks (%.0f checks/s), %zu buckets, %s, %s",
                static_cast<long long>(generated), static_cast<long long>(checks),
                now > 0 ? static_cast<double>(checks) / now : 0.0, buckets, Duration(now).c_str(),
                left.c_str());
  return text;
}

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
  Campaign(const CampaignOptions& o, const CampaignHooks& hooks, std::vector<std::string> suts)
      : o_(o),
        hooks_(hooks),
        suts_(std::move(suts)),
        gen_(GenProblem(SpaceOf(o))),
        directions_(DirectionsOf(o)) {
    CampaignSummary::Options& so = summary_.options;
    so.seed = o.seed;
    so.shard_index = o.shard_index;
    so.shard_count = o.shard_count;
    so.jobs = o.jobs;
    so.time_budget_seconds = o.max_cases > 0 ? 0 : o.seconds;
    so.max_cases = o.max_cases;
    so.max_macs = o.max_macs;
    so.suts = suts_;
    for (Direction d : directions_) so.directions.push_back(DirectionName(d));
    for (Fill f : o.fills) so.fills.push_back(FillName(f));
    so.dims = o.dims;
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

  DrawnCase Draw(int64_t i) const { return DrawCase(o_, gen_, directions_, suts_, i); }

  // The next case index of this shard, or -1 when the budget is spent.
  int64_t NextIndex() {
    if (g_stop || enough_buckets_ || (o_.max_cases == 0 && Elapsed() >= o_.seconds)) return -1;
    const int64_t k = next_++;
    if (o_.max_cases > 0 && k >= o_.max_cases) return -1;
    return k * o_.shard_count + o_.shard_index;
  }

  WorkerPolicy Policy(bool fresh_per_case, bool spare = false) const {
    WorkerPolicy policy;
    policy.fresh_per_case = fresh_per_case;
    policy.spare_worker = spare || fresh_per_case;
    policy.timeout_floor_seconds = o_.timeout_floor;
    policy.malloc_check = o_.malloc_check;
    return policy;
  }

  std::unique_ptr<CaseRunner> Runner(bool fresh_per_case, bool spare = false) const {
    return o_.isolate ? MakeIsolatedRunner(o_.worker_executable, o_.case_timeout, o_.check,
                                           Policy(fresh_per_case, spare))
                      : std::make_unique<TakingTurns>(MakeInProcessRunner(o_.check), turn_);
  }

  bool RunsAlone(const std::string& sut) {
    std::lock_guard<std::mutex> lock(mu_);
    return o_.isolate && (o_.isolate_per_case || crashed_suts_.count(sut) != 0);
  }

  // Keeps kCasesInFlight cases submitted, so the worker never waits for this thread to draw,
  // record or report. A SUT that runs one case per process (--isolate case, or after its first
  // crash) goes to a second runner that starts a fresh worker for each case. Discrepancies go to
  // the triage thread; this worker goes on with new cases.
  void Work() {
    std::unique_ptr<CaseRunner> shared = Runner(false), alone = Runner(true);
    struct InFlight {
      int64_t index;
      DrawnCase drawn;
      ConvCase c;
      std::vector<std::string> suts, shared_suts, alone_suts;
    };
    std::deque<InFlight> in_flight;
    auto complete_oldest = [&] {
      InFlight& f = in_flight.front();
      std::vector<CaseOutcome> from_shared, from_alone, outcomes;
      if (!f.shared_suts.empty()) from_shared = shared->Next();
      if (!f.alone_suts.empty()) from_alone = alone->Next();
      for (size_t k = 0, a = 0, b = 0; k < f.suts.size(); ++k) {
        const bool is_alone = a < f.alone_suts.size() && f.alone_suts[a] == f.suts[k] &&
                              (b >= f.shared_suts.size() || f.shared_suts[b] != f.suts[k]);
        const std::vector<CaseOutcome>& from = is_alone ? from_alone : from_shared;
        size_t& at = is_alone ? a : b;
        outcomes.push_back(at < from.size() ? from[at] : CaseOutcome{});
        ++at;
      }
      Record(f.c, f.suts, outcomes);
      for (size_t k = 0; k < f.suts.size(); ++k) {
        if (outcomes[k].verdict == Verdict::kCrashed) {
          std::lock_guard<std::mutex> lock(mu_);
          crashed_suts_.insert(f.suts[k]);
        }
        if (IsDiscrepancy(outcomes[k].verdict)) {
          ConvCase differing = f.c;
          differing.sut = f.suts[k];
          Enqueue({f.index, f.drawn, differing, outcomes[k]});
        }
      }
      in_flight.pop_front();
    };
    for (;;) {
      // A case that starts a worker of its own gains nothing from waiting in a pipe: keep few.
      const size_t ahead =
          !in_flight.empty() && !in_flight.back().alone_suts.empty() ? 2 : kCasesInFlight;
      for (int64_t i; in_flight.size() < ahead && (i = NextIndex()) >= 0;) {
        const auto t0 = Clock::now();
        const DrawnCase drawn = Draw(i);
        const ConvCase c = drawn.Case();
        AddGenerateTime(std::chrono::duration<double>(Clock::now() - t0).count());
        InFlight f{i, drawn, c, {}, {}, {}};
        f.suts =  // + a random pipeline; a chain for graph SUTs only
            CampaignCaseSuts(suts_, o_.suts.empty(), o_.seed, i, c.graph);
        for (const std::string& sut : f.suts)
          (RunsAlone(sut) ? f.alone_suts : f.shared_suts).push_back(sut);
        if (!f.shared_suts.empty()) shared->Submit(c, f.shared_suts);
        if (!f.alone_suts.empty()) alone->Submit(c, f.alone_suts);
        in_flight.push_back(std::move(f));
      }
      if (in_flight.empty()) break;
      complete_oldest();
    }
    ++finished_workers_;
    queue_changed_.notify_all();
  }

  void AddGenerateTime(double seconds) {
    std::lock_guard<std::mutex> lock(mu_);
    summary_.time.generate += seconds;
  }

  void Record(const ConvCase& c, const std::vector<std::string>& suts,
              const std::vector<CaseOutcome>& outcomes) {
    std::lock_guard<std::mutex> lock(mu_);
    ++generated_;
    for (size_t k = 0; k < outcomes.size() && k < suts.size(); ++k) {
      ConvCase checked = c;
      // Random pipelines are counted together: one row each would bury the summary's table.
      // Findings keep the pipeline's own name.
      checked.sut = k + 1 < suts.size() || !o_.suts.empty() ? suts[k] : "transform:random";
      CountCase(&summary_, checked, outcomes[k], /*count_shared_time=*/k == 0);
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
    const std::string original = SignatureOf(seen.c, seen.outcome);
    std::lock_guard<std::mutex> lock(mu_);
    if (shrinks_[original]++ < kShrinksPerOriginalSignature) {
      (shrinks_[original] == 1 ? first_seen_ : repeats_).push_back(std::move(seen));
      queue_changed_.notify_all();
      return;
    }
    auto landed = landed_.find(original);
    if (landed != landed_.end())
      CountHit(&summary_, landed->second);
    else
      ++waiting_hits_[original];
  }

  // The triage thread: one discrepancy at a time, with a runner of its own, beside the workers.
  // A signature never triaged goes before repeats. Once the workers are done, what is still queued
  // gets a grace (a tenth of the budget, 2 s to --shrink-seconds) in a timed campaign; the rest is
  // counted untriaged.
  void Triage() {
    // Its worker restarts after every crashing or hanging candidate: a spare is kept loading.
    std::unique_ptr<CaseRunner> runner = Runner(false, /*spare=*/true);
    TriageOptions options;
    options.isolate = o_.isolate;
    options.worker_executable = o_.worker_executable;
    options.case_timeout = o_.case_timeout;
    options.check = o_.check;
    options.policy = Policy(false);
    options.shrink_seconds = o_.shrink_seconds;
    options.max_shrink_calls = o_.max_shrink_calls;
    double drain_deadline = -1;
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
        if (workers_done) {
          if (drain_deadline < 0)
            drain_deadline =
                Elapsed() + std::min(o_.shrink_seconds, std::max(2.0, 0.1 * o_.seconds));
          if (g_stop || (o_.max_cases == 0 && Elapsed() > drain_deadline)) {
            summary_.untriaged += static_cast<int64_t>(first_seen_.size() + repeats_.size());
            first_seen_.clear();
            repeats_.clear();
            break;
          }
        }
        std::deque<Seen>& from = first_seen_.empty() ? repeats_ : first_seen_;
        seen.emplace(std::move(from.front()));
        from.pop_front();
        ++triaging_;
        cases_at_start = generated_;
      }
      const auto t0 = Clock::now();
      Finding f = TriageDiscrepancy(seen->drawn.problem, seen->c, seen->outcome, *runner, options);
      Land(f, SignatureOf(seen->c, seen->outcome), seen->index,
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
    f.bucket = SignatureOf(f.minimized, f.outcome);
    if (f.crashes_after_others) f.bucket += ".after_others";
    landed_[original_signature] = f.bucket;
    const bool is_new = summary_.buckets.count(f.bucket) == 0;
    CountFinding(&summary_, f.bucket, f.minimized, f.outcome.verdict, ReportFileName(f), index,
                 Elapsed());
    CountShrink(&summary_, f.bucket, static_cast<int64_t>(f.shrink_steps.size()), f.shrink_calls,
                f.shrink_bound_hit, f.minimized.problem.macs(), seconds,
                generated_ - cases_at_start);
    if (auto waiting = waiting_hits_.find(original_signature); waiting != waiting_hits_.end()) {
      for (int64_t k = 0; k < waiting->second; ++k) CountHit(&summary_, f.bucket);
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
    std::fprintf(
        stderr, "%s%s%s", tty ? "\r" : "",
        ProgressLine(o_, generated, snapshot.cases, snapshot.buckets.size(), now, final).c_str(),
        tty && !final ? "   " : "\n");
  }

  const CampaignOptions& o_;
  const CampaignHooks& hooks_;
  const std::vector<std::string> suts_;
  const rc::Gen<ConvProblem> gen_;
  const std::vector<Direction> directions_;
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
  mutable std::mutex turn_;             // in-process checks, one at a time (TakingTurns)
  std::set<std::string> crashed_suts_;  // run one case per process from now on
};

}  // namespace

void RequestCampaignStop() { g_stop = true; }

ConvCase CampaignCase(const CampaignOptions& options, int64_t index) {
  return DrawCase(options, GenProblem(SpaceOf(options)), DirectionsOf(options),
                  options.suts.empty() ? OurSutNames() : options.suts, index)
      .Case();
}

Result<CampaignSummary> RunCampaign(const CampaignOptions& options, const CampaignHooks& hooks) {
  std::vector<std::string> suts = options.suts.empty() ? OurSutNames() : options.suts;
  for (const std::string& name : suts)  // fail fast on a name no worker could make
    if (Result<std::unique_ptr<ConvSut>> sut = MakeSut(name); !sut.ok()) return sut.status();
  if (options.fills.empty()) return Status::Invalid("no fill selected");
  if (options.shard_count < 1 || options.shard_index < 0 ||
      options.shard_index >= options.shard_count)
    return Status::Invalid("--shard: expected I/N with 0 <= I < N");
  CampaignOptions o = options;
  if (o.isolate && o.worker_executable.empty()) o.worker_executable = SelfExecutable();
  g_stop = false;
  Campaign campaign(o, hooks, std::move(suts));
  return campaign.Run();
}

}  // namespace convparity
