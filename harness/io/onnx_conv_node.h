// One ONNX Conv or ConvTranspose node as a ConvProblem and the spelling it is written in
// (core/spelling.h), from its attributes as written and its operands' shapes. `convparity
// import-onnx` reads models with it (onnx_import.h); this file knows ONNX's attributes, not its
// protobuf.
//
// ONNX's conventions: data channels-first (N, C, D…); a Conv's weight (M, C/group, k…), a
// ConvTranspose's (C, M/group, k…), which are a ConvProblem's natural weights; pads are all the
// beginnings, then all the ends. auto_pad SAME_UPPER / SAME_LOWER give an ordinary convolution
// the output ceil(input / stride), the total padding split evenly with the odd one at the end for
// SAME_UPPER, at the beginning for SAME_LOWER (AutoPads). A ConvTranspose's auto_pad SAME gives
// the output input × stride, and its output_shape gives the output; both derive the total padding
// stride × (input − 1) + output_padding + dilation × (kernel − 1) + 1 − output, split as the text
// of opset 11 on says (the odd one at the end for SAME_UPPER, else at the beginning). A negative
// total is an output larger than the full transposed convolution: its extra rows are
// output_padding.
#pragma once

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "core/conv_problem.h"
#include "core/spelling.h"

namespace convparity {

struct OnnxConvNode {
  bool transposed = false;  // ConvTranspose
  Shape input;              // X
  Shape weight;             // W
  bool bias = false;        // a third operand B
  // The attributes as written; nullopt where absent.
  std::optional<Shape> kernel_shape, strides, dilations, pads, output_padding, output_shape;
  std::optional<int64_t> group;
  std::optional<std::string> auto_pad;  // absent: NOTSET
};

// A tally's line (import_tally.h): "category: detail" with its numbers as N, so that one kind of
// reason is one line, and the details with the numbers.
struct OnnxReason {
  std::string key;
  std::string what;
};

struct OnnxConvConversion {
  // nullopt: not imported, for `skip`'s reason: rank (other than 1-3 spatial dimensions), size
  // (a value over 2^30), attribute (attributes that contradict each other or the shapes) or
  // illegal (not a legal convolution, Validate's message).
  std::optional<ConvProblem> problem;
  OnnxReason skip;
  // How the node writes the problem where CheckSpelling holds for it; where it does not (SAME on a
  // ConvTranspose, an output_shape with unequal pads), explicit pads, and a change says so.
  Spelling spelling;
  // What the problem says otherwise than the node, with the same arithmetic: spelling (as above),
  // pads (an odd total padding that ONNX's texts of ConvTranspose split in opposite ways),
  // output_padding (a ConvTranspose's output beyond its full size).
  std::vector<OnnxReason> changes;
};

OnnxConvConversion ProblemFromOnnxConv(const OnnxConvNode& node);
inline constexpr char kOnnxRankReason[] = "rank: other than 1-3 spatial dimensions";

// The first spelling of `wanted`, `wanted` with explicit pads, `wanted` with output_padding, and
// the plain one that CheckSpelling allows for p.
Spelling FittingSpelling(const Spelling& wanted, const ConvProblem& p);

// "[1,3,224,224]"; an unknown dimension (negative) as "?".
std::string OnnxShapeText(const Shape& shape);

}  // namespace convparity
