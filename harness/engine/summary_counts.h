// Counting into a campaign summary (reports/summary_json.h): each case checked, each finding, and
// the summaries of other workers or shards. reports/ writes and reads summaries; this is where
// they are added up.
#pragma once

#include <cstdint>
#include <string>

#include "core/conv_case.h"
#include "core/verdict.h"
#include "reports/summary_json.h"

namespace convparity {

// Counts one case. Fill and oracle time belong to the problem and are shared by every SUT that
// checks it: pass count_shared_time = false for all but the first SUT of a prepared case (whose
// own oracle time, CaseTiming::own_oracle, still counts).
void CountCase(CampaignSummary* s, const ConvCase& c, const CaseOutcome& outcome,
               bool count_shared_time = true);
// Counts a discrepancy in its bucket; the first one of a bucket records the report file and when.
void CountFinding(CampaignSummary* s, const std::string& signature, const ConvCase& minimized,
                  Verdict verdict, Symptom symptom, const std::string& report_file,
                  int64_t case_index, double seconds);
// A discrepancy counted in an existing bucket (its minimal case's signature is the bucket's),
// seen at case `case_index`, `seconds` into the run: the bucket's last sighting when later than
// the one it has (negative: not known, the last sighting stays).
void CountHit(CampaignSummary* s, const std::string& signature, int64_t case_index = -1,
              double seconds = -1);
// A triage's cost; the first one of a bucket is its reported finding's. `cases_beside`: cases the
// campaign's workers checked while it ran.
void CountShrink(CampaignSummary* s, const std::string& signature, int64_t steps, int64_t calls,
                 bool bound_hit, bool cut_short, int64_t macs, double seconds,
                 int64_t cases_beside);
// Adds `other` (another worker's or shard's) to `s`: counts and times add up, start/end widen,
// elapsed is the longer one, a bucket keeps its earliest sighting and its latest, the series over
// time add up. Options, SUT versions and the record of mixed versions stay those of `s`.
void MergeSummary(CampaignSummary* s, const CampaignSummary& other);

}  // namespace convparity
