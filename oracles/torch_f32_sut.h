// `torch-f32*`: ATen's own float32 convolution paths as systems under test, judged against its
// float64 path (the oracle) in random mode. Real code nobody here wrote: oneDNN (mkldnn), ATen's
// native slow kernels and its channels-last kernels. This header names no ATen type.
//
//   torch-f32       ATen's default CPU choice for contiguous tensors (oneDNN where ATen picks it)
//   torch-f32-slow  the same call with oneDNN disabled (ATen's native im2col / vol2col kernels)
//   torch-f32-cl    channels-last tensors (ChannelsLast, ChannelsLast3d; a 1-D problem gets a
//                   transposed (N, W, C) input), which routes to other kernels
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "core/conv_problem.h"
#include "core/sut.h"

namespace convparity {

inline std::vector<std::string> TorchF32SutNames() {
  return {"torch-f32", "torch-f32-slow",
          "torch-f32-cl"};  // in the order of torch_f32_sut.cc's Variant
}
// nullptr when `name` is not one of TorchF32SutNames().
std::unique_ptr<ConvSut> MakeTorchF32Sut(const std::string& name);

// The ATen path the named variant's forward call takes for `p` on this machine (e.g. "Mkldnn",
// "SlowDilated2d"), for reports; "unknown (…)" when it cannot tell.
std::string TorchF32Backend(const std::string& name, const ConvProblem& p);

}  // namespace convparity
