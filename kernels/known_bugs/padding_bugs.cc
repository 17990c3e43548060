// Reproductions of bugs at the border of a convolution: output_padding dropped or faked, the two
// sides of an odd padding swapped, and a padded border whose rows were computed although no
// kernel row touched the input.
#include <algorithm>
#include <cstdlib>
#include <vector>

#include "core/tensor.h"
#include "kernels/known_bugs/known_bug_sut.h"

namespace convparity {
namespace known_bugs {
namespace {

bool HasOutputPadding(const ConvProblem& p) {
  for (int i = 0; i < p.rank; ++i)
    if (p.output_padding[i] > 0) return true;
  return false;
}

// The X side (the transposed output) without its output_padding: what a transposed convolution with
// output_padding 0 computes. Its first positions are exactly those of the padded output, since
// output_padding only extends the X size at the end (kernels/conv_loops.h).
ConvLoopSpec WithoutOutputPadding(const ConvProblem& p) {
  ConvLoopSpec spec = MakeLoopSpec(p);
  for (int i = 0; i < p.rank; ++i) spec.x_size[i] -= p.output_padding[i];
  return spec;
}

// ---- tvm-7912 -------------------------------------------------------------------------------
// TVM's PyTorch frontend built relay.nn.conv2d_transpose without the module's output_padding (and
// mapped ConvTranspose1d to conv2d_transpose, which changes no value). TVM therefore returned the
// output of output_padding 0: a tensor shorter by output_padding at the end of each dimension,
// whose positions hold the right values. Our result buffer has PyTorch's size, so the faithful
// equivalent of "TVM never produced those elements" is to leave them unwritten (the harness's
// poison stays: verdict unwritten, our analogue of the shape mismatch the report saw) — neither
// zeros nor bias, which TVM never computed either. Forward only: the frontend imports inference
// graphs.

bool Tvm7912WrongPath(const ConvProblem& p, Direction d) {
  return p.transposed && d == Direction::kForward && HasOutputPadding(p);
}

class Tvm7912 : public KnownBugSut {
 public:
  using KnownBugSut::KnownBugSut;

 protected:
  void RunWrong(const ConvProblem& p, Direction d, const ConvBuffers& b) override {
    const DirectOperands ops = OperandsFor(p, d, b);
    RunDirect(p, d, WithoutOutputPadding(p), ops.x, ops.w, ops.y, ops.bias, kOrder);
  }
};

// ---- tvm-5758 -------------------------------------------------------------------------------
// Before PR #5758, TVM's conv{1,2}d_transpose gave output_padding its own meaning: compute the
// output of output_padding 0, then pad it with zeros at the end. The shape matched PyTorch's; the
// last output_padding rows/columns held zeros instead of their contributions. The bias is a
// separate nn.bias_add after the convolution in Relay, so it reached those rows too: they hold the
// bias. Wrong only where the appended rows receive contributions. Forward only: TVM's own gradient
// of conv2d could not even express such shapes (the PR's motivation).

bool Tvm5758WrongPath(const ConvProblem& p, Direction d) {
  return p.transposed && d == Direction::kForward && HasOutputPadding(p);
}

class Tvm5758 : public KnownBugSut {
 public:
  using KnownBugSut::KnownBugSut;

