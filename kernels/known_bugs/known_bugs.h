// Faithful reproductions of historical convolution bugs (BUGS.md), as systems under test named
// `known-bug:<id>` by the harness. Each one is our direct kernel, bit for bit, except on the path
// the original code took wrongly, where it bends the loop spec or the operands the way that code
// did. They exist to prove that a campaign finds such bugs and shrinks them to their essence.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "core/conv_problem.h"
#include "core/sut.h"

namespace convparity {

struct KnownBugInfo {
  const char* id;         // the public id, e.g. "tvm-9465"; also the SUT's name()
  const char* summary;    // one line: what the original code got wrong
  const char* reference;  // the public report or fix
  const char* trigger;    // a case descriptor ("dir:problem", core/descriptor.h) that shows it
  // True where the reproduction takes the original's wrong path. Elsewhere it is DirectConv
  // exactly; on the path the result differs wherever the original's did (usually, not for every
  // input).
  bool (*takes_wrong_path)(const ConvProblem& p, Direction d);
};

// In a stable order (the order of BUGS.md).
std::vector<std::string> KnownBugIds();
// nullptr when `id` is unknown.
const KnownBugInfo* FindKnownBug(const std::string& id);
std::unique_ptr<ConvSut> MakeKnownBug(const std::string& id);

}  // namespace convparity
