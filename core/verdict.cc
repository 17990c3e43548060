#include "core/verdict.h"

namespace convparity {

const char* VerdictName(Verdict v) {
  switch (v) {
    case Verdict::kPassed: return "passed";
    case Verdict::kFailed: return "failed";
    case Verdict::kShapeMismatch: return "shape_mismatch";
    case Verdict::kUnwritten: return "unwritten";
    case Verdict::kMistrusted: return "mistrusted";
    case Verdict::kSkipped: return "skipped";
    case Verdict::kInvalid: return "invalid";
    case Verdict::kCrashed: return "crashed";
    case Verdict::kHung: return "hung";
    case Verdict::kBrokenPromise: return "broken_promise";
  }
  return "?";
}

}  // namespace convparity
