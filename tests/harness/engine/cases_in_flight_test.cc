// The in-flight loop shared by campaigns and replays: outcomes come back per case in submission
// order, one per SUT in the order given, and no more cases are in flight than asked.
#include "harness/engine/cases_in_flight.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <deque>
#include <string>
#include <utility>
#include <vector>

#include "harness/engine/sut_cache.h"

namespace convparity {
namespace {

// Answers each SUT with the outcome reason "<runner>:<seed>:<sut>", and records what it was given.
class RecordingRunner : public CaseRunner {
 public:
  explicit RecordingRunner(std::string name) : name_(std::move(name)) {}
  void Submit(const ConvCase& c, const std::vector<std::string>& suts) override {
    queue_.push_back({c.seed, suts});
    submitted.push_back(suts);
    max_pending = std::max(max_pending, queue_.size());
  }
  std::vector<CaseOutcome> Next() override {
    auto [seed, suts] = std::move(queue_.front());
    queue_.pop_front();
    std::vector<CaseOutcome> out;
    for (const std::string& sut : suts)
      out.push_back(
          VerdictOutcome(Verdict::kPassed, name_ + ":" + std::to_string(seed) + ":" + sut));
    return out;
  }
  size_t pending() const override { return queue_.size(); }

  std::vector<std::vector<std::string>> submitted;
  size_t max_pending = 0;

 private:
  std::string name_;
  std::deque<std::pair<uint64_t, std::vector<std::string>>> queue_;
};

ConvCase CaseWithSeed(uint64_t seed) {
  ConvCase c;
  c.seed = seed;
  return c;
}

std::vector<std::string> Reasons(const std::vector<CaseOutcome>& outcomes) {
  std::vector<std::string> reasons;
  for (const CaseOutcome& o : outcomes) reasons.push_back(o.reason);
  return reasons;
}

TEST(CasesInFlight, OutcomesComeBackPerCaseInSubmissionOrderOnePerSutInTheOrderGiven) {
  RecordingRunner runner("r");
  CasesInFlight<int> in_flight(runner);
  in_flight.Submit(CaseWithSeed(1), {"a", "b", "c"}, 10);
  in_flight.Submit(CaseWithSeed(2), {"b", "a"}, 20);
  EXPECT_EQ(runner.submitted, (std::vector<std::vector<std::string>>{{"a", "b", "c"}, {"b", "a"}}));
  std::vector<std::pair<int, std::vector<std::string>>> done;
  auto record = [&](int& tag, std::vector<CaseOutcome>& outcomes) {
    done.push_back({tag, Reasons(outcomes)});
  };
  in_flight.CompleteOldest(record);
  in_flight.CompleteOldest(record);
  ASSERT_EQ(done.size(), 2u);
  EXPECT_EQ(done[0].first, 10);
  EXPECT_EQ(done[0].second, (std::vector<std::string>{"r:1:a", "r:1:b", "r:1:c"}));
  EXPECT_EQ(done[1].first, 20);
  EXPECT_EQ(done[1].second, (std::vector<std::string>{"r:2:b", "r:2:a"}));
  EXPECT_TRUE(in_flight.empty());
  EXPECT_EQ(runner.pending(), 0u);
}

TEST(CasesInFlight, TheLoopKeepsAtMostAheadCasesAndCompletesThemInOrder) {
  RecordingRunner runner("r");
  CasesInFlight<uint64_t> in_flight(runner);
  uint64_t next = 0;
  std::vector<uint64_t> completed;
  in_flight.Run(
      3,
      [&] {
        if (next == 10) return false;
        in_flight.Submit(CaseWithSeed(next), {"s"}, next);
        ++next;
        return true;
      },
      [&](uint64_t& tag, std::vector<CaseOutcome>& outcomes) {
        ASSERT_EQ(outcomes.size(), 1u);
        EXPECT_EQ(outcomes[0].reason, "r:" + std::to_string(tag) + ":s");
        completed.push_back(tag);
      });
  EXPECT_EQ(completed, (std::vector<uint64_t>{0, 1, 2, 3, 4, 5, 6, 7, 8, 9}));
  EXPECT_EQ(runner.max_pending, 3u);
  EXPECT_TRUE(in_flight.empty());
}

}  // namespace
}  // namespace convparity
