// benchdnn's memory formats (--stag, --wtag, --dtag, --strides; oneDNN tests/benchdnn/doc/
// knobs_tag.md, knob_strides.md) as ConvProblem layouts.
//
// A tag names the memory order of a tensor's logical axes, outermost first, by letters: `a` is
// the first logical axis (activations: N C D H W; weights: [G] O I D H W, O and I the operator's
// output and input channels), and a meta-tag's `x` stands for the axes not named otherwise (`axb`
// = N, spatial…, C: channels-last; `abxc` for grouped weights). oneDNN's names (nchw, nhwc, oihw,
// hwio, goihw, …) say the same with axis names. Upper-case letters and digits are blocked formats,
// which have no ConvProblem equivalent; so have orders other than channels-first and -last data
// and the four weight layouts, and strides other than the dense ones of those.
//
// ConvProblem has one data layout for the source and the destination: `any` (the library's
// choice) gives both, a tag or strides for one of them fix it, and when neither names one the
// problem is channels-first, as benchdnn's reference is. Weights take their natural layout unless
// a tag or strides name another.
#pragma once

#include <string>
#include <vector>

#include "core/conv_problem.h"
#include "harness/io/benchdnn_settings.h"

namespace convparity {

struct BenchdnnLayouts {
  std::vector<DataLayout> data;  // one, or both for `any`; empty when `reason` is set
  WeightLayout weight = WeightLayout::kOI;
  std::string reason;  // why the run's formats cannot be expressed
};

// The layouts of `run` for problem `p` (its batch already the run's); `grouped` says whether the
// descriptor gave g (benchdnn's weights then have a G axis, even for g1).
BenchdnnLayouts LayoutsFor(const BenchdnnRun& run, const ConvProblem& p, bool grouped);

}  // namespace convparity
