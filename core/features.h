// Feature classes of a problem: what a campaign's coverage table counts, and what a discrepancy's
// bucket signature is made of. Stack-based dedup does not work for numerical mismatches; the shape
// of the minimized configuration does.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/conv_case.h"
#include "core/verdict.h"

namespace convparity {

// Tags such as "rank2", "transposed", "depthwise", "multiplier>1", "stride>1", "stride>kernel",
// "dilation>1", "output_padding>0", "asymmetric_padding", "channels_last", "weight:hwio",
// "kernel>5", "kernel>9", "kernel>16", "channels_near_block" (a channel count, whole or per group,
// at a multiple of 8 or one off it, from 7), "large" (more multiply-adds than defaults::kMaxMacs),
// "batch>1", "bias", "output_size_1", in a fixed order.
std::vector<std::string> FeatureTags(const ConvProblem& p);
const std::vector<std::string>& AllFeatureTagNames();  // every tag FeatureTags can return

// The bucket of a (minimized) discrepancy: what went wrong, then where. SUT, direction, verdict,
// and for a failed verdict its symptom (core/verdict.h); then, except for a loss of precision,
// which one cause shows on every problem alike, the graph form ("chain." for a chain) and the
// problem's feature classes (docs/TRIAGE.md), e.g.
//   "known-bug:tvm-7912/fwd/failed/wrong/t1d.stride>1.output_padding>0"
//   "plugin:/x/libk.so#bf16/bwd_data/failed/precision"
//   "known-bug:pytorch-19912/fwd/crashed/2d.grouped"
// A failed verdict without a symptom (none told) has no symptom part.
std::string BucketSignature(const ConvCase& c, Verdict verdict, Symptom symptom);

// A discrepancy as a campaign reports it.
struct Finding {
  ConvCase original;
  CaseOutcome original_outcome;
  ConvCase minimized;
  CaseOutcome outcome;                    // of the minimized case
  std::vector<std::string> shrink_steps;  // descriptor of each smaller failing case, in order
  std::string bucket;
  // Transform SUTs (harness/suts/transform_sut.h), for the minimized case: the pipeline's steps and
  // the graph before and after it, as text. Empty for any other SUT.
  std::vector<std::string> transform_pipeline;
  std::string graph_before, graph_after;
  // Triage (harness/engine/triage.h).
  int64_t shrink_calls = 0;           // SUT calls shrinking spent (shrink tree, structural pass)
  bool shrink_bound_hit = false;      // a bound (calls, seconds) ended the structural pass early
  bool crashes_after_others = false;  // crashed in a used worker, not alone in a fresh one
  // A campaign's time budget ended the shrinking: the case is the smallest seen failing by then.
  bool shrink_cut_short = false;
};

}  // namespace convparity
