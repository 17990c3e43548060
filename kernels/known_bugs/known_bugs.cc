#include "kernels/known_bugs/known_bugs.h"

#include <algorithm>

#include "kernels/known_bugs/known_bug_sut.h"

namespace convparity {
namespace known_bugs {

Status KnownBugSut::Run(const ConvProblem& p, Direction d, const ConvBuffers& b) {
  CP_RETURN_IF_ERROR(Validate(p));
  if (info_.takes_wrong_path(p, d))
    RunWrong(p, d, b);
  else
    RunCorrect(p, d, b);
  return Status::Ok();
}

void RunCorrect(const ConvProblem& p, Direction d, const ConvBuffers& b) {
  DirectOperands ops = OperandsFor(p, d, b);
  RunDirect(p, d, MakeLoopSpec(p), ops.x, ops.w, ops.y, ops.bias, kOrder);
}

Operand ShiftInner(Operand t, int64_t n) {
  t.data += n * t.inner_stride;
  return t;
}

Operand ShiftOuter(Operand t, int64_t n) {
  t.data += n * t.outer_stride;
  return t;
}

Operand ShiftSpatial(Operand t, int dim, int64_t n) {
  t.data += n * t.spatial_stride[dim];
  return t;
}

namespace {

const std::vector<KnownBugEntry>& Registry() {
  static const std::vector<KnownBugEntry> entries = [] {
    std::vector<KnownBugEntry> all;
    for (auto part : {GroupMappingBugs, PaddingBugs, BlockingBugs, TransformBugs})
      for (KnownBugEntry& e : part()) all.push_back(std::move(e));
    // The order of BUGS.md, so that listings read like the design document.
    static const char* const kBugsMdOrder[] = {
        "tvm-9465",       "tvm-7912",      "tvm-conv3d-transpose-k7",
        "tvm-3264",       "tvm-5758",      "onnxruntime-9370",
        "xnnpack-1951",   "pytorch-19912", "pytorch-50042",
        "onednn-DNNL-796", "tvm-9954",         "tvm-6203",        "tvm-10294",
        "tvm-layout-fold"};
    auto rank = [](const KnownBugEntry& e) {
      auto it = std::find_if(std::begin(kBugsMdOrder), std::end(kBugsMdOrder),
                             [&](const char* id) { return e.info.id == std::string(id); });
      return it - std::begin(kBugsMdOrder);
    };
    std::stable_sort(all.begin(), all.end(), [&](const KnownBugEntry& a, const KnownBugEntry& b) {
      return rank(a) < rank(b);
    });
    return all;
  }();
  return entries;
}

const KnownBugEntry* Find(const std::string& id) {
  for (const KnownBugEntry& e : Registry())
    if (id == e.info.id) return &e;
  return nullptr;
}

}  // namespace
}  // namespace known_bugs

const std::vector<KnownBugInfo>& KnownBugs() {
  static const std::vector<KnownBugInfo> all = [] {
    std::vector<KnownBugInfo> infos;
    for (const known_bugs::KnownBugEntry& e : known_bugs::Registry()) infos.push_back(e.info);
    return infos;
  }();
  return all;
}

std::vector<KnownBugInfo> KnownBugsOfKind(KnownBugKind kind) {
  std::vector<KnownBugInfo> of_kind;
  for (const KnownBugInfo& info : KnownBugs())
    if (info.kind == kind) of_kind.push_back(info);
  return of_kind;
}

std::vector<std::string> KnownBugIds(KnownBugKind kind) {
  std::vector<std::string> ids;
  for (const KnownBugInfo& info : KnownBugsOfKind(kind)) ids.push_back(info.id);
  return ids;
}

const KnownBugInfo* FindKnownBug(const std::string& id) {
  for (const KnownBugInfo& info : KnownBugs())
    if (info.id == id) return &info;
  return nullptr;
}

std::unique_ptr<ConvSut> MakeKnownBug(const std::string& id) {
  const known_bugs::KnownBugEntry* e = known_bugs::Find(id);
  return e && e->make ? e->make() : nullptr;
}

}  // namespace convparity
