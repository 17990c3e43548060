// Importing oneDNN benchdnn problem lists (tests/benchdnn/inputs/{conv,deconv}/, see
// ../shared/benchdnn/SOURCE.md) as ConvProblems, scaling them down to a budget while keeping their
// character, and writing them as case files. `convparity import-benchdnn` is built on this API.
//
// The format, as benchdnn reads it (facts of its format; oneDNN's driver_conv.md):
//   - one problem per whitespace-separated token; `#` starts a comment; `--option` tokens configure
//     the benchdnn driver (not the problem) and are skipped with a note;
//   - a descriptor is `<key><number>` pairs in any order, `_` ignored, then optionally `n<name>`
//     (quotes stripped) up to the end of the token. Keys: g mb ic oc, i/o/k/s/p/d + d/h/w;
//   - defaults: g 1, mb 2, stride 1, dilation 0. NOTE: benchdnn's dilation is 0-based (0 = none);
//     ConvProblem's is PyTorch's, 1 = none;
//   - a spatial dimension is used when any of its i, o, k, dilation is non-zero, its stride is not
//   1 or
//     its padding is at least 1; it then needs i and k. A missing output is deduced with symmetric
//     padding (missing padding = 0); a missing padding with a given output is deduced as
//     ⌊(span difference) / 2⌋, truncated toward zero as in C;
//   - rank: d used → 3-D (h and w copy d when both are missing; one missing is an error); else h
//     used → 2-D (w copies h when missing); else w → 1-D;
//   - the end padding is whatever makes the output size match: for conv
//     (o−1)·s − i + dk − p, for deconv (i−1)·s − o + dk − p, dk = (k−1)·(dil+1) + 1. It may differ
//     from the begin padding (asymmetric) or be negative: a conv whose end padding is above −s
//     reads the same rows with 0; a deconv's negative end padding is output_padding when that is
//     legal
//     (< max(stride, dilation)); otherwise the line is unsupported and skipped with the reason;
//   - deconv files (a `deconv` directory) describe transposed convolutions whose ic/oc and i/o are
//   the
//     deconvolution's own input and output.
// Imported problems are channels-first with the natural weight layout and a bias (benchdnn's
// default direction is forward with bias).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/conv_case.h"
#include "core/conv_problem.h"
#include "core/status.h"

namespace convparity {

struct BenchdnnProblem {
  ConvProblem problem;
  std::string name;        // the n"…" name without quotes (bytes outside printable ASCII → '?')
  int line = 0;            // 1-based line of the source
  std::string source;      // the file it came from ("<text>" when parsed from a string)
  std::string descriptor;  // the benchdnn descriptor token as written
};

// Parses a benchdnn problem list. Malformed text (an unknown key, a key without a number, a number
// over 2^30, an unterminated quote, more than 100000 problems) is an error naming source:line and
// the token. Well-formed lines that give no problem we can run (a driver option, a size benchdnn
// itself rejects, padding no ConvProblem can express, an invalid convolution) are appended to
// `skipped` (may be null), one entry per line: "source:line: reason". Comments and blank lines are
// neither. Total over any input: no crash, allocation bounded by the text's size.
Result<std::vector<BenchdnnProblem>> ParseBenchdnnText(const std::string& text, bool deconv,
                                                       std::vector<std::string>* skipped,
                                                       const std::string& source = "<text>");

// True when a directory component of `path` is named `deconv` (benchdnn's inputs/deconv/).
bool IsBenchdnnDeconvPath(const std::string& path);
// Reads (at most 16 MiB) and parses one file; deconv or not by IsBenchdnnDeconvPath.
Result<std::vector<BenchdnnProblem>> ImportBenchdnnFile(const std::string& path,
                                                        std::vector<std::string>* skipped);

// Budgets for ScaleDown; 0 keeps that aspect as it is.
struct ScaleOptions {
  int64_t max_batch = 0;
  int64_t max_spatial = 0;  // every spatial extent of the input and the output
  int64_t max_macs = 0;
};

// Shrinks batch, spatial sizes and, while over max_macs, channels (then spatial sizes and batch
// further), keeping the configuration's character: rank, kind, kernel, stride, dilation, padding,
// output_padding, layouts, bias; groups > 1, depthwise-ness, whether the per-group output channels
// are fewer than, as many as or more than the per-group input channels, and per-group counts of 1;
// for an ordinary convolution the input size modulo the stride (so the same trailing rows go
// unread). Never grows anything. A budget that the fixed parts (a huge kernel, say) exceed is met
// as far as it can be: the result is then a fixed point, ScaleDown(result) == result. An invalid
// problem is returned unchanged; a valid one stays valid.
ConvProblem ScaleDown(const ConvProblem& p, const ScaleOptions& options);

// Writes one case file per (problem, direction, fill) into out_dir (WriteCaseFile: atomic,
// content-hash names), with the given SUT and seed and note = "<name> (<source>:<line>)". Returns
// the number of files written (duplicates collapse onto one file but are counted).
Result<int> WriteImportedCases(const std::vector<BenchdnnProblem>& problems,
                               const std::vector<Direction>& directions,
                               const std::vector<Fill>& fills, const std::string& sut,
                               const std::string& out_dir, uint64_t seed);

}  // namespace convparity
