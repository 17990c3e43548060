#include "core/verdict.h"

namespace convparity {

const char* VerdictName(Verdict v) {
  switch (v) {
    case Verdict::kPassed:
      return "passed";
    case Verdict::kFailed:
      return "failed";
    case Verdict::kShapeMismatch:
      return "shape_mismatch";
    case Verdict::kUnwritten:
      return "unwritten";
    case Verdict::kMistrusted:
      return "mistrusted";
    case Verdict::kSkipped:
      return "skipped";
    case Verdict::kInvalid:
      return "invalid";
    case Verdict::kCrashed:
      return "crashed";
    case Verdict::kHung:
      return "hung";
    case Verdict::kBrokenPromise:
      return "broken_promise";
  }
  return "?";
}

const char* SymptomName(Symptom s) {
  switch (s) {
    case Symptom::kNone:
      return "";
    case Symptom::kPrecision:
      return "precision";
    case Symptom::kWrong:
      return "wrong";
  }
  return "?";
}

Result<Symptom> ParseSymptom(const std::string& name) {
  for (int i = 0; i <= static_cast<int>(kLastSymptom); ++i)
    if (name == SymptomName(static_cast<Symptom>(i))) return static_cast<Symptom>(i);
  return Status::Invalid("expected a symptom: precision, wrong (or none), got '" + name + "'");
}

Result<Verdict> ParseExpectedVerdict(const std::string& name) {
  if (name == "parity") return Verdict::kPassed;
  if (name == "discrepancy") return Verdict::kFailed;
  std::string names;
  for (int i = 0; i <= static_cast<int>(kLastVerdict); ++i) {
    const Verdict v = static_cast<Verdict>(i);
    if (v == Verdict::kInvalid) continue;
    if (name == VerdictName(v)) return v;
    names += std::string(names.empty() ? "" : ", ") + VerdictName(v);
  }
  return Status::Invalid("expected a verdict: " + names + " (or parity, discrepancy)");
}

}  // namespace convparity
