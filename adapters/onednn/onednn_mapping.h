// A convparity problem in oneDNN's terms: the descriptors' dimensions, strides, dilation, padding,
// and the memory formats the primitive is created with. Conventions (README.md):
//  - src is the operator's input (N, C_in, spatial...) and dst its output, for convolution and
//    deconvolution alike; the backward directions use them as diff_src and diff_dst.
//  - weights are (OC, IC, k...) or, with groups, (G, OC/G, IC/G, k...), where OC is the channel
//    count of dst, for convolution and deconvolution alike.
//  - NOTE: oneDNN's dilation is PyTorch's minus one (0 = none).
//  - deconvolution's output_padding op becomes padding_r = pad_end - op, which oneDNN accepts down
//  to
//    -(stride - 1).
#pragma once

#include <oneapi/dnnl/dnnl.hpp>
#include <string>

#include "convparity_plugin.h"

namespace convparity_onednn {

// Which formats the primitive is asked for, chosen by the case's layouts (the plugin ABI's hints):
// the natural weight layout (OI… ordinary, IO… transposed) asks for PyTorch's plain weights, any
// other weight layout lets oneDNN choose (format `any`: blocked formats and reorders);
// channels-last data asks for n…c, channels-first data nc… beside plain weights and `any` beside
// `any` weights.
enum class FormatPolicy {
  kPlain,            // nc…  + plain weights
  kAny,              // any  + any
  kChannelsLast,     // n…c  + plain weights
  kChannelsLastAny,  // n…c  + any
};
const char* FormatPolicyName(FormatPolicy policy);  // "plain", "any", "nhwc+plain", "nhwc+any"

struct Mapping {
  bool deconvolution = false;
  bool bias = false;
  FormatPolicy policy = FormatPolicy::kPlain;
  dnnl::memory::dims strides, dilates, padding_l, padding_r;
  // The layouts of convparity's buffers: PyTorch's contiguous ones.
  dnnl::memory::desc user_src, user_weights, user_dst, user_bias;
  // What the primitive descriptor is created with (FormatPolicy).
  dnnl::memory::desc src, weights, dst, bias_md;
};

// Fills `m` from `p`; returns "" or why oneDNN cannot express the problem (a decline's reason).
std::string MapProblem(const convparity_problem& p, Mapping* m);

}  // namespace convparity_onednn
