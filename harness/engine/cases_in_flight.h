// The in-flight loop that a campaign's workers and a replay of case files (RunCases) share: keep a
// few cases submitted ahead on the runners, so that a worker never waits for its caller to draw,
// record or report, and hand back each case's outcomes in submission order. A case's SUTs may be
// split between runners (a campaign runs a SUT that crashed in a fresh worker per case); its
// outcomes come back one per SUT, in the order the SUTs were given.
#pragma once

#include <algorithm>
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
  explicit CasesInFlight(std::vector<CaseRunner*> runners) : runners_(std::move(runners)) {}

  // Submits `c` for `suts`; suts[k] runs on runners[route[k]] (all on the first without a route).
  void Submit(const ConvCase& c, const std::vector<std::string>& suts, Tag tag,
              std::vector<size_t> route = {}) {
    route.resize(suts.size(), 0);
    for (size_t r = 0; r < runners_.size(); ++r) {
      std::vector<std::string> mine;
      for (size_t k = 0; k < suts.size(); ++k)
        if (route[k] == r) mine.push_back(suts[k]);
      if (!mine.empty()) runners_[r]->Submit(c, mine);
    }
    cases_.push_back({std::move(tag), std::move(route)});
  }

  size_t size() const { return cases_.size(); }
  bool empty() const { return cases_.empty(); }
  const Tag& newest() const { return cases_.back().tag; }

  // The oldest case's outcomes, one per SUT in the order submitted; blocks until they are there.
  // Calls `done` with its tag, then forgets it.
  void CompleteOldest(const std::function<void(Tag&, std::vector<CaseOutcome>&)>& done) {
    Submitted& s = cases_.front();
    std::vector<std::vector<CaseOutcome>> from(runners_.size());
    for (size_t r = 0; r < runners_.size(); ++r)
      if (std::find(s.route.begin(), s.route.end(), r) != s.route.end())
        from[r] = runners_[r]->Next();
    std::vector<size_t> at(runners_.size(), 0);
    std::vector<CaseOutcome> outcomes;
    for (size_t r : s.route) {
      outcomes.push_back(at[r] < from[r].size() ? std::move(from[r][at[r]]) : CaseOutcome{});
      ++at[r];
    }
    done(s.tag, outcomes);
    cases_.pop_front();
  }

  // The loop: while fewer than `ahead()` cases (asked once a round) are in flight, `submit_next`
  // submits one (false: there are no more); then the oldest completes. Ends when none is left.
  void Run(const std::function<size_t()>& ahead, const std::function<bool()>& submit_next,
           const std::function<void(Tag&, std::vector<CaseOutcome>&)>& done) {
    for (;;) {
      for (const size_t n = ahead(); size() < n && submit_next();) {
      }
      if (empty()) return;
      CompleteOldest(done);
    }
  }

 private:
  struct Submitted {
    Tag tag;
    std::vector<size_t> route;
  };
  std::vector<CaseRunner*> runners_;
  std::deque<Submitted> cases_;
};

}  // namespace convparity
