#include "kernels/conv_loops.h"

#include <vector>

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

// One term of a reduction: where it reads its two factors, as element offsets from the bases of
// the two operands the gather multiplies.
struct Tap {
  int64_t a, b;
};

// One spatial dimension of a gather: for every position on the result's side, the taps that reach
// the other side, in the order the sum takes them. A tap is valid or not per dimension, so the
// valid taps of a point are the product of its dimensions' lists: the loops visit only those, and
// count them beforehand (the pairwise order needs the count).
struct DimTaps {
  std::vector<size_t> begin{0};  // position p's taps: taps[begin[p], begin[p + 1])
  std::vector<Tap> taps;

  void EndPosition() { begin.push_back(taps.size()); }
};

// GatherY: output position yo reads X at yo·s − pad + k·d for k ascending (a: X, b: W).
DimTaps YTaps(const ConvLoopSpec& s, int i, const Operand& x, const Operand& w) {
  DimTaps t;
  for (int64_t yo = 0; yo < s.y_size[i]; ++yo, t.EndPosition())
    for (int64_t k = 0; k < s.kernel[i]; ++k) {
      const int64_t xi = yo * s.stride[i] - s.pad[i] + k * s.dilation[i];
      if (xi >= 0 && xi < s.x_size[i])
        t.taps.push_back({xi * x.spatial_stride[i], k * w.spatial_stride[i]});
    }
  return t;
}

// GatherX: position xi is read by Y position (xi + pad − k·d) / s where that divides, k ascending
// (a: Y, b: W).
DimTaps XTaps(const ConvLoopSpec& s, int i, const Operand& y, const Operand& w) {
  DimTaps t;
  for (int64_t xi = 0; xi < s.x_size[i]; ++xi, t.EndPosition())
    for (int64_t k = 0; k < s.kernel[i]; ++k) {
      const int64_t num = xi + s.pad[i] - k * s.dilation[i];
      if (num < 0 || num % s.stride[i] != 0 || num / s.stride[i] >= s.y_size[i]) continue;
      t.taps.push_back({num / s.stride[i] * y.spatial_stride[i], k * w.spatial_stride[i]});
    }
  return t;
}

// GatherW: tap k pairs Y position yo with X position yo·s − pad + k·d, yo ascending (a: X, b: Y).
DimTaps WTaps(const ConvLoopSpec& s, int i, const Operand& x, const Operand& y) {
  DimTaps t;
  for (int64_t k = 0; k < s.kernel[i]; ++k, t.EndPosition())
    for (int64_t yo = 0; yo < s.y_size[i]; ++yo) {
      const int64_t xi = yo * s.stride[i] - s.pad[i] + k * s.dilation[i];
      if (xi >= 0 && xi < s.x_size[i])
        t.taps.push_back({xi * x.spatial_stride[i], yo * y.spatial_stride[i]});
    }
  return t;
}

// The valid taps of a point, dimension 0 outermost (the order of the nested loops they replace).
void FlattenTaps(const DimTaps (&dims)[kMaxSpatialRank], const Dims& at, std::vector<Tap>& out) {
  out.clear();
  const DimTaps &d0 = dims[0], &d1 = dims[1], &d2 = dims[2];
  for (size_t i = d0.begin[at[0]]; i < d0.begin[at[0] + 1]; ++i)
    for (size_t j = d1.begin[at[1]]; j < d1.begin[at[1] + 1]; ++j)
      for (size_t k = d2.begin[at[2]]; k < d2.begin[at[2] + 1]; ++k)
        out.push_back({d0.taps[i].a + d1.taps[j].a + d2.taps[k].a,
                       d0.taps[i].b + d1.taps[j].b + d2.taps[k].b});
}

