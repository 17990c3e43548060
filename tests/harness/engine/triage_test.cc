// Issue 16's done-when: campaigns against the planted bugs of each class (tests/planted) find each
// one, report 1-minimal cases, give a wrong-everywhere bug at most one bucket per direction and
// kind, report a hang within 25 s of the start shrunk below 1,000 MACs while other cases kept being
// checked, and attribute a heap overflow to the case that caused it. One test, so that the
// campaigns share this process; each campaign is a few seconds.
#include "harness/engine/triage.h"

#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>
#include <map>
#include <mutex>
#include <set>

#include "core/descriptor.h"
#include "generators/problem_shrink.h"
#include "harness/engine/campaign.h"
#include "harness/engine/case_runner.h"
#include "harness/engine/shrink_structural.h"
#include "plugin_paths.h"
#include "tests/sanitized.h"

namespace convparity {
namespace {

std::string Planted(const std::string& variant) {
  return std::string("plugin:") + CONVPARITY_PLANTED_PLUGIN + "#" + variant;
}

struct CampaignRun {
  std::vector<Finding> reported;
  std::vector<double> reported_at;                      // seconds since the start
  std::vector<std::pair<double, int64_t>> checkpoints;  // (seconds, cases)
  CampaignSummary summary;
};

CampaignRun Campaign(const std::string& variant, double seconds, bool malloc_check = false,
                     std::vector<int> dims = {1, 2, 3}) {
  CampaignOptions o;
  o.seed = 3;
  o.seconds = seconds;
  o.max_macs = 20000;
  o.isolation = Isolation::kWorker;
  o.worker_executable = CONVPARITY_EXE;
  o.quiet = true;
  o.shrink_seconds = 20;
  o.malloc_check = malloc_check;
  o.dims = dims;
  o.suts = {Planted(variant)};
  CampaignRun run;
  std::mutex mu;
  const auto start = std::chrono::steady_clock::now();
  auto now = [&] {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  };
  CampaignHooks hooks;
  hooks.on_new_bucket = [&](const Finding& f) {
    std::lock_guard<std::mutex> lock(mu);
    run.reported.push_back(f);
    run.reported_at.push_back(now());
  };
  hooks.on_checkpoint = [&](const CampaignSummary& s) {
    std::lock_guard<std::mutex> lock(mu);
    run.checkpoints.push_back({now(), s.cases});
  };
  Result<CampaignSummary> s = RunCampaign(o, hooks);
  EXPECT_TRUE(s.ok()) << s.status().message();
  std::fprintf(stderr, "\n[ triage   ] %s: %.1f s\n", variant.c_str(), now());
  if (s.ok()) run.summary = *s;
  return run;
}

// No single reduction of a reported case keeps its verdict. Checked in one worker with the
// adaptive timeout: a 1-minimal case's reductions neither crash nor hang, so it never restarts.
void ExpectOneMinimal(const Finding& f) {
  if (f.crashes_after_others || f.shrink_bound_hit) return;  // reported as seen, and says so
  static std::unique_ptr<CaseRunner> runner = [] {
    WorkerPolicy policy;
    policy.timeout_floor_seconds = 1;
    return MakeIsolatedRunner(CONVPARITY_EXE, 10, {}, policy);
  }();
  const std::vector<ConvCase> reductions = CaseReductions(f.minimized);
  for (const ConvCase& r : reductions) runner->Submit(r, {f.minimized.sut});
  for (const ConvCase& r : reductions)
    EXPECT_NE(runner->Next()[0].verdict, f.outcome.verdict)
        << CaseDescriptor(f.minimized.problem, f.minimized.direction) << " still "
        << VerdictName(f.outcome.verdict) << " as " << CaseDescriptor(r.problem, r.direction);
}

TEST(Triage, CampaignsAgainstPlantedBugsOfEachClass) {
  // Wrong everywhere: one bucket per direction and kind, the rest hits. Under AddressSanitizer 3 s
  // were once all worker start-up (5.2 s in all, no hit).
  CampaignRun everywhere = Campaign("everywhere", kSanitized ? 8 : 3);
  std::map<std::string, int> per_direction_and_kind;
  for (const Finding& f : everywhere.reported) {
    // The budget (and its grace) ended this one's shrinking: reported as it was by then, and says
    // so (verdicts_under_load_test.cc holds the budget's promise).
    if (f.shrink_cut_short) continue;
    ++per_direction_and_kind[std::string(DirectionName(f.minimized.direction)) +
                             (f.minimized.problem.transposed ? "/t" : "/")];
    EXPECT_EQ(f.minimized.problem.macs(), 1) << f.bucket;
    ExpectOneMinimal(f);
  }
  EXPECT_FALSE(everywhere.reported.empty());
  for (const auto& [key, n] : per_direction_and_kind) EXPECT_EQ(n, 1) << key;
  int64_t hits = 0;
  for (const auto& [signature, b] : everywhere.summary.buckets) hits += b.hits;
  EXPECT_GT(hits, 10);

  for (const char* variant : {"narrow", "unwritten", "crash"}) {
    CampaignRun run = Campaign(variant, 6);
    EXPECT_FALSE(run.reported.empty()) << variant;
    for (const Finding& f : run.reported) {
      EXPECT_FALSE(f.crashes_after_others) << variant;
      ExpectOneMinimal(f);
    }
  }

  // A heap overflow under the checking malloc: the case that overflowed crashes, alone too. An
  // overflow that the check missed at its own free can crash a later case of the same process
  // (which cases share one depends on the time limits, and so on the machine's load): that finding
  // must say it crashed only after others.
  CampaignRun heap = Campaign("heap-overflow", 4, /*malloc_check=*/true);
  int alone = 0;
  for (const Finding& f : heap.reported) {
    EXPECT_EQ(f.outcome.verdict, Verdict::kCrashed) << f.outcome.reason;
    if (f.crashes_after_others) continue;
    ++alone;
    const ConvProblem& p = f.minimized.problem;
    EXPECT_TRUE(p.kernel[0] == 2 && p.stride[0] == 2 && p.bias)
        << "not the overflowing case: " << ProblemDescriptor(p);
    ExpectOneMinimal(f);
  }
  EXPECT_GT(alone, 0) << "no overflowing case was shown to crash alone";

  // A bug shown only by kernels beyond 16 taps: the wider space reaches them in 1-D.
  CampaignRun large = Campaign("large-kernel", 6, false, {1});
  ASSERT_FALSE(large.reported.empty());
  for (const Finding& f : large.reported) {
    if (f.shrink_cut_short) continue;  // the budget ended its shrinking: reported as it was
    EXPECT_EQ(f.minimized.problem.kernel[0], 17) << ProblemDescriptor(f.minimized.problem);
    ExpectOneMinimal(f);
  }

  // A hang: reported within 25 s, small, while the campaign kept checking cases. Every hanging
  // candidate costs its first limit (1 s) and a confirming run (2 s of CPU time, time_limits.h),
  // and the campaign's budget bounds the triage too: 20 s.
  CampaignRun hang = Campaign("hang", 20);
  const Finding* hung = nullptr;
  double hung_at = 0;
  for (size_t k = 0; k < hang.reported.size(); ++k)
    if (hang.reported[k].outcome.verdict == Verdict::kHung && !hung)
      hung = &hang.reported[k], hung_at = hang.reported_at[k];
  ASSERT_NE(hung, nullptr);
  EXPECT_LT(hung_at, 25);
  EXPECT_LT(hung->minimized.problem.macs(), 1000) << ProblemDescriptor(hung->minimized.problem);
  ExpectOneMinimal(*hung);
  EXPECT_GT(hang.summary.buckets.at(hung->bucket).shrink.cases_beside, 0)
      << "no case was checked while the hang was shrunk";
}

// Issue 24: one bucket per cause. A bfloat16 accumulator is wrong wherever the sums are long
// enough, and its minimal cases differ in rank, kernel and groups: it gives at most one bucket per
// direction, each a loss of precision. A kernel with that accumulator and a second bug (one too
// large at stride 2) gives at least two, the second a whole wrong value.
TEST(Triage, ABfloat16AccumulatorGivesOneBucketPerDirectionAndTwoBugsGiveTwo) {
  CampaignRun bf16 = Campaign("bf16-accumulator", 10);
  ASSERT_FALSE(bf16.reported.empty());
  EXPECT_LE(bf16.summary.buckets.size(), 3u);
  int64_t hits = 0;
  for (const auto& [signature, b] : bf16.summary.buckets) {
    EXPECT_EQ(b.symptom, "precision") << signature;
    hits += b.hits;
  }
  EXPECT_GT(hits, 100) << "too few discrepancies to prove anything";
  for (const Finding& f : bf16.reported) ExpectOneMinimal(f);

  CampaignRun two = Campaign("two-bugs", 6);
  std::set<std::string> symptoms;
  for (const auto& [signature, b] : two.summary.buckets) symptoms.insert(b.symptom);
  EXPECT_GE(two.summary.buckets.size(), 2u);
  EXPECT_EQ(symptoms, (std::set<std::string>{"precision", "wrong"}));
  for (const Finding& f : two.reported) {
    if (f.outcome.judgement.symptom == Symptom::kWrong) {
      EXPECT_GE(f.minimized.problem.stride[0], 2) << f.bucket;
    }
    ExpectOneMinimal(f);
  }
}

// Large kernels: the campaign above finds the bug in 1-D (the wider space draws kernels beyond 16
// there); an explicit 2-D case shows that the triage shrinks it to its essence.
TEST(Triage, ALargeKernelBugShrinksToTheSmallestKernelThatShowsIt) {
  std::unique_ptr<CaseRunner> runner = MakeInProcessRunner();
  Result<ParsedDescriptor> d = ParseDescriptor("fwd:2d_mb2_ic3_oc2_i40x6_k20x3_s2x1_p1x1");
  ASSERT_TRUE(d.ok()) << d.status().message();
  ConvCase c{d->problem, Direction::kForward, Planted("large-kernel"), Fill::kUniform, 9};
  const CaseOutcome seen = runner->Check(c, {c.sut})[0];
  ASSERT_EQ(seen.verdict, Verdict::kFailed);
  TriageOptions o;
  o.isolation = Isolation::kNone;
  Finding f = TriageDiscrepancy(ShrinkableProblem(c.problem), c, seen, *runner, o);
  const ConvProblem& m = f.minimized.problem;
  EXPECT_TRUE(m.rank == 1 && m.kernel[0] == 17 && m.in_channels == 1 && m.out_channels == 1 &&
              m.batch == 1)
      << ProblemDescriptor(m);
  EXPECT_FALSE(f.shrink_bound_hit);
  for (const ConvCase& r : CaseReductions(f.minimized))
    EXPECT_NE(runner->Check(r, {c.sut})[0].verdict, Verdict::kFailed);
}

}  // namespace
}  // namespace convparity
