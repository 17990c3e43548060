// Finding a counterexample and shrinking it with RapidCheck's generators and shrink trees, outside
// RapidCheck's test runner. rc::check prints the minimal case but does not return it; the campaign
// and the known-bug tests need the value itself, how many cases it took to find and how long.
//
// Like RapidCheck: each case draws from an independent split of one seeded Random, and shrinking is
// greedy along the shrink tree: the first shrink that still fails becomes the current value, until
// none of its shrinks fails (a local minimum) or the budget runs out. Header-only: it is a template
// over the generated type, and it stays free of gtest so that the campaign can use it too.
#pragma once

#include <rapidcheck.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <exception>
#include <functional>
#include <optional>
#include <vector>

namespace convparity {

struct SearchOptions {
  uint64_t seed = 0;
  int64_t max_cases = 1000;         // values drawn before giving up
  int max_size = rc::kNominalSize;  // generation size, ramped up over the first cases
  int64_t max_shrink_tries = 5000;  // failure checks spent on shrink candidates
  double max_seconds = 0;           // for the search and for the shrinking each; 0: no limit
};

template <typename T>
struct SearchResult {
  bool found = false;
  int64_t cases = 0;         // drawn, up to and including the first failing one
  int64_t discarded = 0;     // draws whose generation failed (rc::GenerationFailure and the like)
  std::optional<T> first;    // the first failing value
  std::optional<T> shrunk;   // the local minimum the shrink tree led to (== first if none shrinks)
  int64_t shrink_steps = 0;  // shrinks accepted
  std::vector<T> steps;      // the accepted values, in order
  int64_t shrink_tries = 0;  // shrink candidates checked
  bool shrink_complete = false;  // false when the budget ended the shrinking early
  double search_seconds = 0, shrink_seconds = 0;
};

// The generation size of the index-th case (0-based): index, capped at max_size.
inline int SizeForCase(int64_t index, int max_size) {
  return static_cast<int>(std::min<int64_t>(std::max<int64_t>(index, 0), std::max(max_size, 0)));
}

// Seconds since `start`.
inline double SecondsSince(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

// Shrinks a failing value greedily along its shrink tree, recording into `result` (shrunk, steps,
// tries, time). Also what a campaign calls on a case it drew itself.
template <typename T>
void ShrinkInto(const rc::Shrinkable<T>& failing, const std::function<bool(const T&)>& fails,
                const SearchOptions& options, SearchResult<T>& result) {
  const auto start = std::chrono::steady_clock::now();
  auto out_of_time = [&] {
    return options.max_seconds > 0 && SecondsSince(start) > options.max_seconds;
  };
  rc::Shrinkable<T> current = failing;
  if (!result.shrunk) result.shrunk = failing.value();
  bool progress = true;
  while (progress) {
    progress = false;
    rc::Seq<rc::Shrinkable<T>> candidates = current.shrinks();
    while (rc::Maybe<rc::Shrinkable<T>> candidate = candidates.next()) {
      if (result.shrink_tries >= options.max_shrink_tries || out_of_time()) {
        result.shrink_seconds = SecondsSince(start);
        return;
      }
      ++result.shrink_tries;
      std::optional<T> v;
      try {
        v = candidate->value();
      } catch (const std::exception&) {
        continue;  // a candidate that cannot be produced is not a counterexample
      }
      if (fails(*v)) {
        current = std::move(*candidate);
        result.shrunk = v;
        result.steps.push_back(std::move(*v));
        ++result.shrink_steps;
        progress = true;
        break;
      }
    }
  }
  result.shrink_complete = true;
  result.shrink_seconds = SecondsSince(start);
}

// Draws from `gen` until `fails` returns true for a value, then shrinks that value. `fails` is the
// negation of the property: true for a counterexample.
template <typename T>
SearchResult<T> FindAndShrink(const rc::Gen<T>& gen, const std::function<bool(const T&)>& fails,
                              const SearchOptions& options = {}) {
  SearchResult<T> result;
  auto start = std::chrono::steady_clock::now();
  auto out_of_time = [&] {
    return options.max_seconds > 0 && SecondsSince(start) > options.max_seconds;
  };
  // A value that cannot be produced (e.g. a filter that gave up) is not a counterexample.
  auto value_of = [](const rc::Shrinkable<T>& s) -> std::optional<T> {
    try {
      return s.value();
    } catch (const std::exception&) {
      return std::nullopt;
    }
  };

  rc::Random random(options.seed);
  std::optional<rc::Shrinkable<T>> failing;
  for (int64_t i = 0; i < options.max_cases && !out_of_time(); ++i) {
    rc::Shrinkable<T> drawn = gen(random.split(), SizeForCase(i, options.max_size));
    ++result.cases;
    std::optional<T> v = value_of(drawn);
    if (!v) {
      ++result.discarded;
      continue;
    }
    if (fails(*v)) {
      result.found = true;
      result.first = std::move(v);
      failing = std::move(drawn);
      break;
    }
  }
  result.search_seconds = SecondsSince(start);
  if (!failing) return result;
  result.shrunk = result.first;
  ShrinkInto(*failing, fails, options, result);
  return result;
}

}  // namespace convparity
