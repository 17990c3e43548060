#include "oracles/torch_oracle.h"

#include <ATen/Parallel.h>
#include <ATen/Version.h>
#include <ATen/core/Tensor.h>
#include <ATen/native/ConvUtils.h>
#include <ATen/ops/abs.h>
#include <ATen/ops/constant_pad_nd.h>
#include <ATen/ops/convolution.h>
#include <ATen/ops/convolution_backward.h>
#include <ATen/ops/empty.h>
#include <ATen/ops/slice.h>
#include <ATen/ops/zeros.h>
#include <c10/util/Exception.h>
#include <torch/version.h>  // only the TORCH_VERSION macros

#include <exception>
#include <set>
#include <sstream>
#include <utility>

namespace convparity {
namespace {

using IntList = std::vector<int64_t>;

// The tensors a direction reads; the others stay undefined.
struct AtenInputs {
  at::Tensor x, w, b, dy;
};

at::TensorOptions F64() { return at::TensorOptions().dtype(at::kDouble); }

// ATen parallelizes with OpenMP whose thread count is per calling thread; one thread keeps the
// summation order fixed and avoids spin-up cost on the small tensors the harness uses.
void UseOneThread() {
  thread_local bool done = false;
  if (done) return;
  at::set_num_threads(1);
  done = true;
}

std::string ShapeText(const Shape& s) {
  std::ostringstream os;
  os << "[";
  for (size_t i = 0; i < s.size(); ++i) os << (i ? ", " : "") << s[i];
  os << "]";
  return os.str();
}

IntList Take(const Dims& d, int rank) { return IntList(d.begin(), d.begin() + rank); }

// Checks that a HostTensor the direction reads has the problem's shape and as many values.
Status CheckInput(const char* name, const HostTensor& t, const Shape& expected) {
  if (t.shape != expected)
    return Status::Invalid(std::string(name) + " must have shape " + ShapeText(expected) +
                           ", but got " + ShapeText(t.shape));
  if (static_cast<int64_t>(t.values.size()) != NumElements(expected))
    return Status::Invalid(std::string(name) + " of shape " + ShapeText(expected) + " needs " +
                           std::to_string(NumElements(expected)) + " values, but got " +
                           std::to_string(t.values.size()));
  return Status::Ok();
}

at::Tensor ToAten(const HostTensor& t) {
  at::Tensor out = at::empty(t.shape, F64());
  double* dst = out.data_ptr<double>();
  for (size_t i = 0; i < t.values.size(); ++i) dst[i] = t.values[i];
  return out;
}

RefTensor FromAten(const at::Tensor& t) {
  at::Tensor c = t.contiguous();
  RefTensor r;
  r.shape = c.sizes().vec();
  const double* src = c.data_ptr<double>();
  r.values.assign(src, src + c.numel());
  return r;
}

// Zero-pads the spatial dims by (pad_begin, pad_end). NOTE: ATen's pad list starts at the LAST
// dimension: (begin_last, end_last, begin_last-1, end_last-1, …).
at::Tensor PadSpatial(const at::Tensor& t, const ConvProblem& p) {
  IntList pads;
  bool any = false;
  for (int i = p.rank - 1; i >= 0; --i) {
    pads.push_back(p.pad_begin[i]);
    pads.push_back(p.pad_end[i]);
    any = any || p.pad_begin[i] != 0 || p.pad_end[i] != 0;
  }
  return any ? at::constant_pad_nd(t, pads, 0) : t;
}

// Keeps [pad_begin, pad_begin + size) of every spatial dim: the inverse of PadSpatial.
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

// One direction in float64. Asymmetric padding is never given to ATen (its padding is symmetric):
// an ordinary convolution pads its input explicitly; a transposed one runs with padding 0 on the
// full output F = (i-1)s + d(k-1) + 1 + op and crops it, so its gradients zero-pad dy back to F.
at::Tensor RunDirection(const ConvProblem& p, Direction d, const AtenInputs& t) {
  const IntList stride = Take(p.stride, p.rank);
  const IntList dilation = Take(p.dilation, p.rank);
  const IntList zeros(p.rank, 0);
  const IntList output_padding = p.transposed ? Take(p.output_padding, p.rank) : zeros;
  const c10::optional<at::Tensor> bias =
      t.b.defined() ? c10::optional<at::Tensor>(t.b) : c10::nullopt;
  // convolution_backward reads only the shape of the operand whose gradient is not asked for.
  auto shape_of = [](const Shape& s) { return at::zeros(s, F64()); };
  auto backward = [&](const at::Tensor& dy, const at::Tensor& x, const at::Tensor& w,
                      bool want_data) {
    auto grads =
        at::convolution_backward(dy, x, w, c10::nullopt, stride, zeros, dilation, p.transposed,
                                 output_padding, p.groups, {want_data, !want_data, false});
    return want_data ? std::get<0>(grads) : std::get<1>(grads);
  };

  if (!p.transposed) {
    switch (d) {
      case Direction::kForward:
        return at::convolution(PadSpatial(t.x, p), t.w, bias, stride, zeros, dilation, false, zeros,
                               p.groups);
      case Direction::kBackwardData:
        return CropSpatial(backward(t.dy, shape_of(PaddedInputShape(p)), t.w, true), p, p.input);
      case Direction::kBackwardWeight:
        return backward(t.dy, PadSpatial(t.x, p), shape_of(p.weight_shape()), false);
    }
  } else {
    switch (d) {
      case Direction::kForward:
        return CropSpatial(at::convolution(t.x, t.w, bias, stride, zeros, dilation, true,
                                           output_padding, p.groups),
                           p, p.output());
      case Direction::kBackwardData:
        return backward(PadSpatial(t.dy, p), shape_of(p.input_shape()), t.w, true);
      case Direction::kBackwardWeight:
        return backward(PadSpatial(t.dy, p), t.x, shape_of(p.weight_shape()), false);
    }
  }
  return {};
}

at::Tensor AbsOrUndefined(const at::Tensor& t) { return t.defined() ? at::abs(t) : t; }

Result<OracleOutput> ComputeOrThrow(const ConvProblem& p, Direction d, const CaseInputs& in,
                                    bool with_magnitude) {
  AtenInputs t;
  if (d != Direction::kBackwardData) {
    CP_RETURN_IF_ERROR(CheckInput("input", in.input, p.input_shape()));
    t.x = ToAten(in.input);
  }
  if (d != Direction::kBackwardWeight) {
    CP_RETURN_IF_ERROR(CheckInput("weight", in.weight, p.weight_shape()));
    t.w = ToAten(in.weight);
  }
  if (d != Direction::kForward) {
    CP_RETURN_IF_ERROR(CheckInput("grad_output", in.grad_output, p.output_shape()));
    t.dy = ToAten(in.grad_output);
  }
  if (d == Direction::kForward && p.bias) {
    CP_RETURN_IF_ERROR(CheckInput("bias", in.bias, p.bias_shape()));
    t.b = ToAten(in.bias);
  }

  OracleOutput out;
  out.result = FromAten(RunDirection(p, d, t));
  const Shape expected = ResultShape(p, d);
  if (out.result.shape != expected)
    return Status::Internal(std::string("the oracle's ") + DirectionName(d) + " result has shape " +
                            ShapeText(out.result.shape) + ", but the shape math says " +
                            ShapeText(expected));
  if (with_magnitude) {
    AtenInputs a{AbsOrUndefined(t.x), AbsOrUndefined(t.w), AbsOrUndefined(t.b),
                 AbsOrUndefined(t.dy)};
    out.magnitude = FromAten(RunDirection(p, d, a));
  }
  return out;
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

// The path ATen's dispatcher picks for this problem's forward call (padding 0, as RunDirection
// calls it). The backward calls of the slow paths use the matching slow backward kernels.
std::string SelectBackend(const ConvProblem& p) {
  at::Tensor x = at::empty(p.transposed ? p.input_shape() : PaddedInputShape(p), F64());
  at::Tensor w = at::empty(p.weight_shape(), F64());
  const IntList zeros(p.rank, 0);
  return BackendName(at::native::select_conv_backend(
      x, w, c10::nullopt, Take(p.stride, p.rank), zeros, Take(p.dilation, p.rank), p.transposed,
      p.transposed ? Take(p.output_padding, p.rank) : zeros, p.groups));
}

}  // namespace

Result<OracleOutput> TorchOracle::Compute(const ConvProblem& p, Direction d,
                                          const CaseInputs& inputs, bool with_magnitude) {
  CP_RETURN_IF_ERROR(Validate(p));
  try {
    UseOneThread();
    return ComputeOrThrow(p, d, inputs, with_magnitude);
  } catch (const c10::Error& e) {
    return Status::Internal(std::string("ATen failed on ") + DirectionName(d) + ": " +
                            e.what_without_backtrace());
  } catch (const std::exception& e) {
    return Status::Internal(std::string("the oracle failed on ") + DirectionName(d) + ": " +
                            e.what());
  }
}

std::string TorchOracle::TorchVersion() {
  // NOTE: the version the library was built as. Debian's 1.13.1+dfsg package says "1.13.0" here
  // (its headers and at::show_config() agree), so this names the ABI, not the package revision.
  static const std::string version = [] {
    std::string v = TORCH_VERSION;
    try {
      const std::string config = at::show_config();
      const std::string key = "TORCH_VERSION=";
      size_t at = config.find(key);
      if (at != std::string::npos) {
        at += key.size();
        std::string lib = config.substr(at, config.find_first_of(", \n", at) - at);
        if (lib != v) v += " (headers; library " + lib + ")";
      }
    } catch (const std::exception&) {
      // The header version alone is still right for the code compiled here.
    }
    return v;
  }();
  return version;
}

std::string TorchOracle::Backend() {
  static const std::string description = [] {
    // Probe the dispatcher on representative problems and list each distinct path per kind.
    struct Probe {
      const char* kind;
      bool transposed;
      int64_t dilation, groups;
    };
    const Probe probes[] = {{"conv", false, 1, 1},
                            {"dilated", false, 2, 1},
                            {"grouped", false, 1, 2},
                            {"transposed", true, 1, 1},
                            {"transposed-dilated", true, 2, 1}};
    std::string text = "aten cpu float64, 1 thread:";
    try {
      for (const Probe& probe : probes) {
        std::set<std::string> names;
        for (int rank = 1; rank <= kMaxSpatialRank; ++rank) {
          ConvProblem p;
          p.rank = rank;
          p.transposed = probe.transposed;
          p.groups = probe.groups;
          p.in_channels = p.out_channels = 2;
          p.input = {5, 5, 5};
          p.kernel = {3, 3, 3};
          p.dilation = {probe.dilation, probe.dilation, probe.dilation};
          names.insert(SelectBackend(p));
        }
        text += std::string(" ") + probe.kind + "=";
        bool first = true;
        for (const std::string& n : names) text += (first ? "" : "|") + n, first = false;
      }
    } catch (const std::exception& e) {
      text += std::string(" (backend probe failed: ") + e.what() + ")";
    }
    return text;
  }();
  return description;
}

std::string TorchOracle::Backend(const ConvProblem& p) {
  if (!Validate(p).ok()) return "invalid problem";
  try {
    return SelectBackend(p);
  } catch (const std::exception& e) {
    return std::string("unknown (") + e.what() + ")";
  }
}

}  // namespace convparity
