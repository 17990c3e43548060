// Reproductions of bugs in how grouped convolutions map channels: which weight element, which input
// channel or which memory position a group's channel pair reads. Each is correct for groups == 1.
#include <vector>

#include "core/tensor.h"
#include "kernels/known_bugs/known_bug_sut.h"

namespace convparity {
namespace known_bugs {
namespace {

// ---- tvm-9465 -------------------------------------------------------------------------------
// TVM's first-order gradient of nn.conv2d computed dx as conv2d_transpose(dy, w, groups). The
// weight of a transposed conv is IOHW in PyTorch's sense — here (C_out, C_in/g, k…), exactly how w
// is stored — but TVM declared it "OIHW", and the grouped conv2d_transpose that PR #9465 added
// indexed it that way: as a (C_in, C_out/g, k…) tensor, element [cx][cy mod C_out/g]. For groups ==
// 1 the gradient took the ungrouped conv2d_transpose, which was right. The misread is of the
// logical tensor (TVM transforms any other kernel layout to OIHW before such an op), so here, for a
// grouped ordinary bwd_data, the weight is gathered into logical order and read as a contiguous
// tensor of the misread shape, one group at a time. Both readings coincide when C_in/g == 1
// (depthwise, with or without multiplier: the report's own x (1,32,…), w (32,1,3,3) failed in type
// checking, not in values), so values change only with C_in/g > 1 and groups > 1.

bool Tvm9465WrongPath(const ConvProblem& p, Direction d) {
  return !p.transposed && d == Direction::kBackwardData && p.groups > 1;
}

class Tvm9465 : public KnownBugSut {
 public:
  using KnownBugSut::KnownBugSut;

 protected:
  void RunWrong(const ConvProblem& p, Direction d, const ConvBuffers& b) override {
    const DirectOperands ops = OperandsFor(p, d, b);
    const ConvLoopSpec spec = MakeLoopSpec(p);  // X = dx (C_in), Y = dy (C_out)
    const Shape shape = p.weight_shape();
    const std::vector<float> memory(b.weight, b.weight + NumElements(shape));
    HostTensor logical = FromMemoryOrder(shape, memory, WeightMemoryOrder(p));
    Shape misread = shape;
    misread[0] = p.in_channels;
    misread[1] = p.out_channels / p.groups;
    const Shape strides = ContiguousStrides(misread);
    ConvLoopSpec one_group = spec;
    one_group.groups = 1;
    for (int64_t g = 0; g < p.groups; ++g) {
      // The gather reads w[cy_local · outer + cx_local · inner]: make that the misread
      // element [g·Cx/g + cx_local][cy_local].
      Operand w{logical.values.data() + g * spec.cx_per_group * strides[0],
                strides[1],
                strides[0],
                {0, 0, 0}};
      for (int i = 0; i < p.rank; ++i) w.spatial_stride[i] = strides[2 + i];
      GatherX(one_group, ShiftInner(ops.y, g * spec.cy_per_group), w, nullptr,
              ShiftInner(ops.x, g * spec.cx_per_group), kOrder);
    }
  }
};

// ---- tvm-3264 -------------------------------------------------------------------------------
// TVM recognised a depthwise conv2d only when groups == C_in == C_out, so a depthwise convolution
// with a channel multiplier m > 1 (groups == C_in, C_out = m·C_in) fell to a generic path that laid
// the C·m output channels out multiplier-major: output channel oc read input channel oc mod C_in
// instead of oc / m (its own weight row and bias stay right). That is m depthwise convolutions with
// multiplier 1, the j-th writing output channels [j·C_in, (j+1)·C_in). Forward only: the report is
// about inference.

bool Tvm3264WrongPath(const ConvProblem& p, Direction d) {
  return !p.transposed && d == Direction::kForward && p.groups > 1 && p.groups == p.in_channels &&
         p.out_channels != p.in_channels;
}

class Tvm3264 : public KnownBugSut {
 public:
  using KnownBugSut::KnownBugSut;

