// What a campaign checks case `index` as, and against which SUTs: the graph cases (chains …) its
// graph SUTs get besides single convolutions, and the members a default campaign adds per case. It
// asks the SUT registry (families decide which names run graphs), never a family's own header.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/conv_case.h"
#include "core/conv_problem.h"
#include "harness/suts/sut_config.h"

namespace convparity {

// A campaign makes every kGraphEvery-th case a graph of a form other than conv (core/case_graphs.h;
// those forms take turns) when one of its SUTs runs graphs and the graph's multiply-adds stay
// within `max_macs`.
constexpr int64_t kGraphEvery = 4;
const GraphForm& CampaignGraphForm(const ConvProblem& p, const std::vector<std::string>& suts,
                                   const SutConfig& config, int64_t max_macs, int64_t index);
// The SUTs a campaign checks case `index` against: `suts`, and when they are the default set (the
// user named none) also the registry's DefaultCaseSuts(seed, index) (a random transform
// pipeline). A graph case goes only to those that run graphs (as what they stand for in `config`).
std::vector<std::string> CampaignCaseSuts(const std::vector<std::string>& suts,
                                          const SutConfig& config, bool default_suts, uint64_t seed,
                                          int64_t index, const GraphForm& form = ConvForm());

}  // namespace convparity
