// Issue 24's verdicts under load: a slow but correct SUT on a busy machine is slow, never hung; a
// real hang still is; a SUT whose crash ended a worker goes on in children forked per case; and a
// timed campaign keeps its budget, triage included. The SUTs are the planted bugs' plugin
// (tests/planted/planted_bugs.c): its correct naive loop, and its `slow`, `hang` and `crash`
// variants.
#include <gtest/gtest.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>

#include <chrono>
#include <string>
#include <vector>

#include "core/descriptor.h"
#include "harness/engine/campaign.h"
#include "harness/engine/case_runner.h"
#include "plugin_paths.h"

extern char** environ;

namespace convparity {
namespace {

std::string Planted(const std::string& variant) {
  return std::string("plugin:") + CONVPARITY_PLANTED_PLUGIN +
         (variant.empty() ? "" : "#" + variant);
}

ConvCase CaseOf(const std::string& descriptor) {
  Result<ParsedDescriptor> parsed = ParseDescriptor(descriptor);
  EXPECT_TRUE(parsed.ok()) << descriptor;
  ConvCase c;
  c.problem = parsed->problem;
  c.direction = parsed->direction.value_or(Direction::kForward);
  c.seed = 7;
  return c;
}

// Busy processes beside the test, one per core of this project's machines (two): with the test's
// own workers, the machine is oversubscribed. Stopped by the process ids recorded here.
class BusyMachine {
 public:
  BusyMachine() {
    for (int k = 0; k < 2; ++k) {
      pid_t pid = -1;
      const char* argv[] = {"/bin/sh", "-c", "while :; do :; done", nullptr};
      if (posix_spawn(&pid, "/bin/sh", nullptr, nullptr, const_cast<char* const*>(argv), environ) ==
          0)
        pids_.push_back(pid);
    }
  }
  ~BusyMachine() {
    for (pid_t pid : pids_) {
      kill(pid, SIGKILL);
      waitpid(pid, nullptr, 0);
    }
  }

