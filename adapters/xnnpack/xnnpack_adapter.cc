// The XNNPACK adapter: convparity's forward cases on XNNPACK's float32 convolution operators.
//
//   route "auto" (SUT xnnpack):       xnn_*_convolution2d_nhwc_f32 and deconvolution2d_nhwc_f32;
//                                     for a channels-first case, convolution2d_nchw_f32 where that
//                                     operator accepts the problem (it takes only a few shapes).
//   route "nchw" (SUT xnnpack:nchw):  convolution2d_nchw_f32 only: channels-first cases as NCHW,
//                                     channels-last ones with XNN_FLAG_INPUT_NHWC (NHWC in, NCHW
//                                     out); whatever it does not accept is declined.
//
// Layouts are converted here: PyTorch hands NC(H)W data and OI(HW) / IO(HW) weights, XNNPACK wants
// NHWC data and GOHWI weights (group, output channel, kernel rows, kernel columns, input channel),
// for deconvolutions too with O the deconvolution's own output. A depthwise case whose weight hint
// is HWIO takes XNNPACK's depthwise weight layout instead (XNN_FLAG_DEPTHWISE_CONVOLUTION: HW(G·M),
// TensorFlow's), a different packing path. 1-D problems run as 2-D ones with one row.
#include <xnnpack.h>

#include <cmath>
#include <cstring>
#include <memory>
#include <string>
#include <tuple>

#include "adapter_support.h"
#include "convparity_plugin.h"
#include "xnnpack_api.h"

#ifndef CONVPARITY_XNNPACK_ROUTE
#define CONVPARITY_XNNPACK_ROUTE 0
#endif
#ifndef CONVPARITY_XNNPACK_VERSION
#define CONVPARITY_XNNPACK_VERSION "unknown version"
#endif

