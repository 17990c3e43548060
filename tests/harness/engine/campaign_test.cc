// Campaigns and isolation: a crashing or hanging SUT becomes a verdict and the run goes on; a known
// bug is found, shrunk, bucketed once and reported at once; the case space is deterministic.
#include "harness/engine/campaign.h"

#include <gtest/gtest.h>

#include <chrono>
#include <set>
#include <thread>

#include "core/descriptor.h"
#include "harness/engine/case_runner.h"
#include "plugin_paths.h"

namespace convparity {
namespace {

ConvCase CaseOf(const std::string& descriptor) {
  Result<ParsedDescriptor> parsed = ParseDescriptor(descriptor);
  EXPECT_TRUE(parsed.ok()) << parsed.status().message();
  return ConvCase{parsed->problem, parsed->direction.value_or(Direction::kForward), "direct",
                  Fill::kExact, 7};
}

const std::string kCrashing = std::string("plugin:") + CONVPARITY_CRASHING_PLUGIN;

TEST(IsolatedRunner, ACrashIsAVerdictAndTheNextSutsStillRun) {
  std::unique_ptr<CaseRunner> runner = MakeIsolatedRunner(CONVPARITY_EXE, 10);
  // groups > 1: the crashing plugin stores through NULL.
  std::vector<CaseOutcome> out =
      runner->Check(CaseOf("fwd:2d_g2_ic2_oc2_i3x3_k1x1"), {"direct", kCrashing, "direct-reverse"});
  ASSERT_EQ(out.size(), 3u);
  EXPECT_EQ(out[0].verdict, Verdict::kPassed) << out[0].reason;
  EXPECT_EQ(out[1].verdict, Verdict::kCrashed);
  EXPECT_NE(out[1].reason.find("SIGSEGV"), std::string::npos) << out[1].reason;
  EXPECT_EQ(out[2].verdict, Verdict::kPassed) << out[2].reason;
  // The restarted worker goes on with the next case.
  EXPECT_EQ(runner->Check(CaseOf("fwd:1d_ic1_oc1_i4_k2"), {kCrashing})[0].verdict,
            Verdict::kPassed);
}

TEST(IsolatedRunner, AHangIsAVerdictAfterTheTimeout) {
  std::unique_ptr<CaseRunner> runner = MakeIsolatedRunner(CONVPARITY_EXE, 1.0);
  // stride 3: the crashing plugin spins forever.
  std::vector<CaseOutcome> out =
      runner->Check(CaseOf("fwd:1d_ic1_oc1_i4_k1_s3"), {kCrashing, "direct"});
  EXPECT_EQ(out[0].verdict, Verdict::kHung) << out[0].reason;
  EXPECT_EQ(out[1].verdict, Verdict::kPassed) << out[1].reason;
}

TEST(IsolatedRunner, AgreesWithTheInProcessRunner) {
  std::unique_ptr<CaseRunner> isolated = MakeIsolatedRunner(CONVPARITY_EXE, 10);
  std::unique_ptr<CaseRunner> local = MakeInProcessRunner();
  for (const char* d :
       {"fwd:t2d_g2_ic4_oc6_i5x5_k3x3_s2x2_p1x1_op1x0_nhwc", "bwd_data:1d_ic3_oc2_i9_k3_d2"}) {
    ConvCase c = CaseOf(d);
    c.fill = Fill::kWide;
    const std::vector<std::string> suts{"direct", "known-bug:tvm-7912"};
    std::vector<CaseOutcome> a = isolated->Check(c, suts), b = local->Check(c, suts);
    for (size_t k = 0; k < suts.size(); ++k) {
      EXPECT_EQ(a[k].verdict, b[k].verdict) << d << " " << suts[k];
      EXPECT_EQ(a[k].judgement.mismatches, b[k].judgement.mismatches);
      EXPECT_EQ(a[k].judgement.max_abs_error, b[k].judgement.max_abs_error);
    }
  }
}

// Cases submitted ahead sit in the worker's pipe; a crash or a hang in the middle of them kills
// that worker, and the cases behind it must still come back, in order, from the next one.
TEST(IsolatedRunner, CasesInFlightSurviveACrashAndAHangBeforeThem) {
  std::unique_ptr<CaseRunner> isolated = MakeIsolatedRunner(CONVPARITY_EXE, 1.0);
  std::unique_ptr<CaseRunner> local = MakeInProcessRunner();
  const std::vector<std::string> descriptors{
      "fwd:1d_ic1_oc1_i4_k2",         "fwd:2d_g2_ic2_oc2_i3x3_k1x1",  // crashes (groups > 1)
      "bwd_data:1d_ic3_oc2_i9_k3_d2", "fwd:1d_ic1_oc1_i4_k1_s3",      // hangs (stride 3)
      "fwd:t1d_ic2_oc2_i5_k3_s2_op1", "bwd_weight:2d_ic2_oc3_i4x4_k2x2"};
  const std::vector<std::string> suts{"direct", kCrashing, "known-bug:tvm-7912"};
  for (const std::string& d : descriptors) isolated->Submit(CaseOf(d), suts);
  EXPECT_EQ(isolated->pending(), descriptors.size());
  for (const std::string& d : descriptors) {
    const std::vector<CaseOutcome> got = isolated->Next();
    const std::vector<CaseOutcome> want = local->Check(CaseOf(d), {"direct", "known-bug:tvm-7912"});
    ASSERT_EQ(got.size(), 3u);
    EXPECT_EQ(got[0].verdict, want[0].verdict) << d;
    EXPECT_EQ(got[2].verdict, want[1].verdict) << d;
    EXPECT_EQ(got[2].judgement.mismatches, want[1].judgement.mismatches) << d;
    const Verdict plugin = d == descriptors[1]   ? Verdict::kCrashed
                           : d == descriptors[3] ? Verdict::kHung
                                                 : Verdict::kPassed;
    EXPECT_EQ(got[1].verdict, plugin) << d << ": " << got[1].reason;
  }
  EXPECT_EQ(isolated->pending(), 0u);
}

// The worker's time split (CaseTiming) covers its whole time: the checks' phases, the protocol (its
// start included) and the waits for the next case, here made long on purpose, add up to the time
// the parent spent from starting it to the last answer.
TEST(IsolatedRunner, TimingAccountsForTheWorkersWholeTime) {
  const auto start = std::chrono::steady_clock::now();
  std::unique_ptr<CaseRunner> runner = MakeIsolatedRunner(CONVPARITY_EXE, 10);
  double accounted = 0, idle = 0, protocol = 0;
  bool first = true;
  for (const char* d : {"fwd:2d_ic4_oc4_i9x9_k3x3", "bwd_data:1d_ic3_oc2_i9_k3_d2",
                        "bwd_weight:2d_ic2_oc3_i4x4_k2x2", "fwd:t2d_g2_ic4_oc6_i5x5_k3x3_s2x2"}) {
    if (!first) std::this_thread::sleep_for(std::chrono::milliseconds(100));
    first = false;
    const std::vector<CaseOutcome> out = runner->Check(CaseOf(d), {"direct", "direct-pairwise"});
    for (size_t k = 0; k < out.size(); ++k) {
      const CaseTiming& t = out[k].timing;
      accounted += t.sut + t.compare + (k == 0 ? t.fill + t.oracle + t.protocol + t.idle : 0);
      idle += k == 0 ? t.idle : 0;
      protocol += k == 0 ? t.protocol : 0;
    }
  }
  const double wall =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  EXPECT_GT(idle, 0.29);      // the three sleeps between the cases
  EXPECT_GT(protocol, 0.05);  // at least the worker's start
  EXPECT_NEAR(accounted, wall, 0.05 * wall + 0.02) << "idle " << idle << ", protocol " << protocol;
}

CampaignOptions SmallCampaign() {
  CampaignOptions o;
  o.seed = 11;
  o.max_cases = 200;
  o.max_macs = 20000;
  o.isolation = Isolation::kNone;
  o.quiet = true;
  return o;
}

TEST(Campaign, FindsShrinksAndReportsAKnownBugOncePerBucket) {
  CampaignOptions o = SmallCampaign();
  o.suts = {"direct", "known-bug:tvm-3264"};
  o.directions = {Direction::kForward};
  std::vector<Finding> reported;
  CampaignHooks hooks;
  hooks.on_new_bucket = [&](const Finding& f) { reported.push_back(f); };
  Result<CampaignSummary> s = RunCampaign(o, hooks);
  ASSERT_TRUE(s.ok()) << s.status().message();
  EXPECT_EQ(s->cases, 400);
  ASSERT_FALSE(reported.empty());
  EXPECT_EQ(reported.size(), s->buckets.size());
  std::set<std::string> buckets;
  for (const Finding& f : reported) {
    EXPECT_EQ(f.minimized.sut, "known-bug:tvm-3264");
    EXPECT_TRUE(buckets.insert(f.bucket).second) << "bucket reported twice: " << f.bucket;
    EXPECT_TRUE(IsDiscrepancy(f.outcome.verdict));
    EXPECT_LE(f.minimized.problem.macs(), 64) << ProblemDescriptor(f.minimized.problem);
    EXPECT_LE(f.minimized.problem.macs(), f.original.problem.macs());
    EXPECT_TRUE(f.minimized.problem.depthwise() && f.minimized.problem.depth_multiplier() > 1);
  }
  // Our own kernel never shows up in a bucket.
  for (const auto& [signature, bucket] : s->buckets) EXPECT_EQ(bucket.sut, "known-bug:tvm-3264");
}

TEST(Campaign, ACrashingSutDoesNotEndTheCampaign) {
  CampaignOptions o = SmallCampaign();
  o.max_cases = 12;
  o.isolation = Isolation::kWorker;
  o.worker_executable = CONVPARITY_EXE;
  o.case_timeout = 0.5;
  o.shrink_seconds = 1;  // every crash restarts a worker (~0.35 s): keep shrinking short here
  o.suts = {kCrashing};
  o.directions = {Direction::kForward};
  o.fills = {Fill::kExact};
  Result<CampaignSummary> s = RunCampaign(o, {});
  ASSERT_TRUE(s.ok()) << s.status().message();
  EXPECT_EQ(s->cases, 12);  // every case got a verdict
  bool crashed = false;
  std::string buckets;
  for (const auto& [signature, bucket] : s->buckets) {
    crashed |= bucket.verdict == "crashed";
    buckets += " " + signature;
  }
  EXPECT_TRUE(crashed) << "buckets:" << buckets;
}

TEST(Campaign, ABucketNamesTheImplementationTheSutSaidItUsed) {
  CampaignOptions o = SmallCampaign();
  o.max_cases = 6;
  o.shrink_seconds = 2;
  o.suts = {std::string("plugin:") + CONVPARITY_INEXACT_PLUGIN + "#beyond"};  // fails every case
  o.directions = {Direction::kForward};
  std::vector<Finding> reported;
  CampaignHooks hooks;
  hooks.on_new_bucket = [&](const Finding& f) { reported.push_back(f); };
  Result<CampaignSummary> s = RunCampaign(o, hooks);
  ASSERT_TRUE(s.ok()) << s.status().message();
  ASSERT_FALSE(reported.empty());
  for (const Finding& f : reported) {
    EXPECT_EQ(f.outcome.notes, (RunNotes{"noise-beyond", true}));
    const std::string suffix = "@noise-beyond";
    ASSERT_GE(f.bucket.size(), suffix.size());
    EXPECT_EQ(f.bucket.substr(f.bucket.size() - suffix.size()), suffix) << f.bucket;
  }
}

TEST(Campaign, CaseIDependsOnlyOnTheSeedAndI) {
  CampaignOptions a = SmallCampaign(), b = SmallCampaign();
  b.jobs = 2;
  b.shard_index = 1;
  b.shard_count = 3;
  for (int64_t i : {0, 1, 17, 1000}) EXPECT_TRUE(*CampaignCase(a, i) == *CampaignCase(b, i));
  std::set<std::string> distinct;
  for (int64_t i = 0; i < 50; ++i)
    distinct.insert(CaseDescriptor(CampaignCase(a, i)->problem, Direction::kForward));
  EXPECT_GT(distinct.size(), 45u);
  b.seed = 12;
  EXPECT_FALSE(*CampaignCase(a, 3) == *CampaignCase(b, 3));
}

}  // namespace
}  // namespace convparity
