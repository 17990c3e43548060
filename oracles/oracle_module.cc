// The table that libconvparity_oracle.so exports (oracle_module.h): the oracle's own functions.
#include "oracles/oracle_module.h"

#include "oracles/torch_f32_sut.h"

namespace convparity {
namespace {

const OracleModule kModule = {
    sizeof(OracleModule),
    &ComputeGraph,
    &TorchOracle::TorchVersion,
    [] { return TorchOracle::Backend(); },
    [](const ConvProblem& p) { return TorchOracle::Backend(p); },
    &MakeTorchF32Sut,
    &TorchF32Backend,
};

}  // namespace
}  // namespace convparity

extern "C" __attribute__((visibility("default"))) const convparity::OracleModule*
convparity_oracle_module() {
  return &convparity::kModule;
}
