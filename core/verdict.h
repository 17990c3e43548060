// The outcome of checking one case (docs/TOLERANCE.md, "Verdicts").
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "core/conv_problem.h"
#include "core/status.h"

namespace convparity {

enum class Verdict {
  kPassed,
  kFailed,         // values differ beyond the bound (exact mode: at all)
  kShapeMismatch,  // the SUT produced a result of another shape
  kUnwritten,      // the SUT left elements of the (poisoned) result untouched
  kMistrusted,     // passed, but over 70% of the reference is exactly zero where the problem's
                   // structure reaches: zeros of the data, which prove little
  kSkipped,        // the SUT declined the configuration, or the case is ill-conditioned
  kInvalid,        // not a legal convolution
  kCrashed,        // the SUT died on a signal or returned an error
  kHung,           // the SUT did not finish within the time limit
  kBrokenPromise,  // a transform pipeline broke a pass's structural promise
                   // (kernels/graph/passes.h), or a SUT its declaration (core/capabilities.h):
                   // it declined a case inside, or computed one outside
};
constexpr Verdict kLastVerdict = Verdict::kBrokenPromise;  // for loops over every verdict

const char* VerdictName(Verdict v);  // passed, failed, shape_mismatch, unwritten, …
// The verdict a case file's "expect" names: any verdict's name but invalid (a case that is not a
// legal convolution proves nothing), or "parity" for passed and "discrepancy" for failed, the names
// of case files written before `check` compared verdicts exactly.
Result<Verdict> ParseExpectedVerdict(const std::string& name);
// What went wrong in a failed result, told from its wrong elements (harness/engine/symptom.h): with
// the direction, what buckets a failed discrepancy before its features do (core/features.h).
enum class Symptom {
  kNone,       // not a failed verdict (or not told)
  kPrecision,  // every wrong element within what summing in a narrower type explains (bfloat16 …)
  kWrong,      // whole wrong values: any other failure
};
constexpr Symptom kLastSymptom = Symptom::kWrong;
const char* SymptomName(Symptom s);                     // "" (none), precision, wrong
Result<Symptom> ParseSymptom(const std::string& name);  // any SymptomName, "" for none

// A discrepancy is what a campaign reports and shrinks.
inline bool IsDiscrepancy(Verdict v) {
  return v == Verdict::kFailed || v == Verdict::kShapeMismatch || v == Verdict::kUnwritten ||
         v == Verdict::kCrashed || v == Verdict::kHung || v == Verdict::kBrokenPromise;
}

// What judging found (harness/engine/judge.h computes it).
struct ElementReport {
  Shape index;  // logical coordinates (N, C, spatial… / weight axes)
  double expected = 0, got = 0, error = 0, bound = 0;
};

struct Judgement {
  Verdict verdict = Verdict::kPassed;
  int64_t elements = 0;
  int64_t mismatches = 0;
  int64_t unwritten = 0;
  double max_abs_error = 0;
  double max_bound_use = 0;  // max error/bound (random mode; exact mode: 0 or inf)
  double max_rel_error = 0;  // reported, never judged: it explodes where terms cancel
  double zero_share = 0;     // of the reference
  // Of the elements the problem's structure reaches, the share exactly zero in the reference: the
  // data's zeros (over 70%: mistrusted). Computed only when zero_share is over 70%; otherwise
  // zero_share, which bounds it.
  double data_zero_share = 0;
  std::optional<ElementReport> first, worst;
  Symptom symptom = Symptom::kNone;  // of a failed verdict (harness/engine/symptom.h)
};

struct CaseTiming {  // seconds
  double fill = 0, oracle = 0, sut = 0, compare = 0;
  // An isolated case's share of its worker's other time (harness/engine/case_runner.h): protocol,
  // reading the request, writing the answers and starting the worker; idle, the worker waiting
  // for the request. With the phases above they add up to the worker's whole time.
  double protocol = 0, idle = 0;
  // Of `oracle`, this SUT's check alone (the reach of a mostly-zero reference, judge.h); the rest
  // prepared the case, for every SUT it names.
  double own_oracle = 0;
};

// What a SUT said about its last run (ConvSut::LastRunNotes): which of its implementations ran,
// and whether that one is inexact even on small integers (Winograd's transforms, for one), so that
// an exact fill is judged within the random-mode error bound instead of bitwise.
struct RunNotes {
  std::string implementation;  // e.g. oneDNN's "jit:avx2"; empty: not said
  bool inexact = false;

  bool empty() const { return implementation.empty() && !inexact; }
  bool operator==(const RunNotes& o) const {
    return implementation == o.implementation && inexact == o.inexact;
  }
};

struct CaseOutcome {
  Verdict verdict = Verdict::kPassed;
  std::string reason;  // why skipped / invalid / crashed, or a one-line summary of the mismatch
  Judgement judgement;
  CaseTiming timing;
  RunNotes notes;  // of the SUT's run, when it ran and succeeded
  // Ran out of its first time limit, then finished when run again alone under a longer one
  // (harness/engine/time_limits.h): slow, not hung.
  bool slow = false;
  // Never ran: a campaign's time budget ran out first. Counted nowhere.
  bool abandoned = false;
};

}  // namespace convparity
