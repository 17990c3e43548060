// What the model writers' tests share: a case's vars filled exactly, the oracle's value of a graph
// over them, and the spellings each property tries.
#pragma once

#include <gtest/gtest.h>

#include <map>
#include <string>
#include <vector>

#include "core/case_graphs.h"
#include "core/graph.h"
#include "core/spelling.h"
#include "generators/fill.h"
#include "oracles/graph_oracle.h"

namespace convparity {
namespace model_test {

// A case's vars in direction d, filled exactly, each in the memory order its graph's var stores it.
struct FilledVars {
  std::map<std::string, std::vector<float>> memory;
  CaseBuffers buffers;
};
inline FilledVars Fill(const ConvProblem& p, const GraphForm& form, Direction d, uint64_t seed) {
  FilledVars f;
  const CaseInputs in = FillInputs(p, d, Fill::kExact, seed, form);
  for (const CaseVar& v : CaseVars(form, p, d))
    f.memory[v.name] = ToMemoryOrder(in.Get(v.name), v.memory_order);
  for (const auto& [name, values] : f.memory) f.buffers.vars[name] = values.data();
  return f;
}

// The graph's value by the oracle, its vars bound to `vars`.
inline std::vector<double> Evaluate(const Graph& g, const GraphInputs& vars) {
  Result<GraphOracleOutput> out = ComputeGraph(g, vars, "", {}, false);
  EXPECT_TRUE(out.ok()) << out.status().message();
  return out.ok() ? out->result.values : std::vector<double>{};
}
// Its vars bound to `f` in the shapes the graph gives them (a multiplier weight has its own shape
// over the same memory).
inline std::vector<double> Evaluate(const Graph& g, const FilledVars& f) {
  GraphInputs vars;
  for (const Node& n : g.nodes)
    if (n.op == OpKind::kVar) vars[n.name] = HostTensor{n.shape, f.memory.at(n.name)};
  return Evaluate(g, vars);
}

// The plain spelling (the most common in campaigns), every value of every way one at a time, and
// `together` (spelling texts).
inline std::vector<Spelling> SpellingsToTry(const std::vector<const char*>& together) {
  std::vector<Spelling> out{Spelling{}};
  for (const SpellingField& f : SpellingFields())
    for (size_t v = 1; v < f.values.size(); ++v) {
      Spelling s;
      f.set(s, static_cast<int>(v));
      out.push_back(s);
    }
  for (const char* text : together) out.push_back(*ParseSpellingText(text));
  return out;
}

}  // namespace model_test
}  // namespace convparity