// init + Σ_{o < count} Σ_{t ∈ taps} a[o·a_step + t.a] · b[o·b_step + t.b], in Sum's order over the
// sequence [init, terms with o outer and taps inner].
template <typename Sum>
float Reduce(Sum& sum, float init, const float* a, int64_t a_step, const float* b, int64_t b_step,
             int64_t count, const std::vector<Tap>& taps) {
  const size_t n = taps.size();
  sum.Start(init, static_cast<size_t>(count) * n);
  if constexpr (Sum::kReverse) {
    for (int64_t o = count - 1; o >= 0; --o) {
      const float* ao = a + o * a_step;
      const float* bo = b + o * b_step;
      for (size_t t = n; t-- > 0;) sum.Add(ao[taps[t].a] * bo[taps[t].b]);
    }
  } else {
    for (int64_t o = 0; o < count; ++o) {
      const float* ao = a + o * a_step;
      const float* bo = b + o * b_step;
      for (const Tap& t : taps) sum.Add(ao[t.a] * bo[t.b]);
    }
  }
  return sum.Finish();
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
  const DimTaps taps[] = {YTaps(s, 0, x, w), YTaps(s, 1, x, w), YTaps(s, 2, x, w)};
  std::vector<Tap> flat;
  WithSum(order, [&](auto& sum) {
    ForEachPoint(s.y_size, [&](const Dims& yo) {
      FlattenTaps(taps, yo, flat);
      for (int64_t n = 0; n < s.batch; ++n)
        for (int64_t g = 0; g < s.groups; ++g) {
          const float* xg = x.data + n * x.outer_stride + g * s.cx_per_group * x.inner_stride;
          for (int64_t oc = 0; oc < s.cy_per_group; ++oc) {
            const int64_t cy = g * s.cy_per_group + oc;
            y.data[n * y.outer_stride + cy * y.inner_stride + SpatialOffset(y, yo)] =
                Reduce(sum, bias ? bias[cy] : 0.0f, xg, x.inner_stride,
                       w.data + cy * w.outer_stride, w.inner_stride, s.cx_per_group, flat);
          }
        }
    });
  });
}

void GatherX(const ConvLoopSpec& s, const Operand& y, const Operand& w, const float* bias,
             const Operand& x, SumOrder order) {
  const DimTaps taps[] = {XTaps(s, 0, y, w), XTaps(s, 1, y, w), XTaps(s, 2, y, w)};
  std::vector<Tap> flat;
  WithSum(order, [&](auto& sum) {
    ForEachPoint(s.x_size, [&](const Dims& xi) {
      FlattenTaps(taps, xi, flat);
      for (int64_t n = 0; n < s.batch; ++n)
        for (int64_t g = 0; g < s.groups; ++g) {
          const float* yg = y.data + n * y.outer_stride + g * s.cy_per_group * y.inner_stride;
          const float* wg = w.data + g * s.cy_per_group * w.outer_stride;
          for (int64_t ic = 0; ic < s.cx_per_group; ++ic) {
            const int64_t cx = g * s.cx_per_group + ic;
            x.data[n * x.outer_stride + cx * x.inner_stride + SpatialOffset(x, xi)] =
                Reduce(sum, bias ? bias[cx] : 0.0f, yg, y.inner_stride, wg + ic * w.inner_stride,
                       w.outer_stride, s.cy_per_group, flat);
          }
        }
    });
  });
}

void GatherW(const ConvLoopSpec& s, const Operand& x, const Operand& y, const Operand& w,
             SumOrder order) {
  const DimTaps taps[] = {WTaps(s, 0, x, y), WTaps(s, 1, x, y), WTaps(s, 2, x, y)};
  std::vector<Tap> flat;
  WithSum(order, [&](auto& sum) {
    ForEachPoint(s.kernel, [&](const Dims& k) {
      FlattenTaps(taps, k, flat);
      for (int64_t g = 0; g < s.groups; ++g)
        for (int64_t oc = 0; oc < s.cy_per_group; ++oc)
          for (int64_t ic = 0; ic < s.cx_per_group; ++ic) {
            const int64_t cy = g * s.cy_per_group + oc, cx = g * s.cx_per_group + ic;
            w.data[cy * w.outer_stride + ic * w.inner_stride + SpatialOffset(w, k)] =
                Reduce(sum, 0.0f, x.data + cx * x.inner_stride, x.outer_stride,
                       y.data + cy * y.inner_stride, y.outer_stride, s.batch, flat);
          }
    });
  });
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
