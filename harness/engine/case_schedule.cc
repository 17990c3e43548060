#include "harness/engine/case_schedule.h"

#include <algorithm>
#include <utility>

#include "core/graph.h"
#include "harness/suts/sut_registry.h"

namespace convparity {

GraphForm CampaignGraphForm(const ConvProblem& p, const std::vector<std::string>& suts,
                            const SutConfig& config, int64_t max_macs, int64_t index) {
  const bool graphs = std::any_of(suts.begin(), suts.end(),
                                  [&](const std::string& sut) { return RunsGraphs(sut, config); });
  return graphs && index % kChainEvery == kChainEvery - 1 &&
                 CaseGraphMacs(p, GraphForm::kChain) <= max_macs
             ? GraphForm::kChain
             : GraphForm::kConv;
}

std::vector<std::string> CampaignCaseSuts(const std::vector<std::string>& suts,
                                          const SutConfig& config, bool default_suts, uint64_t seed,
                                          int64_t index, GraphForm form) {
  std::vector<std::string> all;
  for (const std::string& sut : suts)
    if (form == GraphForm::kConv || RunsGraphs(sut, config)) all.push_back(sut);
  if (!default_suts) return all;
  for (std::string& sut : DefaultCaseSuts(seed, index)) all.push_back(std::move(sut));
  return all;
}

}  // namespace convparity
