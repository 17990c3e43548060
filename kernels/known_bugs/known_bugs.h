// Faithful reproductions of historical convolution bugs (docs/BUGS.md), as systems under test named
// `known-bug:<id>` by the harness. Each one is our direct kernel, bit for bit, except on the path
// the original code took wrongly, where it bends the loop spec or the operands the way that code
// did. They exist to prove that a campaign finds such bugs and shrinks them to their essence.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "core/conv_problem.h"
#include "core/sut.h"
#include "core/verdict.h"

namespace convparity {

// What a reproduction is: our direct kernel bent where the original was wrong, or a transform
// pipeline with a buggy pass (kernels/graph/buggy_passes.h), run by the harness's transform SUT.
enum class KnownBugKind { kKernel, kTransform };

// One row of the one table of known bugs, whatever their kind.
struct KnownBugInfo {
  std::string id;         // the public id, e.g. "tvm-9465"; the SUT is known-bug:<id>
  std::string summary;    // one line: what the original code got wrong
  std::string reference;  // the public report or fix
  std::string trigger;    // a case descriptor ("dir:problem", core/descriptor.h) that shows it
  // kKernel: true where the reproduction takes the original's wrong path. Elsewhere it is
  // DirectConv exactly; on the path the result differs wherever the original's did (usually, not
  // for every input).
  bool (*takes_wrong_path)(const ConvProblem& p, Direction d) = nullptr;
  KnownBugKind kind = KnownBugKind::kKernel;
  // kTransform: the pipeline it stands for, without "transform:" (e.g. "legalize@tvm-9954").
  std::string pipeline;
  // The verdict its trigger and the case shrunk from it get, in exact and random fill: what the
  // regression corpus expects of them (`convparity check` compares it exactly).
  Verdict symptom = Verdict::kFailed;
};

// Kernel bugs in the order of docs/BUGS.md, then transform bugs.
const std::vector<KnownBugInfo>& KnownBugs();
std::vector<KnownBugInfo> KnownBugsOfKind(KnownBugKind kind);
std::vector<std::string> KnownBugIds(KnownBugKind kind);
// nullptr when `id` is unknown.
const KnownBugInfo* FindKnownBug(const std::string& id);
// A kernel bug's reproduction; nullptr for an unknown id or another kind.
std::unique_ptr<ConvSut> MakeKnownBug(const std::string& id);

}  // namespace convparity
