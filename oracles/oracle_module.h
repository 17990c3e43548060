// The oracle as a library that a process loads when it first needs it (oracle_loader.cc), not at
// start: LibTorch brings some 280 shared libraries, and loading them took about a second of every
// `convparity` start, a bad flag and a merge included, and of every host of a SUT that crashed.
// `libconvparity_oracle.so` (oracles/CMakeLists.txt) exports this table and nothing else; the
// loader forwards the functions of torch_oracle.h, graph_oracle.h and torch_f32_sut.h to it. Both
// sides are built together, so the table may speak C++.
#pragma once

#include <cstddef>
#include <memory>
#include <string>

#include "core/conv_problem.h"
#include "core/status.h"
#include "core/sut.h"
#include "core/tensor.h"
#include "oracles/graph_oracle.h"
#include "oracles/torch_oracle.h"

namespace convparity {

struct OracleModule {
  size_t size = sizeof(OracleModule);  // a library left from another build does not match
  Result<GraphOracleOutput> (*compute_graph)(const Graph& graph, const GraphInputs& vars,
                                             const std::string& wrt, const HostTensor& grad_output,
                                             bool with_magnitude);
  std::string (*torch_version)();
  std::string (*backend)();
  std::string (*backend_of)(const ConvProblem& p);
  std::unique_ptr<ConvSut> (*make_torch_f32_sut)(const std::string& name);
  std::string (*torch_f32_backend)(const std::string& name, const ConvProblem& p);
};

// The library's one exported symbol: extern "C" const OracleModule* convparity_oracle_module().
inline constexpr char kOracleModuleEntry[] = "convparity_oracle_module";

}  // namespace convparity
