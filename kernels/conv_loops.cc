#include "kernels/conv_loops.h"

#include "core/tensor.h"

namespace convparity {
namespace {

// Visits every point of a 3-D box (unused dimensions have extent 1).
template <typename F>
void ForEachPoint(const Dims& extent, F&& f) {
  for (int64_t a = 0; a < extent[0]; ++a)
    for (int64_t b = 0; b < extent[1]; ++b)
      for (int64_t c = 0; c < extent[2]; ++c) f(Dims{a, b, c});
}

int64_t SpatialOffset(const Operand& t, const Dims& at) {
  return at[0] * t.spatial_stride[0] + at[1] * t.spatial_stride[1] + at[2] * t.spatial_stride[2];
}

// The X position tap k of Y position yo reads; false when it falls into the padding.
bool XPosition(const ConvLoopSpec& s, const Dims& yo, const Dims& k, Dims& xi) {
  for (int i = 0; i < kMaxSpatialRank; ++i) {
    xi[i] = yo[i] * s.stride[i] - s.pad[i] + k[i] * s.dilation[i];
    if (xi[i] < 0 || xi[i] >= s.x_size[i]) return false;
  }
  return true;
}

// The Y position that reads X position xi through tap k; false when there is none.
bool YPosition(const ConvLoopSpec& s, const Dims& xi, const Dims& k, Dims& yo) {
  for (int i = 0; i < kMaxSpatialRank; ++i) {
    int64_t num = xi[i] + s.pad[i] - k[i] * s.dilation[i];
    if (num < 0 || num % s.stride[i] != 0) return false;
    yo[i] = num / s.stride[i];
    if (yo[i] >= s.y_size[i]) return false;
  }
  return true;
}

}  // namespace

ConvLoopSpec MakeLoopSpec(const ConvProblem& p) {
  ConvLoopSpec s;
  s.batch = p.batch;
  s.groups = p.groups;
  // X side: ordinary input / transposed output; Y side: ordinary output / transposed input.
  const int64_t x_channels = p.transposed ? p.out_channels : p.in_channels;
  const int64_t y_channels = p.transposed ? p.in_channels : p.out_channels;
  s.cx_per_group = x_channels / p.groups;
  s.cy_per_group = y_channels / p.groups;
  const Dims out = p.output();
  for (int i = 0; i < p.rank; ++i) {
    s.x_size[i] = p.transposed ? out[i] : p.input[i];
    s.y_size[i] = p.transposed ? p.input[i] : out[i];
    s.kernel[i] = p.kernel[i];
    s.stride[i] = p.stride[i];
    s.pad[i] = p.pad_begin[i];
    s.dilation[i] = p.dilation[i];
  }
  return s;
}

Operand DataOperand(const ConvProblem& p, const Shape& shape, const float* data) {
  Shape strides = StridesFor(shape, DataMemoryOrder(p));
  Operand t{const_cast<float*>(data), strides[0], strides[1], {0, 0, 0}};
  for (int i = 0; i < p.rank; ++i) t.spatial_stride[i] = strides[2 + i];
  return t;
}

Operand WeightOperand(const ConvProblem& p, const float* data) {
  Shape strides = StridesFor(p.weight_shape(), WeightMemoryOrder(p));
  Operand t{const_cast<float*>(data), strides[0], strides[1], {0, 0, 0}};
  for (int i = 0; i < p.rank; ++i) t.spatial_stride[i] = strides[2 + i];
  return t;
}

void GatherY(const ConvLoopSpec& s, const Operand& x, const Operand& w, const float* bias,
             const Operand& y, SumOrder order) {
  Reduction sum(order);
  for (int64_t n = 0; n < s.batch; ++n)
    for (int64_t g = 0; g < s.groups; ++g)
      for (int64_t oc = 0; oc < s.cy_per_group; ++oc) {
        const int64_t cy = g * s.cy_per_group + oc;
        ForEachPoint(s.y_size, [&](const Dims& yo) {
          sum.Start(bias ? bias[cy] : 0.0f);
          for (int64_t ic = 0; ic < s.cx_per_group; ++ic) {
            const int64_t cx = g * s.cx_per_group + ic;
            ForEachPoint(s.kernel, [&](const Dims& k) {
              Dims xi;
              if (!XPosition(s, yo, k, xi)) return;
              sum.Add(x.data[n * x.outer_stride + cx * x.inner_stride + SpatialOffset(x, xi)] *
                      w.data[cy * w.outer_stride + ic * w.inner_stride + SpatialOffset(w, k)]);
            });
          }
          y.data[n * y.outer_stride + cy * y.inner_stride + SpatialOffset(y, yo)] = sum.Finish();
        });
      }
}

void GatherX(const ConvLoopSpec& s, const Operand& y, const Operand& w, const float* bias,
             const Operand& x, SumOrder order) {
  Reduction sum(order);
  for (int64_t n = 0; n < s.batch; ++n)
    for (int64_t g = 0; g < s.groups; ++g)
      for (int64_t ic = 0; ic < s.cx_per_group; ++ic) {
        const int64_t cx = g * s.cx_per_group + ic;
        ForEachPoint(s.x_size, [&](const Dims& xi) {
          sum.Start(bias ? bias[cx] : 0.0f);
          for (int64_t oc = 0; oc < s.cy_per_group; ++oc) {
            const int64_t cy = g * s.cy_per_group + oc;
            ForEachPoint(s.kernel, [&](const Dims& k) {
              Dims yo;
              if (!YPosition(s, xi, k, yo)) return;
              sum.Add(y.data[n * y.outer_stride + cy * y.inner_stride + SpatialOffset(y, yo)] *
                      w.data[cy * w.outer_stride + ic * w.inner_stride + SpatialOffset(w, k)]);
            });
          }
          x.data[n * x.outer_stride + cx * x.inner_stride + SpatialOffset(x, xi)] = sum.Finish();
        });
      }
}

void GatherW(const ConvLoopSpec& s, const Operand& x, const Operand& y, const Operand& w,
             SumOrder order) {
  Reduction sum(order);
  for (int64_t g = 0; g < s.groups; ++g)
    for (int64_t oc = 0; oc < s.cy_per_group; ++oc)
      for (int64_t ic = 0; ic < s.cx_per_group; ++ic) {
        const int64_t cy = g * s.cy_per_group + oc, cx = g * s.cx_per_group + ic;
        ForEachPoint(s.kernel, [&](const Dims& k) {
          sum.Start(0.0f);
          for (int64_t n = 0; n < s.batch; ++n)
            ForEachPoint(s.y_size, [&](const Dims& yo) {
              Dims xi;
              if (!XPosition(s, yo, k, xi)) return;
              sum.Add(x.data[n * x.outer_stride + cx * x.inner_stride + SpatialOffset(x, xi)] *
                      y.data[n * y.outer_stride + cy * y.inner_stride + SpatialOffset(y, yo)]);
            });
          w.data[cy * w.outer_stride + ic * w.inner_stride + SpatialOffset(w, k)] = sum.Finish();
        });
      }
}

DirectOperands OperandsFor(const ConvProblem& p, Direction d, const ConvBuffers& b) {
  // Which buffer sits on which side: see the header. The result takes the place of what it
  // computes.
  const bool t = p.transposed;
  const float* x = nullptr;
  const float* y = nullptr;
  const float* w = d == Direction::kBackwardWeight ? b.result : b.weight;
  switch (d) {
    case Direction::kForward:
      x = t ? b.result : b.input;
      y = t ? b.input : b.result;
      break;
    case Direction::kBackwardData:
      x = t ? b.grad_output : b.result;
      y = t ? b.result : b.grad_output;
      break;
    case Direction::kBackwardWeight:
      x = t ? b.grad_output : b.input;
      y = t ? b.input : b.grad_output;
      break;
  }
  const Shape x_shape = t ? p.output_shape() : p.input_shape();
  const Shape y_shape = t ? p.input_shape() : p.output_shape();
  return {DataOperand(p, x_shape, x), WeightOperand(p, w), DataOperand(p, y_shape, y),
          d == Direction::kForward && p.bias ? b.bias : nullptr};
}

void RunDirect(const ConvProblem& p, Direction d, const ConvLoopSpec& spec, const Operand& x,
               const Operand& w, const Operand& y, const float* bias, SumOrder order) {
  const bool computes_y = (d == Direction::kForward) != p.transposed;
  if (d == Direction::kBackwardWeight)
    GatherW(spec, x, y, w, order);
  else if (computes_y)
    GatherY(spec, x, w, bias, y, order);
  else
    GatherX(spec, y, w, bias, x, order);
}

}  // namespace convparity
