#include "harness/engine/case_schedule.h"

#include <algorithm>
#include <utility>

#include "core/case_graphs.h"
#include "harness/suts/sut_registry.h"

namespace convparity {

const GraphForm& CampaignGraphForm(const ConvProblem& p, const std::vector<std::string>& suts,
                                   const SutConfig& config, int64_t max_macs, int64_t index) {
  const bool graphs = std::any_of(suts.begin(), suts.end(),
                                  [&](const std::string& sut) { return RunsGraphs(sut, config); });
  if (!graphs || index % kGraphEvery != kGraphEvery - 1) return ConvForm();
  // The other forms take turns.
  const std::vector<GraphForm>& forms = GraphForms();
  const GraphForm& form = forms[1 + (index / kGraphEvery) % (forms.size() - 1)];
  return FormMacs(form, p) <= max_macs ? form : ConvForm();
}

std::vector<std::string> CampaignCaseSuts(const std::vector<std::string>& suts,
                                          const SutConfig& config, bool default_suts, uint64_t seed,
                                          int64_t index, const GraphForm& form) {
  std::vector<std::string> all;
  for (const std::string& sut : suts)
    if (form == ConvForm() || RunsGraphs(sut, config)) all.push_back(sut);
  if (!default_suts) return all;
  for (std::string& sut : DefaultCaseSuts(seed, index)) all.push_back(std::move(sut));
  return all;
}

}  // namespace convparity
