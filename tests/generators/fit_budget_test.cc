// The fit-to-budget loop that the generator, the byte decoder and the benchdnn import share
// (generators/fit_budget.h): the order in which it shrinks, and when it stops.
#include "generators/fit_budget.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace convparity {
namespace {

// Two sizes whose product is the budgeted cost, and a log of the steps taken.
struct Toy {
  int64_t a = 1, b = 1;
  int kernel = 1;
  std::string log;
  int64_t cost() const { return a * b * kernel; }
};

FitPolicy<Toy> ToyPolicy(int64_t budget) {
  FitPolicy<Toy> policy;
  policy.over = [budget](const Toy& t) { return t.cost() > budget; };
  policy.halvings = {{[](const Toy& t) { return t.a; },
                      [](Toy& t) {
                        t.a -= t.a / 2;
                        t.log += "a";
                      }},
                     {[](const Toy& t) { return t.b; },
                      [](Toy& t) {
                        t.b -= t.b / 2;
                        t.log += "b";
                      }}};
  policy.fallbacks = {[](Toy& t) {
    if (t.kernel == 1) return FitStep::kNotApplicable;
    --t.kernel;
    t.log += "k";
    return FitStep::kApplied;
  }};
  return policy;
}

TEST(FitBudget, HalvesTheLargestSizeFirstAndTheFirstOfTheLargestOnTies) {
  Toy t{8, 8, 1, ""};
  EXPECT_TRUE(FitToBudget(t, ToyPolicy(8)));
  EXPECT_EQ(t.log, "aba");  // 8×8 → 4×8 (a first on the tie) → 4×4 → 2×4
  EXPECT_EQ(t.a, 2);
  EXPECT_EQ(t.b, 4);
}

TEST(FitBudget, UsesTheFallbacksOnlyWhenNoSizeIsAboveOne) {
  Toy t{2, 1, 3, ""};
  EXPECT_TRUE(FitToBudget(t, ToyPolicy(1)));
  EXPECT_EQ(t.log, "akk");
}

TEST(FitBudget, StopsWhenNothingAppliesAndSaysItIsStillOver) {
  Toy t{1, 1, 1, ""};
  FitPolicy<Toy> policy = ToyPolicy(0);
  EXPECT_FALSE(FitToBudget(t, policy));
  EXPECT_EQ(t.log, "");
}

TEST(FitBudget, ALastFallbackStopsTheFitAndTheStepLimitHoldsToo) {
  Toy t{1, 1, 5, ""};
  FitPolicy<Toy> policy = ToyPolicy(1);
  policy.fallbacks.insert(policy.fallbacks.begin(), [](Toy& x) {
    x.log += "!";
    return FitStep::kLast;
  });
  EXPECT_FALSE(FitToBudget(t, policy));
  EXPECT_EQ(t.log, "!");

  Toy u{64, 1, 1, ""};
  FitPolicy<Toy> limited = ToyPolicy(1);
  limited.max_steps = 2;
  EXPECT_FALSE(FitToBudget(u, limited));
  EXPECT_EQ(u.log, "aa");
}

TEST(FitBudget, TakesNoStepWithinTheBudget) {
  Toy t{3, 3, 3, ""};
  EXPECT_TRUE(FitToBudget(t, ToyPolicy(27)));
  EXPECT_EQ(t.log, "");
}

}  // namespace
}  // namespace convparity
