// The three reductions of convolution, written once over strided operands and 3 spatial dimensions.
//
// Every convolution here is the relation of an ordinary one: x[yo·s − pad + k·d] ~ y[yo] through
// w[cy, cx, k]. The X side is the large one (ordinary input, transposed output), the Y side the small one
// (ordinary output, transposed input), and PyTorch's weight is (Cy, Cx/g, k…) in both cases. So
// ordinary fwd = GatherY, bwd_data = GatherX; transposed fwd = GatherX, bwd_data = GatherY; and
// bwd_weight = GatherW for both. pad_end and output_padding need no code: they are the X size.
#pragma once

#include <cstdint>

#include "core/conv_problem.h"
#include "core/sut.h"
#include "kernels/sum_order.h"

namespace convparity {

struct ConvLoopSpec {
  int64_t batch = 1, groups = 1;
  int64_t cx_per_group = 1, cy_per_group = 1;
  Dims x_size{1, 1, 1}, y_size{1, 1, 1}, kernel{1, 1, 1};
  Dims stride{1, 1, 1}, pad{0, 0, 0}, dilation{1, 1, 1};  // pad = pad_begin
};

// A data tensor (N, C, spatial…) or the weight (Cy, Cx/g, k…) as element strides.
struct Operand {
  float* data = nullptr;
  int64_t outer_stride = 0;  // n for data, cy for the weight
  int64_t inner_stride = 0;  // c for data, cx for the weight
  Dims spatial_stride{0, 0, 0};
};

ConvLoopSpec MakeLoopSpec(const ConvProblem& p);
// Strides of the problem's tensors in its memory layouts (unused spatial dimensions get stride 0).
Operand DataOperand(const ConvProblem& p, const Shape& shape, const float* data);
Operand WeightOperand(const ConvProblem& p, const float* data);

// Y[n, cy, yo] = bias[cy] + Σ_{cx, k} X[n, cx, yo·s − pad + k·d] · W[cy, cx, k]
void GatherY(const ConvLoopSpec& s, const Operand& x, const Operand& w, const float* bias,
             const Operand& y, SumOrder order);
// X[n, cx, xi] = bias[cx] + Σ_{cy, k : xi = yo·s − pad + k·d} Y[n, cy, yo] · W[cy, cx, k]
void GatherX(const ConvLoopSpec& s, const Operand& y, const Operand& w, const float* bias,
             const Operand& x, SumOrder order);
// W[cy, cx, k] = Σ_{n, yo} X[n, cx, yo·s − pad + k·d] · Y[n, cy, yo]
void GatherW(const ConvLoopSpec& s, const Operand& x, const Operand& y, const Operand& w,
             SumOrder order);

// Runs one direction of `p` with the gathers above: the body of our direct kernel, also used by the
// known-bug reproductions after they have bent the spec or the operands the way the original bug did.
void RunDirect(const ConvProblem& p, Direction d, const ConvLoopSpec& spec, const Operand& x,
               const Operand& w, const Operand& y, const float* bias, SumOrder order);

// The operands of a case's buffers: x/y are the large/small sides defined above.
struct DirectOperands {
  Operand x, w, y;
  const float* bias;
};
DirectOperands OperandsFor(const ConvProblem& p, Direction d, const ConvBuffers& b);

}  // namespace convparity
