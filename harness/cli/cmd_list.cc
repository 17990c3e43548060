// `convparity list`: what can be put under test.
#include <cstdio>
#include <nlohmann/json.hpp>

#include "harness/cli/commands.h"
#include "harness/suts/adapter_suts.h"
#include "harness/suts/sut_registry.h"
#include "harness/suts/transform_sut.h"
#include "kernels/known_bugs/known_bugs.h"

namespace convparity {

int RunList(const Flags& f, const SutConfig& config) {
  const auto suts = ListSuts(config);
  if (f.json) {
    nlohmann::json j = {{"directions", {"fwd", "bwd_data", "bwd_weight"}},
                        {"fills", {"exact", "uniform", "positive", "wide"}}};
    for (const auto& [name, what] : suts) {
      nlohmann::json sut = {{"name", name}, {"description", what}};
      if (IsAdapterSutName(name)) {  // adapters say whether they are built, and what they run
        sut["adapter"] = true;
        Result<std::vector<Direction>> directions = AdapterDirections(name);
        sut["built"] = directions.ok();
        sut["directions"] = nlohmann::json::array();
        if (directions.ok())
          for (Direction d : *directions) sut["directions"].push_back(DirectionName(d));
        if (Result<Capabilities> caps = AdapterCapabilities(name); caps.ok())
          sut["capabilities"] = CapabilitiesToJson(*caps);
      }
      j["suts"].push_back(sut);
    }
    for (const KnownBugInfo& bug : KnownBugs()) {
      nlohmann::json row = {{"id", bug.id},
                            {"sut", "known-bug:" + bug.id},
                            {"reference", bug.reference},
                            {"trigger", bug.trigger},
                            {"symptom", VerdictName(bug.symptom)}};
      if (bug.kind == KnownBugKind::kTransform)
        row["transform"] = std::string(kTransformSutPrefix) + bug.pipeline;
      j["known_bugs"].push_back(std::move(row));
    }
    for (const GraphForm& form : GraphForms())
      j["graph_forms"].push_back({{"name", form.name}, {"description", form.summary}});
    std::printf("%s\n", j.dump(2).c_str());
    return kExitParity;
  }
  std::printf("systems under test:\n");
  for (const auto& [name, what] : suts) std::printf("  %-36s %s\n", name.c_str(), what.c_str());
  std::printf("directions: fwd bwd_data bwd_weight (ordinary and transposed)\n");
  std::printf("fills: exact uniform positive wide (random = the last three)\n");
  std::printf("graph forms (--graph, a case file's \"graph\"):\n");
  for (const GraphForm& form : GraphForms())
    std::printf("  %-36s %s\n", form.name.c_str(), form.summary.c_str());
  return kExitParity;
}

}  // namespace convparity
