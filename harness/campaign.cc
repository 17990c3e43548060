#include "harness/campaign.h"

#include <rapidcheck.h>

#include <chrono>
#include <cstdio>
#include <memory>

#include "core/descriptor.h"
#include "core/prng.h"
#include "generators/problem_gen.h"
#include "harness/sut_registry.h"

namespace convparity {

Result<CampaignStats> RunCampaign(const CampaignOptions& options,
                                  const std::function<void(const Finding&)>& on_finding) {
  std::vector<std::string> names = options.suts.empty() ? OurSutNames() : options.suts;
  std::vector<std::unique_ptr<ConvSut>> suts;
  for (const std::string& name : names) {
    Result<std::unique_ptr<ConvSut>> sut = MakeSut(name);
    if (!sut.ok()) return sut.status();
    suts.push_back(std::move(sut).value());
  }
  const std::vector<Direction> directions =
      options.directions.empty() ? AllDirections() : options.directions;
  ProblemSpace space;
  space.ranks = options.dims;
  space.max_macs = options.max_macs;
  const rc::Gen<ConvProblem> gen = GenProblem(space);
  rc::Random random(options.seed);
  Prng case_seeds(options.seed);

  CampaignStats stats;
  const auto start = std::chrono::steady_clock::now();
  auto elapsed = [&] {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  };
  double next_progress = 10;
  for (int64_t i = 0;; ++i) {
    if (options.max_cases > 0 && stats.cases >= options.max_cases) break;
    if (options.max_cases == 0 && elapsed() >= options.seconds) break;
    // Sizes sweep 0..100 as in a RapidCheck run, so small problems come often.
    const ConvProblem p = gen(random.split(), static_cast<int>(i % 101)).value();
    const Direction d = directions[i % directions.size()];
    const Fill fill = options.fills[(i / directions.size()) % options.fills.size()];
    const uint64_t seed = case_seeds.Next();
    const PreparedCase prepared = PrepareCase(ConvCase{p, d, "", fill, seed});
    for (auto& sut : suts) {
      ConvCase c{p, d, sut->name(), fill, seed};
      CaseOutcome out = RunPrepared(prepared, *sut);
      ++stats.cases;
      ++stats.verdicts[c.sut][VerdictName(out.verdict)];
      if (IsDiscrepancy(out.verdict)) {
        stats.findings.push_back({c, out});
        on_finding(stats.findings.back());
      }
    }
    if (!options.quiet && elapsed() >= next_progress) {
      std::fprintf(stderr, "[convparity] %lld cases, %.0f/s, %zu discrepancies, %.0f/%.0f s\n",
                   static_cast<long long>(stats.cases), stats.cases / elapsed(),
                   stats.findings.size(), elapsed(), options.seconds);
      next_progress += 10;
    }
  }
  stats.seconds = elapsed();
  return stats;
}

}  // namespace convparity
