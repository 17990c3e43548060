// One benchdnn conv/deconv problem descriptor (e.g. `g2mb1ic4ih9oc8kh3sh2ph1n"x"`): read, deduced
// and printed by benchdnn's documented rules (oneDNN tests/benchdnn/doc/knobs_desc.md,
// driver_conv.md), and turned into a ConvProblem.
//
// The rules, as facts of the format:
//   - `<key><number>` pairs in any order, `_` ignored, then optionally `n<name>` to the end of the
//     token. Keys: g mb ic oc, and i/o/k/s/p/d followed by d/h/w;
//   - defaults: g 1, mb 2, stride 1, dilation 0. NOTE: benchdnn's dilation is 0-based (0 = none);
//     ConvProblem's is PyTorch's, 1 = none;
//   - a spatial dimension is used when any of its i, o, k, dilation is non-zero, its stride is not
//     1 or its padding is at least 1; it then needs i and k. A missing output is deduced with
//     symmetric padding (missing padding = 0); a missing padding with a given output is deduced as
//     ⌊(span difference) / 2⌋, truncated toward zero as in C;
//   - rank: d used → 3-D (h and w copy d when both are missing; one missing is an error); else h
//     used → 2-D (w copies h when missing); else w → 1-D;
//   - the end padding is whatever makes the output size match: for conv (o−1)·s − i + dk − p, for
//     deconv (i−1)·s − o + dk − p, dk = (k−1)·(dil+1) + 1. It may differ from the begin padding
//     (asymmetric) or be negative: a conv whose end padding is above −s reads the same rows with
//     0; a deconv's negative end padding is output_padding when that is legal (< max(stride,
//     dilation)); otherwise the problem is one we cannot express;
//   - a deconv descriptor's ic/oc and i/o are the deconvolution's own input and output.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "core/conv_problem.h"
#include "core/status.h"

namespace convparity {

// One spatial dimension as benchdnn writes it: sizes 0 and padding -1 mean "not given".
struct BenchdnnAxis {
  int64_t i = 0, o = 0, k = 0, s = 1, p = -1, dil = 0;
};

struct BenchdnnDesc {
  int64_t g = -1;  // -1: not given (benchdnn tells "g1" from no g: the weights then have a g axis)
  int64_t mb = 2, ic = 0, oc = 0;
  BenchdnnAxis axis[3];   // d, h, w: benchdnn's order, outermost first
  std::string name;       // as written after `n`, quotes included
  std::string oversized;  // the first key whose value is over 2^30 (kept as 2^30 + 1), if any
  int rank = 0;           // spatial dimensions, set by DeduceBenchdnnDesc

  bool has_groups() const { return g >= 0; }
};

// Syntax only: every key known and followed by a number. Errors name `where` and the token. A
// number over 2^30 (oneDNN's shapes_large_conv has some) is legal benchdnn but beyond any problem
// we run: it is kept as 2^30 + 1 and its key named in `oversized`.
Result<BenchdnnDesc> LexBenchdnnDesc(const std::string& token, const std::string& where);

// benchdnn's own deduction (outputs, paddings, rank, square and cube copies). Returns an empty
// string, or why benchdnn itself rejects the descriptor.
std::string DeduceBenchdnnDesc(BenchdnnDesc& d, bool deconv);

// The descriptor as benchdnn prints it in its reproducer lines (its short form: g when given, mb
// when not 2, strides when not 1, dilations when not 0, h and w only when they differ from d and
// h), with the batch `mb` (benchdnn's --mb, 0: the descriptor's own). `--match` is searched in it.
std::string BenchdnnShortForm(const BenchdnnDesc& d, int64_t mb = 0);

// Text from a batch file for a message: printable ASCII as is, other bytes as \xNN, in single
// quotes, cut after 60 bytes.
std::string QuoteBenchdnnText(const std::string& s);

// The name without quotes, bytes outside printable ASCII as '?' (one line, valid UTF-8).
std::string CleanBenchdnnName(const std::string& name);

// A deduced descriptor as a ConvProblem (transposed for deconv; channels-first, natural weight
// layout, a bias), or why we cannot express it (padding no ConvProblem has, an invalid
// convolution).
struct BenchdnnConversion {
  std::optional<ConvProblem> problem;
  std::string reason;
};
BenchdnnConversion ProblemFromBenchdnnDesc(const BenchdnnDesc& d, bool deconv);

}  // namespace convparity
