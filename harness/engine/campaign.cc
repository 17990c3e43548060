#include "harness/engine/campaign.h"

#include <rapidcheck.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <deque>
#include <memory>
#include <mutex>
#include <string>
#include <thread>

#include "core/descriptor.h"
#include "core/prng.h"
#include "generators/problem_gen.h"
#include "harness/engine/case_runner.h"
#include "harness/engine/case_schedule.h"
#include "harness/engine/shrink_search.h"
#include "harness/engine/summary_counts.h"
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
    for (int j = 0; j < std::max(o_.jobs, 1); ++j) workers.emplace_back([this] { Work(); });
    // The main thread reports progress and checkpoints until the workers are done.
    while (finished_workers_ < static_cast<int>(workers.size())) {
      std::this_thread::sleep_for(std::chrono::milliseconds(200));
      Progress(false);
    }
    for (std::thread& t : workers) t.join();
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

  // Keeps kCasesInFlight cases submitted, so the worker never waits for this thread to draw,
  // record or report. A discrepancy is shrunk once the cases in flight are in (shrinking checks
  // one candidate at a time).
  void Work() {
    std::unique_ptr<CaseRunner> runner =
        o_.isolate ? MakeIsolatedRunner(o_.worker_executable, o_.case_timeout, o_.check)
                   : MakeInProcessRunner(o_.check);
    struct InFlight {
      int64_t index;
      DrawnCase drawn;
      ConvCase c;
      std::vector<std::string> suts;
    };
    std::deque<InFlight> in_flight;
    struct Found {
      InFlight at;
      std::string sut;
      CaseOutcome outcome;
    };
    std::vector<Found> found;
    auto complete_oldest = [&] {
      const std::vector<CaseOutcome> outcomes = runner->Next();
      const std::vector<std::string>& suts = in_flight.front().suts;
      Record(in_flight.front().c, suts, outcomes);
      for (size_t k = 0; k < suts.size() && k < outcomes.size(); ++k)
        if (IsDiscrepancy(outcomes[k].verdict))
          found.push_back({in_flight.front(), suts[k], outcomes[k]});
      in_flight.pop_front();
    };
    for (;;) {
      for (int64_t i; in_flight.size() < kCasesInFlight && (i = NextIndex()) >= 0;) {
        const auto t0 = Clock::now();
        const DrawnCase drawn = Draw(i);
        const ConvCase c = drawn.Case();
        AddGenerateTime(std::chrono::duration<double>(Clock::now() - t0).count());
        std::vector<std::string> suts =  // + a random pipeline; a chain for graph SUTs only
            CampaignCaseSuts(suts_, o_.suts.empty(), o_.seed, i, c.graph);
        runner->Submit(c, suts);
        in_flight.push_back({i, drawn, c, std::move(suts)});
      }
      if (in_flight.empty()) break;
      complete_oldest();
      if (found.empty()) continue;
      while (!in_flight.empty()) complete_oldest();
      for (const Found& f : found) {
        ConvCase differing = f.at.c;
        differing.sut = f.sut;
        Discrepancy(*runner, f.at.drawn, differing, f.outcome, f.at.index);
      }
      found.clear();
    }
    ++finished_workers_;
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

  // Shrinks a discrepancy (keeping its verdict: a crash shrinks to a smaller crash), buckets it and
  // reports a new bucket at once.
  void Discrepancy(CaseRunner& runner, const DrawnCase& drawn, const ConvCase& original,
                   const CaseOutcome& outcome, int64_t index) {
    const std::string original_signature = SignatureOf(original, outcome);
    bool shrink;
    {
      std::lock_guard<std::mutex> lock(mu_);
      shrink = shrinks_[original_signature]++ < kShrinksPerOriginalSignature;
    }
    Finding f{original, outcome, original, outcome, {}, ""};
    if (shrink) {
      const auto t0 = Clock::now();
      std::function<bool(const ConvProblem&)> fails = [&](const ConvProblem& p) {
        ConvCase candidate = original;
        candidate.problem = p;
        // The same verdict from the same implementation: shrinking must not wander off to
        // another of the SUT's code paths.
        const CaseOutcome o = runner.Check(candidate, {original.sut})[0];
        return o.verdict == outcome.verdict &&
               o.notes.implementation == outcome.notes.implementation;
      };
      SearchOptions options;
      options.max_seconds = o_.shrink_seconds;
      SearchResult<ConvProblem> result;
      ShrinkInto(drawn.problem, fails, options, result);
      f.minimized.problem = *result.shrunk;
      for (const ConvProblem& p : result.steps)
        f.shrink_steps.push_back(CaseDescriptor(p, original.direction));
      f.outcome = runner.Check(f.minimized, {original.sut})[0];
      if (!IsDiscrepancy(f.outcome.verdict)) {
        // A SUT that fails only sometimes (a race, a timing-dependent hang): the shrunk case did
        // not fail again, so the report shows the case that was seen failing.
        f.minimized = original;
        f.outcome = outcome;
        f.outcome.reason += " (not reproduced by its shrunk case " +
                            CaseDescriptor(*result.shrunk, original.direction) + ": flaky)";
        f.shrink_steps.clear();
      }
      std::lock_guard<std::mutex> lock(mu_);
      summary_.time.shrink += std::chrono::duration<double>(Clock::now() - t0).count();
    }
    std::lock_guard<std::mutex> lock(mu_);
    // Unshrunk repeats go where the shrunk ones of the same original signature went.
    f.bucket = shrink ? SignatureOf(f.minimized, f.outcome) : landed_[original_signature];
    if (f.bucket.empty()) f.bucket = original_signature;
    if (shrink) landed_[original_signature] = f.bucket;
    const bool is_new = summary_.buckets.count(f.bucket) == 0;
    CountFinding(&summary_, f.bucket, f.minimized, f.outcome.verdict, ReportFileName(f), index,
                 Elapsed());
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
  std::map<std::string, int> shrinks_;
  std::map<std::string, std::string> landed_;
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
