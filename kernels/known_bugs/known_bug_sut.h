// Internal to kernels/known_bugs: the shape every reproduction shares and the operand arithmetic
// they use to bend our direct kernel (kernels/conv_loops.h) the way an original bug did.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "core/sut.h"
#include "kernels/conv_loops.h"
#include "kernels/known_bugs/known_bugs.h"

namespace convparity {
namespace known_bugs {

// Every reproduction adds in the same order as the default DirectConv, so that off its wrong path
// it is bitwise identical to it.
constexpr SumOrder kOrder = SumOrder::kSequential;

// A reproduction: validates like DirectConv, runs DirectConv's path unless the original's wrong
// path is taken, and then runs RunWrong instead.
class KnownBugSut : public ConvSut {
 public:
  explicit KnownBugSut(const KnownBugInfo& info) : info_(info) {}
  std::string name() const override { return info_.id; }
  Status Run(const ConvProblem& p, Direction d, const ConvBuffers& b) override;

 protected:
  // Called only when info_.takes_wrong_path(p, d); p is valid.
  virtual void RunWrong(const ConvProblem& p, Direction d, const ConvBuffers& b) = 0;

 private:
  KnownBugInfo info_;
};

// The correct computation: what DirectConv does.
void RunCorrect(const ConvProblem& p, Direction d, const ConvBuffers& b);

// The same operand with its origin moved by `n` along one axis: channels (the inner axis of a
// data tensor, the Cx axis of the weight), the outer axis (batch, or the weight's Cy axis) or one
// spatial dimension.
Operand ShiftInner(Operand t, int64_t n);
Operand ShiftOuter(Operand t, int64_t n);
Operand ShiftSpatial(Operand t, int dim, int64_t n);

// One registry row: the description and a factory (none for transform bugs).
struct KnownBugEntry {
  KnownBugInfo info;
  std::function<std::unique_ptr<ConvSut>()> make;
};

// Each file of reproductions contributes its rows (the registry orders them as docs/BUGS.md).
std::vector<KnownBugEntry> GroupMappingBugs();  // group_mapping_bugs.cc
std::vector<KnownBugEntry> PaddingBugs();       // padding_bugs.cc
std::vector<KnownBugEntry> BlockingBugs();      // blocking_bugs.cc
std::vector<KnownBugEntry> TransformBugs();     // transform_bugs.cc: no factory here (the harness
                                                // runs their pipelines)

// A factory for a KnownBugSut subclass constructed from its info.
template <typename Sut>
KnownBugEntry Entry(const KnownBugInfo& info) {
  return {info, [info] { return std::unique_ptr<ConvSut>(new Sut(info)); }};
}

}  // namespace known_bugs
}  // namespace convparity
