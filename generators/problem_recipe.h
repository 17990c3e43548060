// What the space's recipe (generators/space_recipe.h) draws: the raw choices of a problem, before
// they are fitted to a cap and turned into a ConvProblem. Internal to generators/.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "core/conv_problem.h"
#include "generators/fit_budget.h"

namespace convparity {
namespace recipe {

struct DimRecipe {
  int64_t kernel = 1, dilation = 1, stride = 1;
  int64_t pad_begin = 0, pad_end = 0, output_padding = 0;
  // Ordinary: the output size (the input follows from it, so output size 1 is a plain choice).
  // Transposed: the input size (its small side).
  int64_t extent = 1;
  int64_t remainder = 0;  // ordinary: input positions past the last window, < stride
  // The byte format's only: the input as short as still gives an output, below the generator's
  // floor (see Assemble), as real networks' shapes have it.
  bool short_input = false;
};

struct Channels {
  int64_t groups = 1, in_per_group = 1, out_per_group = 1, batch = 1;
};

struct Recipe {
  int rank = 1;
  bool transposed = false;
  bool large = false;  // fitted to LargeMacs instead of max_macs
  std::vector<DimRecipe> dims;
  Channels channels;
  // The fields the sizes do not decide (layouts, bias, …): Assemble starts from these, so a new
  // such field of ConvProblem needs only its choice in space_recipe.h.
  ConvProblem attributes;
};

// The problem `r` describes: valid for every recipe the generator draws.
ConvProblem Assemble(const Recipe& r);

// The recipe Assemble turns into `p`, with the size class `large`; none when Assemble gives no
// such problem (an ordinary input shorter than its dilation with a kernel of several taps, a
// transposed input shorter than its cropping needs). The encoder's target.
std::optional<Recipe> RecipeOf(const ConvProblem& p, bool large);

// The fit of a recipe to max_macs (generators/fit_budget.h): halves the largest of the sizes
// (spatial extents, batch, channels per group, groups) until the problem fits; then, if still
// needed, shortens kernels and drops padding. Made once per cap, not per draw: the generator fits
// every value it draws and shrinks.
FitPolicy<Recipe> MacsFit(int64_t max_macs);

// `r` fitted by `fit` (a MacsFit). Deterministic, so shrinking a recipe still yields a fitting
// problem.
Recipe FitToMacs(Recipe r, const FitPolicy<Recipe>& fit);

}  // namespace recipe
}  // namespace convparity
