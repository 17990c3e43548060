// The in-flight loop that a campaign's workers and a replay of case files (RunCases) share: keep a
// few cases submitted ahead on a runner, so that a worker never waits for its caller to draw,
// record or report, and hand back each case's outcomes (one per SUT, in the order given) in
// submission order.
#pragma once

#include <cstddef>
#include <deque>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "harness/engine/case_runner.h"

namespace convparity {

// `Tag` is what the caller keeps with a case until its outcomes are back.
template <typename Tag>
class CasesInFlight {
 public:
  explicit CasesInFlight(CaseRunner& runner) : runner_(runner) {}

  void Submit(const ConvCase& c, const std::vector<std::string>& suts, Tag tag) {
    runner_.Submit(c, suts);
    tags_.push_back(std::move(tag));
  }

  size_t size() const { return tags_.size(); }
  bool empty() const { return tags_.empty(); }

  // The oldest case's outcomes; blocks until they are there. Calls `done` with its tag, then
  // forgets it.
  void CompleteOldest(const std::function<void(Tag&, std::vector<CaseOutcome>&)>& done) {
    std::vector<CaseOutcome> outcomes = runner_.Next();
    done(tags_.front(), outcomes);
    tags_.pop_front();
  }

  // The loop: while fewer than `ahead` cases are in flight, `submit_next` submits one (false: there
  // are no more); then the oldest completes. Ends when none is left.
  void Run(size_t ahead, const std::function<bool()>& submit_next,
           const std::function<void(Tag&, std::vector<CaseOutcome>&)>& done) {
    for (;;) {
      while (size() < ahead && submit_next()) {
      }
      if (empty()) return;
      CompleteOldest(done);
    }
  }

 private:
  CaseRunner& runner_;
  std::deque<Tag> tags_;
};

}  // namespace convparity
