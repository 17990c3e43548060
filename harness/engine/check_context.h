// What checking a case depends on besides the case itself: the size limits it is held to before
// anything is allocated, and what the user's SUT names stand for. main() makes one from the command
// line and passes it down to the commands and runners, and a runner hands it to its worker
// processes on their command line (`convparity worker --limits … --suts …`), so no process-wide
// setting decides how a case is checked.
#pragma once

#include <string>

#include "core/conv_problem.h"
#include "core/status.h"
#include "harness/suts/sut_config.h"

namespace convparity {

struct CheckContext {
  Limits limits;   // CheckLimits: per-tensor elements, multiply-adds, any single extent
  SutConfig suts;  // --sut-map, --config, --allow-sut, --timeout: what MakeSut resolves names by
};

// The limits as a worker's argument, "elements,macs,extent" (e.g. "67108864,4294967296,1048576"),
// and back. The parse is strict: three positive numbers and nothing else.
std::string LimitsArgument(const Limits& limits);
Result<Limits> ParseLimitsArgument(const std::string& text);

}  // namespace convparity
