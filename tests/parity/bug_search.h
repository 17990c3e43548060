// What the known-bug search tests share (known_bugs_test.cc for kernels, transform_known_bugs_test.cc
// for transform pipelines): a drawn case (problem + direction), its generator over a bug's own space,
// the exact-fill check of one SUT, and the seed count and median of the printed figures.
// Seeds: CONVPARITY_BUG_SEEDS (default 3) seeds from 1.
#pragma once

#include <rapidcheck.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <vector>

#include "core/conv_case.h"
#include "core/conv_problem.h"
#include "core/descriptor.h"
#include "core/sut.h"
#include "generators/problem_gen.h"
#include "harness/check_case.h"

namespace convparity {
namespace bug_search {

struct DrawnCase {
  ConvProblem problem;
  Direction direction = Direction::kForward;
  GraphForm graph = GraphForm::kConv;
};

inline std::string Describe(const DrawnCase& c) {
  return CaseDescriptor(c.problem, c.direction) +
         (c.graph == GraphForm::kChain ? " (as a chain)" : "");
}

// One case through `sut` (reported as `sut_name`) in exact mode, seed 1.
inline CaseOutcome Check(const DrawnCase& c, ConvSut& sut, const std::string& sut_name) {
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

inline rc::Gen<DrawnCase> GenCase(const BugSearchSpace& s, GraphForm graph = GraphForm::kConv) {
  return rc::gen::apply([graph](ConvProblem p, Direction d) { return DrawnCase{p, d, graph}; },
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

}  // namespace bug_search
}  // namespace convparity
