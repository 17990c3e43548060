// Checks one case: fill → oracle → system under test → judge. The unit of work of properties,
// campaigns, repro and the CI gate.
#pragma once

#include <memory>
#include <string>

#include "core/conv_case.h"
#include "core/conv_problem.h"
#include "core/sut.h"
#include "harness/judge.h"

namespace convparity {

struct CaseTiming {  // seconds
  double fill = 0, oracle = 0, sut = 0, compare = 0;
};

struct CaseOutcome {
  Verdict verdict = Verdict::kPassed;
  std::string reason;  // why skipped / invalid / crashed, or a one-line summary of the mismatch
  Judgement judgement;
  CaseTiming timing;
};

// Never throws; invalid or over-limit configurations give Verdict::kInvalid with the message.
CaseOutcome CheckCase(const ConvCase& c, ConvSut& sut, const Limits& limits = {});

}  // namespace convparity
