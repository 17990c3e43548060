// What the known-bug search tests share (known_bugs_test.cc for kernels,
// transform_known_bugs_test.cc for transform pipelines): a drawn case (problem + direction), its
// generator over a bug's own space, the exact-fill check of one SUT, and the seed count and median
// of the printed figures. Seeds: CONVPARITY_BUG_SEEDS (default 3) seeds from 1.
#pragma once

#include <rapidcheck.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <string>
#include <vector>

#include "core/conv_case.h"
#include "core/conv_problem.h"
#include "core/descriptor.h"
#include "core/sut.h"
#include "generators/problem_gen.h"
#include "harness/engine/check_case.h"
#include "harness/engine/shrink_search.h"

namespace convparity {
namespace bug_search {

struct DrawnCase {
  ConvProblem problem;
  Direction direction = Direction::kForward;
  const GraphForm* graph = &ConvForm();
};

inline std::string Describe(const DrawnCase& c) {
  return CaseDescriptor(c.problem, c.direction) + (c.graph == &ChainForm() ? " (as a chain)" : "");
}

// One case through `sut` (reported as `sut_name`) in exact mode, seed 1.
inline CaseOutcome Check(const DrawnCase& c, Sut& sut, const std::string& sut_name) {
  ConvCase cc;
  cc.problem = c.problem;
  cc.direction = c.direction;
  cc.sut = sut_name;
  cc.fill = Fill::kExact;
  cc.seed = 1;
  cc.graph = c.graph;
  return CheckCase(cc, sut);
}

// Where a search looks for a bug: the space (and direction) its original lived in, so that the bug
// is reachable; everything else about the problem is left to GenProblem.
struct BugSearchSpace {
  ProblemSpace space;
  std::vector<Direction> directions;
  int64_t max_shrunk_macs;  // "small": the shrunk case must not need more multiply-adds
};

inline rc::Gen<DrawnCase> GenCase(const BugSearchSpace& s, const GraphForm* graph = &ConvForm()) {
  return rc::gen::apply(
      [graph](ConvProblem p, Direction d) {
        return DrawnCase{p, d, graph};
      },
      GenProblem(s.space), rc::gen::elementOf(s.directions));
}

inline int SeedCount() {
  const char* env = std::getenv("CONVPARITY_BUG_SEEDS");
  const int n = env ? std::atoi(env) : 3;
  return std::max(n, 1);
}

template <typename T>
T Median(std::vector<T> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

// The search for `sut` in a campaign's default space (`space`: every rank, both kinds; all three
// directions): each seed must find a failure within the budget, and its shrunk case must still
// fail. Prints, per seed and the median, how many cases it took and the shrunk case, for the
// figures of the design notes. `label` starts each line.
inline void SearchTheDefaultSpace(const std::string& label, const std::string& id, Sut& sut,
                                  const std::string& sut_name, const ProblemSpace& space) {
  const BugSearchSpace search{space, AllDirections(), 0};
  std::function<bool(const DrawnCase&)> fails = [&](const DrawnCase& c) {
    return IsDiscrepancy(Check(c, sut, sut_name).verdict);
  };
  std::vector<int64_t> cases;
  std::vector<double> seconds;
  for (int seed = 1; seed <= SeedCount(); ++seed) {
    SearchOptions options;
    options.seed = static_cast<uint64_t>(seed);
    options.max_cases = 20000;
    options.max_seconds = 120;
    const SearchResult<DrawnCase> r = FindAndShrink(GenCase(search), fails, options);
    if (!r.found) {
      ADD_FAILURE() << label << " " << id << " seed " << seed << ": not found in " << r.cases
                    << " cases, " << r.search_seconds << " s";
      continue;
    }
    EXPECT_TRUE(fails(*r.shrunk)) << id << " seed " << seed << ": " << Describe(*r.shrunk);
    std::printf("%s %-24s seed %d: failure after %5lld cases, %7.3f s; shrunk: %s\n", label.c_str(),
                id.c_str(), seed, static_cast<long long>(r.cases), r.search_seconds,
                Describe(*r.shrunk).c_str());
    cases.push_back(r.cases);
    seconds.push_back(r.search_seconds);
  }
  if (!cases.empty())
    std::printf("%s %-24s median over %zu finding seeds: %lld cases, %.3f s\n", label.c_str(),
                id.c_str(), cases.size(), static_cast<long long>(Median(cases)), Median(seconds));
}

}  // namespace bug_search
}  // namespace convparity
