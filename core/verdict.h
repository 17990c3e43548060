// The outcome of checking one case (TOLERANCE.md, "Verdicts").
#pragma once

#include <string>

namespace convparity {

enum class Verdict {
  kPassed,
  kFailed,         // values differ beyond the bound (exact mode: at all)
  kShapeMismatch,  // the SUT produced a result of another shape
  kUnwritten,      // the SUT left elements of the (poisoned) result untouched
  kMistrusted,     // passed, but over 70% of the reference is exactly zero: proves little
  kSkipped,        // the SUT declined the configuration, or the case is ill-conditioned
  kInvalid,        // not a legal convolution
  kCrashed,        // the SUT died on a signal or returned an error
  kHung,           // the SUT did not finish within the time limit
};

const char* VerdictName(Verdict v);  // passed, failed, shape_mismatch, unwritten, …
// A discrepancy is what a campaign reports and shrinks.
inline bool IsDiscrepancy(Verdict v) {
  return v == Verdict::kFailed || v == Verdict::kShapeMismatch || v == Verdict::kUnwritten ||
         v == Verdict::kCrashed || v == Verdict::kHung;
}

}  // namespace convparity
