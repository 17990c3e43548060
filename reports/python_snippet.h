// A short PyTorch program that recomputes a case's reference (float64) with torch.nn.functional,
// for a user to paste into an issue (docs/INTERFACES.md, "A discrepancy report").
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/conv_case.h"
#include "core/tensor.h"
#include "core/verdict.h"

namespace convparity {

// The case's own values, for a snippet that reproduces its exact data: the filled inputs
// (generators/fill.h FillInputs: only the tensors the direction reads) and the oracle's result,
// both in logical order.
struct SnippetValues {
  CaseInputs inputs;
  std::vector<double> expected;
};

// How many numbers a snippet of `c` would carry (the inputs its direction reads and its result),
// and the most it carries: a 1-minimal case is far below (tens to hundreds); above, the snippet
// falls back to random inputs and says so.
int64_t SnippetValueCount(const ConvCase& c);
constexpr int64_t kSnippetValueLimit = 4096;

// The snippet runs F.conv{N}d or F.conv_transpose{N}d with the case's stride, padding, dilation,
// output_padding, groups and bias, and for bwd_data / bwd_weight backpropagates a gradient with
// autograd. Asymmetric padding becomes an explicit F.pad (ordinary) or a crop (transposed).
//
// With `values` (and at most kSnippetValueLimit numbers), the inputs are the case's own and the
// snippet ends by comparing its result with the oracle's (`expected`): it prints whether they are
// equal, and, given the SUT's `judgement`, the SUT's values at its first and worst wrong elements
// beside PyTorch's. Without them, it builds random inputs of the case's shapes (it reproduces the
// computation, not the case's data: `convparity repro` does that) and prints the result's shape,
// followed by a comment with the expected one; over the limit it says why.
// Free text of the case (SUT, note) appears only in comments, reduced to printable ASCII so that
// it cannot break the program.
std::string PythonSnippet(const ConvCase& c, const SnippetValues* values = nullptr,
                          const Judgement* judgement = nullptr);

}  // namespace convparity
