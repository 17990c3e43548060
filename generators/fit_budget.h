// One fit-to-budget loop for every place that scales a problem down to a budget: the generator's
// recipes (generators/problem_recipe.h FitToMacs), the byte decoder's cases (FitToCaps in
// generators/byte_decoder.cc) and benchdnn's imported layers (harness/io/benchdnn_scale.h
// ScaleDown). What differs between them is data in the policy: the caps (`over`), what may be
// halved (`halvings`, the largest first), what is tried once nothing can be halved
// (`fallbacks`, in order) and how many steps the loop may take.
//
// Deterministic: the same state and policy give the same result, so a shrunk recipe still fits.
#pragma once

#include <climits>
#include <cstdint>
#include <functional>
#include <vector>

namespace convparity {

// What a fallback did.
enum class FitStep {
  kNotApplicable,  // nothing to do: the next fallback is tried
  kApplied,        // the step is made: the loop checks the caps again
  kLast,           // the step is made and the fit stops, over the caps or not
};

template <class State>
struct FitPolicy {
  // True while the state is over the budget.
  std::function<bool(const State&)> over;
  // A size the fit may halve: its current value, and how to halve it. Each step halves the largest
  // size above 1 (the first of the largest on ties).
  struct Halving {
    std::function<int64_t(const State&)> size;
    std::function<void(State&)> halve;
  };
  std::vector<Halving> halvings;
  // Tried in order when no size is above 1; the first one that applies makes the step. The fit
  // stops when none applies.
  std::vector<std::function<FitStep(State&)>> fallbacks;
  int max_steps = INT_MAX;
};

// Scales `state` down until `policy.over` is false, or nothing more applies, or max_steps steps
// were taken. Returns whether the state is within the budget. A state within it costs one call of
// `over`: the generator fits every value it draws and shrinks.
template <class State>
bool FitToBudget(State& state, const FitPolicy<State>& policy) {
  for (int step = 0;; ++step) {
    if (!policy.over(state)) return true;
    if (step >= policy.max_steps) return false;
    const typename FitPolicy<State>::Halving* largest = nullptr;
    int64_t largest_size = 1;
    for (const auto& h : policy.halvings) {
      const int64_t size = h.size(state);
      if (size > largest_size) {
        largest = &h;
        largest_size = size;
      }
    }
    if (largest != nullptr) {
      largest->halve(state);
      continue;
    }
    FitStep done = FitStep::kNotApplicable;
    for (const auto& fallback : policy.fallbacks)
      if ((done = fallback(state)) != FitStep::kNotApplicable) break;
    if (done != FitStep::kApplied) return !policy.over(state);
  }
}

}  // namespace convparity