 protected:
  void RunWrong(const ConvProblem& p, Direction d, const ConvBuffers& b) override {
    const DirectOperands ops = OperandsFor(p, d, b);
    // The zero-padded tensor plus bias_add: a reduction over no taps leaves the bias alone.
    ConvLoopSpec appended = MakeLoopSpec(p);
    appended.kernel = {0, 0, 0};
    RunDirect(p, d, appended, ops.x, ops.w, ops.y, ops.bias, kOrder);
    // The computed region, as if output_padding were 0.
    RunDirect(p, d, WithoutOutputPadding(p), ops.x, ops.w, ops.y, ops.bias, kOrder);
  }
};

// ---- onnxruntime-9370 -----------------------------------------------------------------------
// ONNX Runtime's ConvTranspose split an odd total padding of auto_pad SAME_UPPER with the larger
// half at the head and SAME_LOWER with it at the tail — the opposite of the ONNX definition (and of
// its own Conv). The total, hence the output size, is right; begin and end are swapped. The SUT
// sees explicit pads, so the reproduction swaps them in every dimension where they are a split ORT
// could have produced from an odd total: they differ by exactly 1. An even total, or explicit pads
// further apart, were never split and stay right. Transposed forward only (ConvTranspose
// inference).

bool OddSplit(const ConvProblem& p, int i) { return std::abs(p.pad_begin[i] - p.pad_end[i]) == 1; }

bool Onnxruntime9370WrongPath(const ConvProblem& p, Direction d) {
  if (!p.transposed || d != Direction::kForward) return false;
  for (int i = 0; i < p.rank; ++i)
    if (OddSplit(p, i)) return true;
  return false;
}

class Onnxruntime9370 : public KnownBugSut {
 public:
  using KnownBugSut::KnownBugSut;

 protected:
  void RunWrong(const ConvProblem& p, Direction d, const ConvBuffers& b) override {
    const DirectOperands ops = OperandsFor(p, d, b);
    ConvLoopSpec spec = MakeLoopSpec(p);
    // pad_end is implied by the X size (unchanged), so taking pad_end as the begin swaps the two.
    for (int i = 0; i < p.rank; ++i)
      if (OddSplit(p, i)) spec.pad[i] = p.pad_end[i];
    RunDirect(p, d, spec, ops.x, ops.w, ops.y, ops.bias, kOrder);
  }
};

// ---- onednn-DNNL-796 ------------------------------------------------------------------------
// oneDNN's JIT forward convolution (avx2 / avx512 f32 and int8, fixed in commit edb3a724ed, 2018)
// loops over the kernel rows of one output row with a do-while whose count is the number of rows
// that overlap the input. A row lying wholly in the padding has a count of 0, and the loop is
// skipped only behind a guard that the kernel generator emitted when (k − 1)·d < pad_begin — it
// forgot pad_end. With large asymmetric padding (benchdnn mb2_g1ic32oc32_ih7oh11kh3ph2: oh 11
// implies pad_end 4) the output rows wholly in the end padding still ran the loop body once: kernel
// row 0 against input row yo·s − pad_begin, which is past the end of the image. Faithfully: that
// row is read by address arithmetic, i.e. from whatever follows the image plane in memory (the next
// channel channels-first, the next image channels-last); past the end of the buffer we read zeros.
// It concerns the kernel-row dimensions (depth and height); the innermost (width) dimension was
// handled by a separate overflow path. Ordinary forward only.

// The first output position of dimension i wholly in the end padding, or output() when none is or
// the guard was emitted.
int64_t FirstUnguardedRow(const ConvProblem& p, int i) {
  const int64_t out = p.output()[i];
  if ((p.kernel[i] - 1) * p.dilation[i] < p.pad_begin[i]) return out;  // guarded: correct
  // yo·s − pad_begin ≥ input  ⇔  yo ≥ ceil((input + pad_begin) / s)
  const int64_t first = (p.input[i] + p.pad_begin[i] + p.stride[i] - 1) / p.stride[i];
  return std::min(first, out);
}

bool OnednnDnnl796WrongPath(const ConvProblem& p, Direction d) {
  if (p.transposed || d != Direction::kForward) return false;
  for (int i = 0; i + 1 < p.rank; ++i)
    if (FirstUnguardedRow(p, i) < p.output()[i]) return true;
  return false;
}

class OnednnDnnl796 : public KnownBugSut {
 public:
  using KnownBugSut::KnownBugSut;