namespace {

using convparity_adapter::Copied;
using convparity_adapter::Decline;
using convparity_adapter::Fail;
using convparity_adapter::GuardedFloats;
using convparity_adapter::GuardedMemory;
using convparity_adapter::NchwToNhwc;
using convparity_adapter::NhwcToNchw;
using convparity_adapter::Permute;
using convparity_adapter::Problem2d;
using convparity_adapter::XnnConvNchwSetup;
using convparity_adapter::XnnConvNhwcSetup;
using convparity_adapter::XnnCreateConvNchw;
using convparity_adapter::XnnCreateConvNhwc;
using convparity_adapter::XnnCreateDeconvNhwc;
using convparity_adapter::XnnDeconvNhwcSetup;
using convparity_adapter::XnnWindow;

constexpr bool kNchwOnly = CONVPARITY_XNNPACK_ROUTE == 1;
// XNNPACK may read (never write) this far past the end of an input (xnnpack.h).
constexpr size_t kExtraFloats = (XNN_EXTRA_BYTES + sizeof(float) - 1) / sizeof(float);

const char* StatusName(xnn_status s) {
  switch (s) {
    case xnn_status_success:
      return "success";
    case xnn_status_uninitialized:
      return "uninitialized";
    case xnn_status_invalid_parameter:
      return "invalid_parameter";
    case xnn_status_invalid_state:
      return "invalid_state";
    case xnn_status_unsupported_parameter:
      return "unsupported_parameter";
    case xnn_status_unsupported_hardware:
      return "unsupported_hardware";
    case xnn_status_out_of_memory:
      return "out_of_memory";
    default:  // newer XNNPACKs have more
      return "unknown status";
  }
}

// XNNPACK's own memory (packed weights, indirection buffers, …) in guarded blocks: its overflows
// crash the case that made them instead of corrupting convparity's heap (guarded_memory.h).
void* Allocate(void*, size_t size) { return GuardedMemory::Allocate(size); }
void* Reallocate(void*, void* p, size_t size) { return GuardedMemory::Reallocate(p, size); }
void Deallocate(void*, void* p) { GuardedMemory::Free(p); }
void* AlignedAllocate(void*, size_t alignment, size_t size) {
  return GuardedMemory::Allocate(size, alignment);
}
const xnn_allocator kGuardedAllocator = {nullptr,    Allocate,        Reallocate,
                                         Deallocate, AlignedAllocate, Deallocate};

// XNNPACK is initialized once per process, on first use.
bool Initialized(std::string* why) {
  static const xnn_status status = xnn_initialize(&kGuardedAllocator);
  if (status != xnn_status_success) *why = std::string("xnn_initialize: ") + StatusName(status);
  return status == xnn_status_success;
}

// Deletes the operator however the case ends.
struct Operator {
  xnn_operator_t op = nullptr;
  ~Operator() {
    if (op != nullptr) xnn_delete_operator(op);
  }
};

// Runs an operator that its setup prepared (`setup`, from the call named `what`).
int Run(xnn_status setup, const char* what, xnn_operator_t op) {
  if (setup != xnn_status_success) return Fail(std::string(what) + ": " + StatusName(setup));
  const xnn_status run = xnn_run_operator(op, /*threadpool=*/nullptr);
  if (run != xnn_status_success)
    return Fail(std::string("xnn_run_operator after ") + what + ": " + StatusName(run));
  return CONVPARITY_OK;
}

// A creation failure: XNNPACK's refusals of the parameters, and of an operator it does not offer on
// this CPU, are declines (it does not implement the configuration here), anything else an error.
// NOTE: since 41e87ce (2023) XNNPACK offers its NCHW convolution on x86 only without AVX; with AVX,
// creating one returns unsupported_hardware for every problem (findings/xnnpack-2, "Newest
// release").
int CreationFailed(xnn_status s, const char* what) {
  const std::string text = std::string("xnn_create_") + what + ": " + StatusName(s);
  if (s == xnn_status_unsupported_parameter || s == xnn_status_invalid_parameter)
    return Decline("XNNPACK rejects these parameters (" + text + ")");
  if (s == xnn_status_unsupported_hardware)
    return Decline("XNNPACK does not offer this operator on this CPU (" + text + ")");
  return Fail(text);
}

XnnWindow WindowOf(const Problem2d& q) {
  XnnWindow g;
  g.pad_top = static_cast<uint32_t>(q.pad_top);
  g.pad_right = static_cast<uint32_t>(q.pad_right);
  g.pad_bottom = static_cast<uint32_t>(q.pad_bottom);
  g.pad_left = static_cast<uint32_t>(q.pad_left);
  g.kernel_h = static_cast<uint32_t>(q.kernel_h);
  g.kernel_w = static_cast<uint32_t>(q.kernel_w);
  g.stride_h = static_cast<uint32_t>(q.stride_h);
  g.stride_w = static_cast<uint32_t>(q.stride_w);
  g.dilation_h = static_cast<uint32_t>(q.dilation_h);
  g.dilation_w = static_cast<uint32_t>(q.dilation_w);
  g.groups = static_cast<uint32_t>(q.groups);
  g.group_in = static_cast<size_t>(q.group_in());
  g.group_out = static_cast<size_t>(q.group_out());
  g.in_stride = static_cast<size_t>(q.in_channels);
  g.out_stride = static_cast<size_t>(q.out_channels);
  return g;
}

bool DepthwiseWeights(const Problem2d& q) {
  return q.group_in() == 1 && q.groups > 1 && q.weight_layout == CONVPARITY_WEIGHT_SPATIAL_IO;
}

// Ordinary convolution, NHWC operator.
int ConvolutionNhwc(const Problem2d& q, const float* x, const float* w, const float* b, float* y) {
  const bool depthwise = DepthwiseWeights(q);
  // PyTorch (G·Go, Gi, KH, KW) → GOHWI (G, Go, KH, KW, Gi), or (KH, KW, G·Go) for depthwise.
  const GuardedFloats weights =
      depthwise
          ? Permute<3>(w, {q.out_channels, q.kernel_h, q.kernel_w}, {1, 2, 0})
          : Permute<4>(w, {q.out_channels, q.group_in(), q.kernel_h, q.kernel_w}, {0, 2, 3, 1});
  Operator op;
  const xnn_status created = XnnCreateConvNhwc(
      WindowOf(q), weights.data(), b, depthwise ? XNN_FLAG_DEPTHWISE_CONVOLUTION : 0, &op.op);
  if (created != xnn_status_success) return CreationFailed(created, "convolution2d_nhwc_f32");
  const GuardedFloats input = NchwToNhwc(x, q.batch, q.in_channels, q.in_h, q.in_w, kExtraFloats);
  GuardedFloats output(q.batch * q.out_h * q.out_w * q.out_channels);
  std::unique_ptr<GuardedFloats> workspace;
  const char* what = "";
  const xnn_status setup = XnnConvNhwcSetup(op.op, q.batch, q.in_h, q.in_w, input.data(),
                                            output.data(), &workspace, &what);
  const int code = Run(setup, what, op.op);
  if (code == CONVPARITY_OK)
    NhwcToNchw(output.data(), q.batch, q.out_channels, q.out_h, q.out_w, y);
  return code;
}

// Transposed convolution, NHWC deconvolution operator. XNNPACK's adjustment is PyTorch's
// output_padding but must be smaller than the stride; PyTorch allows up to max(stride, dilation)
// - 1. A larger one is expressed by trimming less at the end where the padding allows it.
int DeconvolutionNhwc(const Problem2d& q, const float* x, const float* w, const float* b,
                      float* y) {
  Problem2d r = q;
  int64_t adjust_h = q.output_padding_h, adjust_w = q.output_padding_w;
  for (auto [adjust, pad, stride] :
       {std::tuple<int64_t*, int64_t*, int64_t>{&adjust_h, &r.pad_bottom, q.stride_h},
        {&adjust_w, &r.pad_right, q.stride_w}}) {
    if (*adjust < stride) continue;
    if (*pad < *adjust)
      return Decline(
          "output_padding >= stride: XNNPACK's adjustment must be below the stride, and the end "
          "padding is too small to absorb it");
    *pad -= *adjust;
    *adjust = 0;
  }
  // PyTorch (G·Gi, Go, KH, KW) → GOHWI (G, Go, KH, KW, Gi).
  const GuardedFloats weights = Permute<5>(
      w, {q.groups, q.group_in(), q.group_out(), q.kernel_h, q.kernel_w}, {0, 2, 3, 4, 1});
  Operator op;
  const xnn_status created = XnnCreateDeconvNhwc(WindowOf(r), weights.data(), b, &op.op);
  if (created != xnn_status_success) return CreationFailed(created, "deconvolution2d_nhwc_f32");
  const GuardedFloats input = NchwToNhwc(x, q.batch, q.in_channels, q.in_h, q.in_w, kExtraFloats);
  GuardedFloats output(q.batch * q.out_h * q.out_w * q.out_channels);
  const char* what = "";
  const xnn_status setup =
      XnnDeconvNhwcSetup(op.op, q.batch, q.in_h, q.in_w, static_cast<uint32_t>(adjust_h),
                         static_cast<uint32_t>(adjust_w), input.data(), output.data(), &what);
  const int code = Run(setup, what, op.op);
  if (code == CONVPARITY_OK)
    NhwcToNchw(output.data(), q.batch, q.out_channels, q.out_h, q.out_w, y);
  return code;
}

// Ordinary convolution, NCHW operator; CONVPARITY_UNSUPPORTED (nothing ran) when the operator does
// not take the problem. With nhwc_input, the input is NHWC and the weights OHWI (its 3x3 stride-2
// "hwc2chw" kernel); otherwise the weights stay in PyTorch's order, which is what its 1x1 (OI) and
// depthwise (GHW) kernels read.
int ConvolutionNchw(const Problem2d& q, bool nhwc_input, const float* x, const float* w,
                    const float* b, float* y) {
  const int64_t weight_count = q.out_channels * q.group_in() * q.kernel_h * q.kernel_w;
  const GuardedFloats weights =
      nhwc_input
          ? Permute<4>(w, {q.out_channels, q.group_in(), q.kernel_h, q.kernel_w}, {0, 2, 3, 1})
          : Copied(w, weight_count);
  Operator op;
  const xnn_status created = XnnCreateConvNchw(WindowOf(q), weights.data(), b,
                                               nhwc_input ? XNN_FLAG_INPUT_NHWC : 0, &op.op);
  if (created != xnn_status_success) return CreationFailed(created, "convolution2d_nchw_f32");
  const size_t input_count = q.batch * q.in_channels * q.in_h * q.in_w;
  const GuardedFloats input =
      nhwc_input ? NchwToNhwc(x, q.batch, q.in_channels, q.in_h, q.in_w, kExtraFloats)
                 : Copied(x, input_count, kExtraFloats);
  GuardedFloats output(q.batch * q.out_channels * q.out_h * q.out_w);
  const char* what = "";
  const xnn_status setup =
      XnnConvNchwSetup(op.op, q.batch, q.in_h, q.in_w, input.data(), output.data(), &what);
  const int code = Run(setup, what, op.op);
  if (code == CONVPARITY_OK) std::memcpy(y, output.data(), output.size() * sizeof(float));
  return code;
}

int Forward(const convparity_problem* p, const float* x, const float* w, const float* b, float* y) {
  Problem2d q;
  if (!convparity_adapter::As2d(*p, &q))
    return Decline("XNNPACK has no 3-D convolution (1-D and 2-D only)");
  std::string why;
  if (!Initialized(&why)) return Fail(why);
  if (kNchwOnly) {
    if (q.transposed) return Decline("XNNPACK has no NCHW deconvolution operator");
    return ConvolutionNchw(q, q.channels_last, x, w, b, y);
  }
  if (q.transposed) return DeconvolutionNhwc(q, x, w, b, y);
  if (!q.channels_last) {
    const int code = ConvolutionNchw(q, /*nhwc_input=*/false, x, w, b, y);
    if (code != CONVPARITY_UNSUPPORTED) return code;  // else the NHWC operator takes it
  }
  return ConvolutionNhwc(q, x, w, b, y);
}

// The NHWC operators: 1-D and 2-D, and an output_padding at or above the stride only where the
// end padding absorbs it (DeconvolutionNhwc). The NCHW operator alone declares nothing: it takes a
// few exact shapes, which its library decides and its versions change.
const char kCapabilities[] = R"([
  {"directions": ["fwd"], "ranks": [1, 2], "output_padding": "below_stride_or_end_pad"}])";

const convparity_plugin kPlugin = {
    CONVPARITY_PLUGIN_ABI_VERSION,
    kNchwOnly ? "XNNPACK " CONVPARITY_XNNPACK_VERSION ", NCHW convolution operator"
              : "XNNPACK " CONVPARITY_XNNPACK_VERSION ", NHWC (de)convolution operators",
    CONVPARITY_FORWARD,
    Forward,
    nullptr,
    nullptr,
    convparity_adapter::LastMessageText,
    0,
    nullptr,
    nullptr,
    kNchwOnly ? nullptr : kCapabilities,
};

}  // namespace

CONVPARITY_PLUGIN_EXPORT const convparity_plugin* convparity_plugin_entry(void) { return &kPlugin; }
