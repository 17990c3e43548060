// The few XNNPACK calls the adapter makes, over the two shapes of its operator API:
//  - Debian 12's snapshot (2022): xnn_create_*(…, flags, &op) and xnn_setup_*(op, sizes, input,
//    output, threadpool), then xnn_run_operator;
//  - the API since 2023 (CONVPARITY_XNNPACK_RESHAPE_API, detected by CMake): create takes a
//    weights cache, and setup is split into xnn_reshape_* (sizes, workspace size) and xnn_setup_*
//    (pointers).
// Versions in between (a code cache argument as well) are not supported.
#pragma once

#include <xnnpack.h>

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <memory>

#include "guarded_memory.h"

namespace convparity_adapter {

// The window of one convolution or deconvolution operator, as XNNPACK's create functions take it.
struct XnnWindow {
  uint32_t pad_top, pad_right, pad_bottom, pad_left;
  uint32_t kernel_h, kernel_w, stride_h, stride_w, dilation_h, dilation_w;
  uint32_t groups;
  size_t group_in, group_out, in_stride, out_stride;
};

#if CONVPARITY_XNNPACK_RESHAPE_API
#define CONVPARITY_XNN_CACHE , nullptr
#else
#define CONVPARITY_XNN_CACHE
#endif

inline xnn_status XnnCreateConvNhwc(const XnnWindow& g, const float* w, const float* b,
                                    uint32_t flags, xnn_operator_t* op) {
  return xnn_create_convolution2d_nhwc_f32(
      g.pad_top, g.pad_right, g.pad_bottom, g.pad_left, g.kernel_h, g.kernel_w, g.stride_h,
      g.stride_w, g.dilation_h, g.dilation_w, g.groups, g.group_in, g.group_out, g.in_stride,
      g.out_stride, w, b, -INFINITY, INFINITY, flags CONVPARITY_XNN_CACHE, op);
}

inline xnn_status XnnCreateConvNchw(const XnnWindow& g, const float* w, const float* b,
                                    uint32_t flags, xnn_operator_t* op) {
  return xnn_create_convolution2d_nchw_f32(
      g.pad_top, g.pad_right, g.pad_bottom, g.pad_left, g.kernel_h, g.kernel_w, g.stride_h,
      g.stride_w, g.dilation_h, g.dilation_w, g.groups, g.group_in, g.group_out, g.in_stride,
      g.out_stride, w, b, -INFINITY, INFINITY, flags CONVPARITY_XNN_CACHE, op);
}

inline xnn_status XnnCreateDeconvNhwc(const XnnWindow& g, const float* w, const float* b,
                                      xnn_operator_t* op) {
  return xnn_create_deconvolution2d_nhwc_f32(
      g.pad_top, g.pad_right, g.pad_bottom, g.pad_left, g.kernel_h, g.kernel_w, g.stride_h,
      g.stride_w, g.dilation_h, g.dilation_w, g.groups, g.group_in, g.group_out, g.in_stride,
      g.out_stride, w, b, -INFINITY, INFINITY, 0 CONVPARITY_XNN_CACHE, op);
}

#undef CONVPARITY_XNN_CACHE

// Each Xnn*Setup prepares the operator for these sizes and pointers; the caller then runs it.
// `what` names the failing call.
// `workspace` holds the scratch memory the newer API asks for (in guarded memory).
inline xnn_status XnnConvNhwcSetup(xnn_operator_t op, size_t n, size_t h, size_t w, const float* in,
                                   float* out, std::unique_ptr<GuardedFloats>* workspace,
                                   const char** what) {
#if CONVPARITY_XNNPACK_RESHAPE_API
  size_t bytes = 0, out_h = 0, out_w = 0;
  *what = "xnn_reshape_convolution2d_nhwc_f32";
  xnn_status s = xnn_reshape_convolution2d_nhwc_f32(op, n, h, w, &bytes, &out_h, &out_w, nullptr);
  if (s != xnn_status_success) return s;
  *workspace = std::make_unique<GuardedFloats>((bytes + XNN_EXTRA_BYTES) / sizeof(float) + 1);
  *what = "xnn_setup_convolution2d_nhwc_f32";
  return xnn_setup_convolution2d_nhwc_f32(op, (*workspace)->data(), in, out);
#else
  (void)workspace;
  *what = "xnn_setup_convolution2d_nhwc_f32";
  return xnn_setup_convolution2d_nhwc_f32(op, n, h, w, in, out, nullptr);
#endif
}

inline xnn_status XnnConvNchwSetup(xnn_operator_t op, size_t n, size_t h, size_t w, const float* in,
                                   float* out, const char** what) {
#if CONVPARITY_XNNPACK_RESHAPE_API
  size_t out_h = 0, out_w = 0;
  *what = "xnn_reshape_convolution2d_nchw_f32";
  xnn_status s = xnn_reshape_convolution2d_nchw_f32(op, n, h, w, &out_h, &out_w, nullptr);
  if (s != xnn_status_success) return s;
  *what = "xnn_setup_convolution2d_nchw_f32";
  return xnn_setup_convolution2d_nchw_f32(op, in, out);
#else
  *what = "xnn_setup_convolution2d_nchw_f32";
  return xnn_setup_convolution2d_nchw_f32(op, n, h, w, in, out, nullptr);
#endif
}

inline xnn_status XnnDeconvNhwcSetup(xnn_operator_t op, size_t n, size_t h, size_t w,
                                     uint32_t adjust_h, uint32_t adjust_w, const float* in,
                                     float* out, const char** what) {
#if CONVPARITY_XNNPACK_RESHAPE_API
  size_t out_h = 0, out_w = 0;
  *what = "xnn_reshape_deconvolution2d_nhwc_f32";
  xnn_status s = xnn_reshape_deconvolution2d_nhwc_f32(op, n, h, w, adjust_h, adjust_w, &out_h,
                                                      &out_w, nullptr);
  if (s != xnn_status_success) return s;
  *what = "xnn_setup_deconvolution2d_nhwc_f32";
  return xnn_setup_deconvolution2d_nhwc_f32(op, in, out);
#else
  *what = "xnn_setup_deconvolution2d_nhwc_f32";
  return xnn_setup_deconvolution2d_nhwc_f32(op, n, h, w, adjust_h, adjust_w, in, out, nullptr);
#endif
}

}  // namespace convparity_adapter