 protected:
  void RunWrong(const ConvProblem& p, Direction d, const ConvBuffers& b) override {
    RunCorrect(p, d, b);
    const DirectOperands ops = OperandsFor(p, d, b);
    const ConvLoopSpec spec = MakeLoopSpec(p);
    const Dims out = p.output();
    const int bug_dims = p.rank - 1;

    // The input, followed by the memory the stray rows reach (zeros past the buffer's end).
    ConvLoopSpec stray = spec;
    std::vector<int64_t> first(bug_dims);
    int64_t reach = (p.batch - 1) * ops.x.outer_stride + (p.in_channels - 1) * ops.x.inner_stride;
    for (int i = 0; i < p.rank; ++i) {
      int64_t last = spec.x_size[i] - 1;
      if (i < bug_dims) {
        first[i] = FirstUnguardedRow(p, i);
        last = std::max(last, (out[i] - 1) * p.stride[i] - p.pad_begin[i]);
        stray.x_size[i] = last + 1;
      }
      reach += last * ops.x.spatial_stride[i];
    }
    const int64_t size = NumElements(p.input_shape());
    std::vector<float> memory(std::max(size, reach + 1), 0.0f);
    std::copy(b.input, b.input + size, memory.begin());
    Operand x = ops.x;
    x.data = memory.data();

    // Every box of output positions that lies in the stray rows of at least one dimension: there
    // that dimension has the one tap 0 at row yo·s − pad_begin; the other dimensions are normal.
    for (unsigned mask = 1; mask < (1u << bug_dims); ++mask) {
      ConvLoopSpec box = stray;
      Operand y = ops.y;
      bool empty = false;
      for (int i = 0; i < bug_dims; ++i) {
        if (mask & (1u << i)) {
          box.y_size[i] = out[i] - first[i];
          box.kernel[i] = 1;
          box.pad[i] = p.pad_begin[i] - first[i] * p.stride[i];
          y = ShiftSpatial(y, i, first[i]);
        } else {
          box.y_size[i] = first[i];
          box.x_size[i] = spec.x_size[i];  // in-range rows are bounds-checked as usual
        }
        empty = empty || box.y_size[i] <= 0;
      }
      if (!empty) GatherY(box, x, ops.w, ops.bias, y, kOrder);
    }
  }
};

}  // namespace

std::vector<KnownBugEntry> PaddingBugs() {
  return {
      Entry<Tvm7912>(
          {"tvm-7912",
           "PyTorch frontend dropped ConvTranspose's output_padding: the output is short "
           "by output_padding at the end (left unwritten)",
           "https://github.com/apache/tvm/pull/7958", "fwd:t2d_ic2_oc2_i4x4_k3x3_s2x2_p1x1_op1x1",
           Tvm7912WrongPath, KnownBugKind::kKernel, "", Verdict::kUnwritten}),
      Entry<Tvm5758>({"tvm-5758",
                      "conv_transpose output_padding appended zero rows (then bias) instead of "
                      "extending the computed region",
                      "https://github.com/apache/tvm/pull/5758",
                      "fwd:t2d_ic2_oc2_i4x4_k3x3_s2x2_p1x1_op1x0", Tvm5758WrongPath}),
      Entry<Onnxruntime9370>({"onnxruntime-9370",
                              "ConvTranspose SAME_UPPER / SAME_LOWER swapped when the total "
                              "padding is odd (pads one apart are applied the other way round)",
                              "https://github.com/microsoft/onnxruntime/issues/9370",
                              "fwd:t2d_ic2_oc2_i3x3_k3x3_s2x2_pb0x0_pe1x1",
                              Onnxruntime9370WrongPath}),
      Entry<OnednnDnnl796>(
          {"onednn-DNNL-796",
           "JIT fwd conv with pad_end beyond the kernel's reach: rows wholly in the "
           "end padding still read one kernel row past the image",
           "https://github.com/uxlfoundation/oneDNN/commit/"
           "edb3a724ed087bbd523c6ff845caa05ad132c72a",
           "fwd:2d_mb2_ic32_oc32_i7x7_k3x3_pb2x2_pe4x4", OnednnDnnl796WrongPath}),
  };
}

}  // namespace known_bugs
}  // namespace convparity
