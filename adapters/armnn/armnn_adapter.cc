// The Arm NN adapter: convparity's forward cases on Arm NN's Convolution2d,
// DepthwiseConvolution2d and TransposeConvolution2d layers, run by its CpuRef backend (the
// reference backend, which runs anywhere; Debian ships it as a dynamic backend).
//
// Each case builds a three-layer network (input → convolution → output), optimizes it for CpuRef,
// loads it, runs it once and unloads it; the runtime is made once per process. Arm NN 20.08 takes
// weights only as constant tensors baked into the network (copied into its workloads), so a
// network cannot be reused for another case's weights: README.md gives the cost of a build.
//
// Layouts: the case's data layout hint picks Arm NN's (NCHW or NHWC); the weights follow it, as
// Arm NN wants: Convolution2d OIHW / OHWI, TransposeConvolution2d OIHW / OHWI with O the output
// channels of the transposed convolution, DepthwiseConvolution2d [M, C, H, W] for both layouts
// (20.08's convention). A 1-D problem runs as a 2-D one with one row.
#include <armnn/ArmNN.hpp>
#include <cstring>
#include <exception>
#include <memory>
#include <string>
#include <vector>

#include "adapter_support.h"
#include "convparity_plugin.h"

#ifndef CONVPARITY_ARMNN_VERSION
#define CONVPARITY_ARMNN_VERSION "unknown version"
#endif

