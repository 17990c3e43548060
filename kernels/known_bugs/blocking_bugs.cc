// Reproductions of bugs in blocked (tiled, vectorised) loops: the remainder of a block of kernel
// taps or of channels handled wrongly. Each is right whenever the loop has no such remainder.
#include <algorithm>

#include "kernels/known_bugs/known_bug_sut.h"

namespace convparity {
namespace known_bugs {
namespace {

// ---- tvm-conv3d-transpose-k7 ----------------------------------------------------------------
// TVM's conv3d_transpose disagreed with PyTorch for kernel sizes above 5; its tests never used a
// larger kernel. The report gives no mechanism, so we model the common one for "right up to size
// N": a schedule that unrolls the tap loop of each spatial dimension over a fixed tile of 5 taps
// and never runs the remainder, so taps 5, 6, … of any dimension are skipped. Rank 3, transposed,
// forward only (the operator conv3d_transpose itself); any kernel extent ≤ 5 is exact.

constexpr int64_t kTapTile = 5;

bool TvmConv3dTransposeK7WrongPath(const ConvProblem& p, Direction d) {
  if (p.rank != 3 || !p.transposed || d != Direction::kForward) return false;
  for (int i = 0; i < 3; ++i)
    if (p.kernel[i] > kTapTile) return true;
  return false;
}

class TvmConv3dTransposeK7 : public KnownBugSut {
 public:
  using KnownBugSut::KnownBugSut;

 protected:
  void RunWrong(const ConvProblem& p, Direction d, const ConvBuffers& b) override {
    const DirectOperands ops = OperandsFor(p, d, b);
    ConvLoopSpec spec = MakeLoopSpec(p);
    // The weight operand keeps the true strides: taps 0–4 are read where they are.
    for (int i = 0; i < 3; ++i) spec.kernel[i] = std::min(spec.kernel[i], kTapTile);
    RunDirect(p, d, spec, ops.x, ops.w, ops.y, ops.bias, kOrder);
  }
};

// ---- pytorch-50042 --------------------------------------------------------------------------
// PyTorch 1.7's CPU depthwise weight gradient (oneDNN's JIT depthwise backward-weights kernel) was
// wrong for C = groups = 24 with kernel 3, stride 2, pad 1; after a workaround for exactly 24 it
// was reopened for 48 and 96, and PyTorch then kept oneDNN away from groups = 24·n (PRs #52313,
// #54015). The report shows which channel counts fail, not why. Modelled mechanism consistent with
// that: the kernel walks channels in blocks of 8 (one AVX2 register) unrolled three at a time, i.e.
// passes of 24 channels; in a full pass with a strided input, the third block's input pointer is
// advanced by one block instead of two, so channels 16–23 of the pass correlate their output
// gradient with the input of channels 8–15. A partial last pass (fewer than 24 channels) and stride
// 1 are right. Depthwise with multiplier 1 (groups == C_in == C_out), ordinary, bwd_weight only.

constexpr int64_t kBlock = 8;
constexpr int64_t kPass = 3 * kBlock;

bool Pytorch50042WrongPath(const ConvProblem& p, Direction d) {
  if (p.transposed || d != Direction::kBackwardWeight) return false;
  if (p.groups != p.in_channels || p.groups != p.out_channels || p.groups < kPass) return false;
  for (int i = 0; i < p.rank; ++i)
    if (p.stride[i] > 1) return true;
  return false;
}

class Pytorch50042 : public KnownBugSut {
 public:
  using KnownBugSut::KnownBugSut;

 protected:
  void RunWrong(const ConvProblem& p, Direction d, const ConvBuffers& b) override {
    RunCorrect(p, d, b);
    const DirectOperands ops = OperandsFor(p, d, b);
    ConvLoopSpec block = MakeLoopSpec(p);  // X = input, Y = grad_output, one channel per group
    block.groups = kBlock;
    for (int64_t pass = 0; pass + kPass <= p.groups; pass += kPass) {
      const int64_t third = pass + 2 * kBlock;
      GatherW(block, ShiftInner(ops.x, pass + kBlock), ShiftInner(ops.y, third),
              ShiftOuter(ops.w, third), kOrder);
    }
  }
};

}  // namespace

std::vector<KnownBugEntry> BlockingBugs() {
  return {
      Entry<TvmConv3dTransposeK7>(
          {"tvm-conv3d-transpose-k7",
           "conv3d_transpose wrong for kernel sizes above 5 (modelled: taps past a 5-tap unrolled "
           "tile skipped)",
           "BUGS.md (no public issue number; TVM's conv3d_transpose tests used kernels <= 5)",
           "fwd:t3d_ic2_oc2_i3x3x3_k7x7x7", TvmConv3dTransposeK7WrongPath}),
      Entry<Pytorch50042>({"pytorch-50042",
                           "depthwise weight gradient with stride 2 wrong for C = 24n (modelled: "
                           "the third 8-channel "
                           "block of each 24-channel pass reads the second block's input)",
                           "https://github.com/pytorch/pytorch/issues/50042",
                           "bwd_weight:2d_g24_ic24_oc24_i6x6_k3x3_s2x2_p1x1",
                           Pytorch50042WrongPath}),
  };
}

}  // namespace known_bugs
}  // namespace convparity