 protected:
  void RunWrong(const ConvProblem& p, Direction d, const ConvBuffers& b) override {
    const DirectOperands ops = OperandsFor(p, d, b);
    ConvLoopSpec replica = MakeLoopSpec(p);
    const int64_t c = p.in_channels;
    replica.groups = c;
    replica.cx_per_group = replica.cy_per_group = 1;
    for (int64_t j = 0; j < p.out_channels / c; ++j)
      GatherY(replica, ops.x, ShiftOuter(ops.w, j * c), ops.bias ? ops.bias + j * c : nullptr,
              ShiftInner(ops.y, j * c), kOrder);
  }
};

// ---- xnnpack-1951 ---------------------------------------------------------------------------
// xnn_deconvolution2d_nhwc_f32 gave wrong results with groups 2 (kernel 3, stride 1, 2×2 input);
// the report shows the symptom, not the cause. Modelled mechanism: XNNPACK's NHWC operators take
// the pixel stride separately from the channel counts, and the grouped deconvolution walked its
// input with the group's channel count (C_in/g) as the pixel stride instead of C_in. A group's
// channel offset inside a pixel is right; which pixel it reads is not, except at the very first
// one. The misread stays inside the buffer (largest offset (N·H·W + g − 1)·C_in/g − 1 <
// N·H·W·C_in). Only channels-last data, transposed, groups > 1, forward; 1-D runs as 2-D with
// height 1.

bool Xnnpack1951WrongPath(const ConvProblem& p, Direction d) {
  return p.transposed && d == Direction::kForward && p.groups > 1 &&
         p.data_layout == DataLayout::kChannelsLast && p.rank <= 2;
}

class Xnnpack1951 : public KnownBugSut {
 public:
  using KnownBugSut::KnownBugSut;

 protected:
  void RunWrong(const ConvProblem& p, Direction d, const ConvBuffers& b) override {
    const DirectOperands ops = OperandsFor(p, d, b);
    // The transposed conv's input is the Y side; its strides as if it had C_in/g channels.
    Shape narrow = p.input_shape();
    narrow[1] = p.in_channels / p.groups;
    const Operand input = DataOperand(p, narrow, b.input);
    RunDirect(p, d, MakeLoopSpec(p), ops.x, ops.w, input, ops.bias, kOrder);
  }
};

// ---- pytorch-19912 --------------------------------------------------------------------------
// PyTorch 1.1 on CPU sent a grouped 1×1 conv2d (C_in 4, C_out 16, groups 2) to MKL-DNN, which
// returned an all-zero output; "many other combinations of input and output channels work fine".
// The cause inside MKL-DNN is not in the report, so the reproduction keeps to the reported region —
// 2-D, groups > 1, every kernel extent 1, more output than input channels per group — and there
// makes each group's reduction over its input channels empty: the output is the bias alone.

bool Pytorch19912WrongPath(const ConvProblem& p, Direction d) {
  return !p.transposed && d == Direction::kForward && p.rank == 2 && p.groups > 1 &&
         p.kernel[0] == 1 && p.kernel[1] == 1 &&
         p.out_channels / p.groups > p.in_channels / p.groups;
}

class Pytorch19912 : public KnownBugSut {
 public:
  using KnownBugSut::KnownBugSut;

 protected:
  void RunWrong(const ConvProblem& p, Direction d, const ConvBuffers& b) override {
    const DirectOperands ops = OperandsFor(p, d, b);
    ConvLoopSpec spec = MakeLoopSpec(p);
    spec.cx_per_group = 0;
    RunDirect(p, d, spec, ops.x, ops.w, ops.y, ops.bias, kOrder);
  }
};

}  // namespace

std::vector<KnownBugEntry> GroupMappingBugs() {
  return {
      Entry<Tvm9465>(
          {"tvm-9465",
           "grouped conv2d gradient: conv2d_transpose read the weight as OIHW instead of "
           "IOHW ((C_in, C_out/g) where (C_out, C_in/g) is stored)",
           "https://github.com/apache/tvm/pull/9465", "bwd_data:2d_g2_ic4_oc8_i6x6_k3x3_p1x1",
           Tvm9465WrongPath}),
      Entry<Tvm3264>(
          {"tvm-3264",
           "depthwise conv with multiplier > 1 missed the depthwise path; output channel "
           "oc read input channel oc mod C_in instead of oc / m",
           "https://github.com/apache/tvm/issues/3264", "fwd:2d_g4_ic4_oc8_i6x6_k3x3_p1x1",
           Tvm3264WrongPath}),
      Entry<Xnnpack1951>({"xnnpack-1951",
                          "grouped NHWC deconvolution walked its input with the group's channel "
                          "count as the pixel stride",
                          "https://github.com/google/XNNPACK/issues/1951",
                          "fwd:t2d_g2_ic2_oc2_i2x2_k3x3_nhwc", Xnnpack1951WrongPath}),
      Entry<Pytorch19912>(
          {"pytorch-19912",
           "grouped 1x1 conv2d on CPU (MKL-DNN) returned zeros when a group has more "
           "output than input channels",
           "https://github.com/pytorch/pytorch/issues/19912", "fwd:2d_g2_ic4_oc16_i4x4_k1x1",
           Pytorch19912WrongPath}),
  };
}

}  // namespace known_bugs
}  // namespace convparity
