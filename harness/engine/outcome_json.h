// CaseOutcome as JSON: how a worker process hands a verdict back to the campaign. Not a user-facing
// file (reports are reports/report_json.h); it only has to round-trip.
#pragma once

#include <nlohmann/json.hpp>

#include "core/status.h"
#include "core/verdict.h"

namespace convparity {

nlohmann::json OutcomeToJson(const CaseOutcome& out);
Result<CaseOutcome> OutcomeFromJson(const nlohmann::json& j);
Result<Verdict> ParseVerdict(const std::string& name);

}  // namespace convparity