 private:
  std::vector<pid_t> pids_;
};

std::unique_ptr<CaseRunner> Runner(bool fork_per_case = false) {
  WorkerPolicy policy;
  policy.timeout_floor_seconds = 1;
  policy.fork_per_case = fork_per_case;
  return MakeIsolatedRunner(CONVPARITY_EXE, 20, {}, policy);
}

double SecondsSince(std::chrono::steady_clock::time_point t) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count();
}

TEST(VerdictsUnderLoad, ASlowButCorrectRunIsSlowNotHungAndAHangIsStillHung) {
  BusyMachine busy;
  std::unique_ptr<CaseRunner> runner = Runner();
  // A small case first: the SUT's set-up is done, so the large one gets the adaptive limit (the
  // floor of 1 s: its oracle takes milliseconds) and runs out of it with its 1.5 s of CPU time.
  const std::string slow = Planted("slow");
  EXPECT_EQ(runner->Check(CaseOf("2d_ic2_oc2_i5_k3"), {slow})[0].verdict, Verdict::kPassed);
  const ConvCase large = CaseOf("2d_ic32_oc32_i12_k3_p1");  // 1.33 million multiply-adds
  ASSERT_GE(large.problem.macs(), 1000000);
  const CaseOutcome got = runner->Check(large, {slow})[0];
  EXPECT_EQ(got.verdict, Verdict::kPassed) << got.reason;
  EXPECT_TRUE(got.slow) << "the 1.5-s run should have run out of its first limit of 1 s";

  // A spinning hang is still hung, after its confirming run.
  const std::string hang = Planted("hang");
  EXPECT_EQ(runner->Check(CaseOf("1d_ic1_oc1_i5_k3"), {hang})[0].verdict, Verdict::kPassed);
  const CaseOutcome hung = runner->Check(CaseOf("1d_ic1_oc1_i4_k2_d3"), {hang})[0];
  EXPECT_EQ(hung.verdict, Verdict::kHung) << hung.reason;
  EXPECT_NE(hung.reason.find("nor alone within"), std::string::npos) << hung.reason;
  EXPECT_FALSE(hung.slow);
}

TEST(VerdictsUnderLoad, AfterACrashEndedItsWorkerASutRunsApart) {
  std::unique_ptr<CaseRunner> runner = Runner();
  // The runners of a process share what they learnt of a SUT: a name of its own ("/./" in the path)
  // keeps the other tests' crashes of this variant out of this one.
  std::string path = CONVPARITY_PLANTED_PLUGIN;
  path.insert(path.rfind('/'), "/.");
  const std::string crash = "plugin:" + path + "#crash";
  const ConvCase crashing = CaseOf("1d_ic3_oc1_i5_k1_s2");
  const ConvCase fine = CaseOf("1d_ic2_oc1_i5_k1_s2");
  const CaseOutcome first = runner->Check(crashing, {crash})[0];
  ASSERT_EQ(first.verdict, Verdict::kCrashed) << first.reason;
  EXPECT_EQ(first.reason.find("forked"), std::string::npos)
      << "ran in the worker: " << first.reason;
  // From now on a crash ends the SUT host's kept child, and the worker goes on.
  for (int k = 0; k < 3; ++k) {
    EXPECT_EQ(runner->Check(fine, {crash})[0].verdict, Verdict::kPassed);
    const CaseOutcome again = runner->Check(crashing, {crash})[0];
    EXPECT_EQ(again.verdict, Verdict::kCrashed);
    EXPECT_NE(again.reason.find("in a child of the SUT host"), std::string::npos) << again.reason;
  }
  // --isolate case forks for every SUT from the first case on.
  const CaseOutcome isolated = Runner(/*fork_per_case=*/true)->Check(crashing, {crash})[0];
  EXPECT_NE(isolated.reason.find("in a child forked for the case"), std::string::npos)
      << isolated.reason;
}

// A campaign whose triage would take long (a hang: every hanging candidate costs its limits) ends
// within its budget and the grace after it.
TEST(VerdictsUnderLoad, ATimedCampaignKeepsItsBudgetTriageIncluded) {
  CampaignOptions o;
  o.seed = 3;
  o.seconds = 10;
  o.dims = {1};  // the hang needs dilation 3 and kernel 2 in the last dimension
  o.max_macs = 20000;
  o.worker_executable = CONVPARITY_EXE;
  o.quiet = true;
  o.shrink_seconds = 60;
  o.suts = {Planted("hang")};
  std::vector<Finding> reported;
  CampaignHooks hooks;
  hooks.on_new_bucket = [&](const Finding& f) { reported.push_back(f); };
  const auto start = std::chrono::steady_clock::now();
  Result<CampaignSummary> s = RunCampaign(o, hooks);
  const double took = SecondsSince(start);
  ASSERT_TRUE(s.ok()) << s.status().message();
  // The grace is 2 s for a budget this short; 1.5 s more for stopping and the last checkpoint.
  EXPECT_LT(took, o.seconds + 2 + 1.5);
  ASSERT_FALSE(reported.empty()) << "the hang was not reported";
  // Its shrinking could not finish in time: reported with what it had, and the summary says so.
  EXPECT_GE(s->shrinking.cut_short + s->untriaged, 1);
  for (const Finding& f : reported)
    if (f.shrink_cut_short) {
      EXPECT_TRUE(s->buckets.at(f.bucket).shrink.cut_short) << f.bucket;
    }
}

// A correct plain loop on large cases, with more workers than cores and busy processes beside them:
// no hung verdict. A count of cases, not a time: on a loaded machine the workers' start alone can
// take seconds.
TEST(VerdictsUnderLoad, ACorrectPlainLoopOnAnOversubscribedMachineIsNeverHung) {
  BusyMachine busy;
  CampaignOptions o;
  o.seed = 11;
  o.max_cases = 300;
  o.max_macs = 400000;  // large cases up to 20 times that
  o.jobs = 4;
  o.worker_executable = CONVPARITY_EXE;
  o.quiet = true;
  o.suts = {Planted("")};
  Result<CampaignSummary> s = RunCampaign(o, {});
  ASSERT_TRUE(s.ok()) << s.status().message();
  int64_t hung = 0, passed = 0;
  for (const auto& [sut, by_direction] : s->verdicts)
    for (const auto& [direction, by_verdict] : by_direction) {
      if (by_verdict.count("hung")) hung += by_verdict.at("hung");
      if (by_verdict.count("passed")) passed += by_verdict.at("passed");
    }
  EXPECT_EQ(hung, 0);
  EXPECT_GT(passed, 100);
  EXPECT_TRUE(s->buckets.empty());
}

}  // namespace
}  // namespace convparity