namespace {

using convparity_adapter::Copied;
using convparity_adapter::Decline;
using convparity_adapter::Fail;
using convparity_adapter::GuardedFloats;
using convparity_adapter::Permute;
using convparity_adapter::Problem2d;

// The runtime, with the CpuRef backend loaded, once per process.
armnn::IRuntime* Runtime(std::string* why) {
  static armnn::IRuntimePtr runtime = [] {
    armnn::IRuntime::CreationOptions options;
#ifdef CONVPARITY_ARMNN_BACKEND_PATH
    options.m_DynamicBackendsPath = CONVPARITY_ARMNN_BACKEND_PATH;
#endif
    return armnn::IRuntime::Create(options);
  }();
  if (!runtime) *why = "armnn::IRuntime::Create failed";
  return runtime.get();
}

armnn::TensorShape DataShape(const Problem2d& q, int64_t channels, int64_t h, int64_t w) {
  const auto u = [](int64_t v) { return static_cast<unsigned int>(v); };
  return q.channels_last ? armnn::TensorShape({u(q.batch), u(h), u(w), u(channels)})
                         : armnn::TensorShape({u(q.batch), u(channels), u(h), u(w)});
}

armnn::TensorShape Shape4(int64_t a, int64_t b, int64_t c, int64_t d) {
  const auto u = [](int64_t v) { return static_cast<unsigned int>(v); };
  return armnn::TensorShape({u(a), u(b), u(c), u(d)});
}

// The layer's weights in Arm NN's layout, with their shape.
struct Weights {
  armnn::TensorShape shape;
  GuardedFloats values;
};

Weights ConvolutionWeights(const Problem2d& q, const float* w) {
  const int64_t o = q.out_channels, i = q.in_channels, kh = q.kernel_h, kw = q.kernel_w;
  if (!q.channels_last) return {Shape4(o, i, kh, kw), Copied(w, o * i * kh * kw)};
  return {Shape4(o, kh, kw, i), Permute<4>(w, {o, i, kh, kw}, {0, 2, 3, 1})};
}

// PyTorch (C·M, 1, KH, KW), viewed as (C, M, KH, KW) → [M, C, KH, KW].
Weights DepthwiseWeights(const Problem2d& q, const float* w) {
  const int64_t c = q.in_channels, m = q.group_out(), kh = q.kernel_h, kw = q.kernel_w;
  return {Shape4(m, c, kh, kw), Permute<4>(w, {c, m, kh, kw}, {1, 0, 2, 3})};
}

// PyTorch (C_in, C_out, KH, KW) → OIHW or OHWI, O = C_out.
Weights TransposedWeights(const Problem2d& q, const float* w) {
  const int64_t i = q.in_channels, o = q.out_channels, kh = q.kernel_h, kw = q.kernel_w;
  if (!q.channels_last) return {Shape4(o, i, kh, kw), Permute<4>(w, {i, o, kh, kw}, {1, 0, 2, 3})};
  return {Shape4(o, kh, kw, i), Permute<4>(w, {i, o, kh, kw}, {1, 2, 3, 0})};
}

template <typename Descriptor>
void SetWindow(const Problem2d& q, Descriptor* d) {
  d->m_PadLeft = static_cast<uint32_t>(q.pad_left);
  d->m_PadRight = static_cast<uint32_t>(q.pad_right);
  d->m_PadTop = static_cast<uint32_t>(q.pad_top);
  d->m_PadBottom = static_cast<uint32_t>(q.pad_bottom);
  d->m_StrideX = static_cast<uint32_t>(q.stride_w);
  d->m_StrideY = static_cast<uint32_t>(q.stride_h);
  d->m_BiasEnabled = q.bias;
  d->m_DataLayout = q.channels_last ? armnn::DataLayout::NHWC : armnn::DataLayout::NCHW;
}

// Why Arm NN cannot run the problem, or "" when it can.
std::string WhyNot(const Problem2d& q) {
  if (q.transposed) {
    if (q.groups > 1) return "Arm NN's TransposeConvolution2d has no groups";
    if (q.dilation_h > 1 || q.dilation_w > 1)
      return "Arm NN's TransposeConvolution2d has no dilation";
    return "";
  }
  if (q.groups > 1 && q.group_in() != 1)
    return "Arm NN has no grouped convolution (Convolution2d has no groups; "
           "DepthwiseConvolution2d needs groups == C_in)";
  return "";
}

// Adds the problem's layer to `net`, its constants copied by Arm NN.
armnn::IConnectableLayer* AddLayer(const Problem2d& q, const float* w, const float* b,
                                   armnn::INetwork* net) {
  const armnn::TensorInfo bias_info(armnn::TensorShape({static_cast<unsigned>(q.out_channels)}),
                                    armnn::DataType::Float32);
  const armnn::Optional<armnn::ConstTensor> bias =
      q.bias ? armnn::Optional<armnn::ConstTensor>(armnn::ConstTensor(bias_info, b))
             : armnn::EmptyOptional();
  if (q.transposed) {
    armnn::TransposeConvolution2dDescriptor d;
    SetWindow(q, &d);
    if (q.output_padding_h > 0 || q.output_padding_w > 0) {
      // TensorFlow's way of saying output_padding: the full output shape.
      d.m_OutputShapeEnabled = true;
      const armnn::TensorShape out = DataShape(q, q.out_channels, q.out_h, q.out_w);
      d.m_OutputShape = {out[0], out[1], out[2], out[3]};
    }
    const Weights weights = TransposedWeights(q, w);
    const armnn::TensorInfo info(weights.shape, armnn::DataType::Float32);
    return net->AddTransposeConvolution2dLayer(d, armnn::ConstTensor(info, weights.values.data()),
                                               bias);
  }
  if (q.groups > 1) {
    armnn::DepthwiseConvolution2dDescriptor d;
    SetWindow(q, &d);
    d.m_DilationX = static_cast<uint32_t>(q.dilation_w);
    d.m_DilationY = static_cast<uint32_t>(q.dilation_h);
    const Weights weights = DepthwiseWeights(q, w);
    const armnn::TensorInfo info(weights.shape, armnn::DataType::Float32);
    return net->AddDepthwiseConvolution2dLayer(d, armnn::ConstTensor(info, weights.values.data()),
                                               bias);
  }
  armnn::Convolution2dDescriptor d;
  SetWindow(q, &d);
  d.m_DilationX = static_cast<uint32_t>(q.dilation_w);
  d.m_DilationY = static_cast<uint32_t>(q.dilation_h);
  const Weights weights = ConvolutionWeights(q, w);
  const armnn::TensorInfo info(weights.shape, armnn::DataType::Float32);
  return net->AddConvolution2dLayer(d, armnn::ConstTensor(info, weights.values.data()), bias);
}

// Builds, optimizes, loads and runs the network of one case. Throws what Arm NN throws.
int RunNetwork(armnn::IRuntime* runtime, const Problem2d& q, const float* x, const float* w,
               const float* b, float* y) {
  armnn::INetworkPtr net = armnn::INetwork::Create();
  armnn::IConnectableLayer* input = net->AddInputLayer(0);
  armnn::IConnectableLayer* conv = AddLayer(q, w, b, net.get());
  armnn::IConnectableLayer* output = net->AddOutputLayer(0);
  input->GetOutputSlot(0).Connect(conv->GetInputSlot(0));
  conv->GetOutputSlot(0).Connect(output->GetInputSlot(0));
  const armnn::TensorInfo in_info(DataShape(q, q.in_channels, q.in_h, q.in_w),
                                  armnn::DataType::Float32);
  const armnn::TensorInfo out_info(DataShape(q, q.out_channels, q.out_h, q.out_w),
                                   armnn::DataType::Float32);
  input->GetOutputSlot(0).SetTensorInfo(in_info);
  conv->GetOutputSlot(0).SetTensorInfo(out_info);

  std::vector<std::string> messages;
  armnn::IOptimizedNetworkPtr optimized = armnn::Optimize(
      *net, {armnn::Compute::CpuRef}, runtime->GetDeviceSpec(), armnn::OptimizerOptions(),
      armnn::Optional<std::vector<std::string>&>(messages));
  if (!optimized) {
    std::string text = "the CpuRef backend does not take this layer";
    for (const std::string& m : messages) text += "; " + m;
    return Decline(text);
  }
  armnn::NetworkId id = 0;
  std::string error;
  if (runtime->LoadNetwork(id, std::move(optimized), error, armnn::INetworkProperties()) !=
      armnn::Status::Success)
    return Fail("LoadNetwork: " + error);
  // Unloads the network however the run ends.
  struct Loaded {
    armnn::IRuntime* runtime;
    armnn::NetworkId id;
    ~Loaded() { runtime->UnloadNetwork(id); }
  } loaded{runtime, id};

  const GuardedFloats input_values =
      q.channels_last ? convparity_adapter::NchwToNhwc(x, q.batch, q.in_channels, q.in_h, q.in_w)
                      : Copied(x, q.batch * q.in_channels * q.in_h * q.in_w);
  GuardedFloats out_values(static_cast<size_t>(q.batch * q.out_channels * q.out_h * q.out_w));
  const armnn::InputTensors inputs{
      {0, armnn::ConstTensor(runtime->GetInputTensorInfo(id, 0), input_values.data())}};
  const armnn::OutputTensors outputs{
      {0, armnn::Tensor(runtime->GetOutputTensorInfo(id, 0), out_values.data())}};
  if (runtime->EnqueueWorkload(id, inputs, outputs) != armnn::Status::Success)
    return Fail("EnqueueWorkload failed");
  if (q.channels_last)
    convparity_adapter::NhwcToNchw(out_values.data(), q.batch, q.out_channels, q.out_h, q.out_w, y);
  else
    std::memcpy(y, out_values.data(), out_values.size() * sizeof(float));
  return CONVPARITY_OK;
}

int Forward(const convparity_problem* p, const float* x, const float* w, const float* b, float* y) {
  Problem2d q;
  if (!convparity_adapter::As2d(*p, &q))
    return Decline("Arm NN 20.08 has no 3-D convolution layer");
  if (const std::string why = WhyNot(q); !why.empty()) return Decline(why);
  std::string why;
  armnn::IRuntime* runtime = Runtime(&why);
  if (runtime == nullptr) return Fail(why);
  // Nothing may escape a C entry point: Arm NN's exceptions become errors (verdict crashed, with
  // the message), to be triaged like crashes.
  try {
    return RunNetwork(runtime, q, x, w, b, y);
  } catch (const armnn::Exception& e) {
    return Fail(std::string("armnn::Exception: ") + e.what());
  } catch (const std::exception& e) {
    return Fail(std::string("exception: ") + e.what());
  }
}

// What WhyNot and the 2-D view leave: 1-D and 2-D; an ordinary convolution plain or depthwise (any
// multiplier), a transposed one plain and undilated.
const char kCapabilities[] = R"([
  {"directions": ["fwd"], "ranks": [1, 2], "kinds": ["ordinary"],
   "groups": ["plain", "depthwise", "depthwise_multiplier"]},
  {"directions": ["fwd"], "ranks": [1, 2], "kinds": ["transposed"], "groups": ["plain"],
   "dilation": false}])";

const convparity_plugin kPlugin = {
    CONVPARITY_PLUGIN_ABI_VERSION,
    "Arm NN " CONVPARITY_ARMNN_VERSION ", CpuRef backend",
    CONVPARITY_FORWARD,
    Forward,
    nullptr,
    nullptr,
    convparity_adapter::LastMessageText,
    0,
    nullptr,
    nullptr,
    kCapabilities,
};

}  // namespace

CONVPARITY_PLUGIN_EXPORT const convparity_plugin* convparity_plugin_entry(void) { return &kPlugin; }
