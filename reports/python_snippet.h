// A short PyTorch program that recomputes a case's reference (float64) with torch.nn.functional,
// for a user to paste into an issue (INTERFACES.md, "A discrepancy report").
#pragma once

#include <string>

#include "core/conv_case.h"

namespace convparity {

// The snippet builds random inputs of the case's shapes (it reproduces the computation, not the
// case's exact data: `convparity repro` does that), runs F.conv{N}d or F.conv_transpose{N}d with
// the case's stride, padding, dilation, output_padding, groups and bias, and for bwd_data /
// bwd_weight backpropagates a random gradient with autograd. Asymmetric padding becomes an explicit
// F.pad (ordinary) or a crop (transposed). It ends by printing the result's shape, followed by a
// comment with the expected one. Free text of the case (SUT, note) appears only in comments,
// reduced to printable ASCII so that it cannot break the program.
std::string PythonSnippet(const ConvCase& c);

}  // namespace convparity
