#include "oracles/aten_conv.h"

#include <ATen/Parallel.h>
#include <ATen/ops/constant_pad_nd.h>
#include <ATen/ops/convolution.h>
#include <ATen/ops/convolution_backward.h>
#include <ATen/ops/empty.h>
#include <ATen/ops/slice.h>
#include <ATen/ops/zeros.h>

#include <tuple>

#include "core/tensor.h"

namespace convparity {
namespace aten_conv {

IntList Take(const Dims& d, int rank) { return IntList(d.begin(), d.begin() + rank); }

at::TensorOptions F64() { return at::TensorOptions().dtype(at::kDouble); }

RefTensor FromAten(const at::Tensor& t) {
  at::Tensor c = t.contiguous();
  RefTensor r;
  r.shape = c.sizes().vec();
  const double* src = c.data_ptr<double>();
  r.values.assign(src, src + c.numel());
  return r;
}

void UseOneThread() {
  thread_local bool done = false;
  if (done) return;
  at::set_num_threads(1);
  done = true;
}

at::Tensor ToChannelsLast(const at::Tensor& t) {
  // Permute to (0, 2, …, 1), make that contiguous, and permute back: the logical shape is
  // unchanged and axis 1 has stride 1.
  const int64_t r = t.dim();
  IntList to_last{0}, back(r);
  for (int64_t i = 2; i < r; ++i) to_last.push_back(i);
  to_last.push_back(1);
  for (int64_t i = 0; i < r; ++i) back[to_last[i]] = i;
  return t.permute(to_last).contiguous().permute(back);
}

at::Tensor InStyle(const at::Tensor& t, const TensorStyle& style) {
  at::Tensor r = t.scalar_type() == style.dtype ? t : t.to(style.dtype);
  return style.channels_last ? ToChannelsLast(r) : r.contiguous();
}

// NOTE: ATen's pad list starts at the LAST dimension: (begin_last, end_last, begin_last-1, …).
at::Tensor PadSpatial(const at::Tensor& t, const ConvProblem& p, const TensorStyle& style) {
  IntList pads;
  bool any = false;
  for (int i = p.rank - 1; i >= 0; --i) {
    pads.push_back(p.pad_begin[i]);
    pads.push_back(p.pad_end[i]);
    any = any || p.pad_begin[i] != 0 || p.pad_end[i] != 0;
  }
  // constant_pad_nd does not promise to keep a channels-last layout; restore it.
  return any ? InStyle(at::constant_pad_nd(t, pads, 0), style) : t;
}

at::Tensor CropSpatial(const at::Tensor& t, const ConvProblem& p, const Dims& size) {
  at::Tensor r = t;
  for (int i = 0; i < p.rank; ++i)
    r = at::slice(r, 2 + i, p.pad_begin[i], p.pad_begin[i] + size[i]);
  return r;
}

Shape PaddedInputShape(const ConvProblem& p) {
  Shape s = p.input_shape();
  for (int i = 0; i < p.rank; ++i) s[2 + i] += p.pad_begin[i] + p.pad_end[i];
  return s;
}

bool SymmetricPadding(const ConvProblem& p) {
  for (int i = 0; i < p.rank; ++i)
    if (p.pad_begin[i] != p.pad_end[i]) return false;
  return true;
}

// Symmetric padding goes to ATen as its own padding: no copy of a padded tensor, and the paths
// users take. Asymmetric padding never does (ATen's is symmetric): an ordinary convolution pads its
// input explicitly; a transposed one runs with padding 0 on the full output
// F = (i-1)s + d(k-1) + 1 + op and crops it, so its gradients zero-pad dy back to F.
at::Tensor RunDirection(const ConvProblem& p, Direction d, const DirectionInputs& t,
                        const TensorStyle& style) {
  const IntList stride = Take(p.stride, p.rank);
  const IntList dilation = Take(p.dilation, p.rank);
  const IntList zeros(p.rank, 0);
  const bool symmetric = SymmetricPadding(p);
  const IntList padding = symmetric ? Take(p.pad_begin, p.rank) : zeros;
  const IntList output_padding = p.transposed ? Take(p.output_padding, p.rank) : zeros;
  const c10::optional<at::Tensor> bias =
      t.b.defined() ? c10::optional<at::Tensor>(t.b) : c10::nullopt;
  // convolution_backward reads only the shape of the operand whose gradient is not asked for (and,
  // to pick a kernel, its memory format).
  auto shape_of = [&](const Shape& s) {
    return InStyle(at::zeros(s, at::TensorOptions().dtype(style.dtype)), style);
  };
  auto backward = [&](const at::Tensor& dy, const at::Tensor& x, const at::Tensor& w,
                      bool want_data) {
    auto grads =
        at::convolution_backward(dy, x, w, c10::nullopt, stride, padding, dilation, p.transposed,
                                 output_padding, p.groups, {want_data, !want_data, false});
    return want_data ? std::get<0>(grads) : std::get<1>(grads);
  };
  auto forward = [&](const at::Tensor& x) {
    return at::convolution(x, t.w, bias, stride, padding, dilation, p.transposed, output_padding,
                           p.groups);
  };

  if (symmetric) {
    switch (d) {
      case Direction::kForward:
        return forward(t.x);
      case Direction::kBackwardData:
        return backward(t.dy, shape_of(p.input_shape()), t.w, true);
      case Direction::kBackwardWeight:
        return backward(t.dy, t.x, shape_of(p.weight_shape()), false);
    }
  } else if (!p.transposed) {
    switch (d) {
      case Direction::kForward:
        return forward(PadSpatial(t.x, p, style));
      case Direction::kBackwardData:
        return CropSpatial(backward(t.dy, shape_of(PaddedInputShape(p)), t.w, true), p, p.input);
      case Direction::kBackwardWeight:
        return backward(t.dy, PadSpatial(t.x, p, style), shape_of(p.weight_shape()), false);
    }
  } else {
    switch (d) {
      case Direction::kForward:
        return CropSpatial(forward(t.x), p, p.output());
      case Direction::kBackwardData:
        return backward(PadSpatial(t.dy, p, style), shape_of(p.input_shape()), t.w, true);
      case Direction::kBackwardWeight:
        return backward(PadSpatial(t.dy, p, style), t.x, shape_of(p.weight_shape()), false);
    }
  }
  return {};
}

const char* BackendName(at::native::ConvBackend b) {
  using B = at::native::ConvBackend;
  // clang-format off
  switch (b) {
    case B::CudaDepthwise2d: return "CudaDepthwise2d";
    case B::CudaDepthwise3d: return "CudaDepthwise3d";
    case B::Cudnn: return "Cudnn";
    case B::CudnnTranspose: return "CudnnTranspose";
    case B::Empty: return "Empty";
    case B::Miopen: return "Miopen";
    case B::MiopenDepthwise: return "MiopenDepthwise";
    case B::MiopenTranspose: return "MiopenTranspose";
    case B::Mkldnn: return "Mkldnn";
    case B::MkldnnEmpty: return "MkldnnEmpty";
    case B::NnpackSpatial: return "NnpackSpatial";
    case B::Overrideable: return "Overrideable";
    case B::Slow2d: return "Slow2d";
    case B::Slow3d: return "Slow3d";
    case B::SlowDilated2d: return "SlowDilated2d";
    case B::SlowDilated3d: return "SlowDilated3d";
    case B::SlowTranspose2d: return "SlowTranspose2d";
    case B::SlowTranspose3d: return "SlowTranspose3d";
    case B::Winograd3x3Depthwise: return "Winograd3x3Depthwise";
    case B::Xnnpack2d: return "Xnnpack2d";
    case B::Mps: return "Mps";
    case B::MpsTranspose: return "MpsTranspose";
  }
  // clang-format on
  return "unknown";
}

std::string SelectBackend(const ConvProblem& p, const TensorStyle& style) {
  UseOneThread();  // the dispatcher's choice depends on the thread count
  const at::TensorOptions options = at::TensorOptions().dtype(style.dtype);
  const bool symmetric = SymmetricPadding(p);
  const bool padded_input = !p.transposed && !symmetric;
  at::Tensor x =
      InStyle(at::empty(padded_input ? PaddedInputShape(p) : p.input_shape(), options), style);
  at::Tensor w = InStyle(at::empty(p.weight_shape(), options), style);
  const IntList zeros(p.rank, 0);
  return BackendName(at::native::select_conv_backend(
      x, w, c10::nullopt, Take(p.stride, p.rank), symmetric ? Take(p.pad_begin, p.rank) : zeros,
      Take(p.dilation, p.rank), p.transposed, p.transposed ? Take(p.output_padding, p.rank) : zeros,
      p.groups));
}

}  // namespace aten_conv
}  // namespace convparity
