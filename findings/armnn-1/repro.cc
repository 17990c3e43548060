// Arm NN 20.08 (Debian 12 libarmnn-dev 20.08-12): a TransposeConvolution2d layer with a batch of
// more than one is refused or aborts the process. TransposeConvolution2dLayer::InferOutputShapes
// divides (weight output channels x weight input channels) by (batch x input channels), so it
// infers C_out / N output channels instead of C_out:
//   - N divides C_out: Optimize throws LayerValidationException ("TensorShape set on OutputSlot[0]
//     does not match the inferred shape. : [2,2,1,1] != [2,1,1,1]");
//   - N does not divide C_out: an assertion fails and the process aborts (`./repro abort`).
// The same layer with a batch of 1 runs and agrees with a plain loop (checked first, below).
//
//   c++ -std=c++17 -O2 repro.cc -larmnn -o repro && ./repro
//
// Needs the CpuRef backend (Debian: libarmnn-cpuref-backend22). Exits 1 when Arm NN refuses the
// batch-2 layer or its result differs from the reference.
#include <armnn/ArmNN.hpp>
#include <cstdio>
#include <cstring>
#include <vector>

namespace {

// A 1x1 transposed convolution (NCHW, weights [O, I, 1, 1]) of `batch` images with one input
// channel; out[n][o] = in[n] * w[o]. Returns false when Arm NN throws (printed).
bool Run(armnn::IRuntime& runtime, unsigned batch, unsigned out_channels) {
  std::vector<float> input(batch), weight(out_channels), output(batch * out_channels, -1.0f);
  for (unsigned n = 0; n < batch; ++n) input[n] = 2.0f + n;
  for (unsigned o = 0; o < out_channels; ++o) weight[o] = 10.0f * (o + 1);
  std::printf("batch %u, 1 -> %u channels: ", batch, out_channels);
  std::fflush(stdout);
  try {
    armnn::INetworkPtr net = armnn::INetwork::Create();
    armnn::TransposeConvolution2dDescriptor d;
    d.m_StrideX = d.m_StrideY = 1;
    d.m_DataLayout = armnn::DataLayout::NCHW;
    const armnn::TensorInfo w_info({out_channels, 1, 1, 1}, armnn::DataType::Float32);
    armnn::IConnectableLayer* in = net->AddInputLayer(0);
    armnn::IConnectableLayer* conv = net->AddTransposeConvolution2dLayer(
        d, armnn::ConstTensor(w_info, weight.data()), armnn::EmptyOptional());
    armnn::IConnectableLayer* out = net->AddOutputLayer(0);
    in->GetOutputSlot(0).Connect(conv->GetInputSlot(0));
    conv->GetOutputSlot(0).Connect(out->GetInputSlot(0));
    in->GetOutputSlot(0).SetTensorInfo(
        armnn::TensorInfo({batch, 1, 1, 1}, armnn::DataType::Float32));
    conv->GetOutputSlot(0).SetTensorInfo(
        armnn::TensorInfo({batch, out_channels, 1, 1}, armnn::DataType::Float32));
    armnn::IOptimizedNetworkPtr opt =
        armnn::Optimize(*net, {armnn::Compute::CpuRef}, runtime.GetDeviceSpec());
    if (!opt) {
      std::printf("Optimize failed (is the CpuRef backend installed?)\n");
      return false;
    }
    armnn::NetworkId id;
    std::string error;
    if (runtime.LoadNetwork(id, std::move(opt), error, armnn::INetworkProperties()) !=
        armnn::Status::Success) {
      std::printf("LoadNetwork: %s\n", error.c_str());
      return false;
    }
    runtime.EnqueueWorkload(
        id, {{0, armnn::ConstTensor(runtime.GetInputTensorInfo(id, 0), input.data())}},
        {{0, armnn::Tensor(runtime.GetOutputTensorInfo(id, 0), output.data())}});
    runtime.UnloadNetwork(id);
  } catch (const armnn::Exception& e) {
    std::printf("armnn::Exception: %s\n", e.what());
    return false;
  }
  int wrong = 0;
  for (unsigned n = 0; n < batch; ++n)
    for (unsigned o = 0; o < out_channels; ++o)
      wrong += output[n * out_channels + o] != input[n] * weight[o];
  std::printf("%s\n", wrong ? "wrong values" : "agrees with the reference");
  return wrong == 0;
}

}  // namespace

int main(int argc, char** argv) {
  armnn::IRuntimePtr runtime = armnn::IRuntime::Create(armnn::IRuntime::CreationOptions());
  if (!Run(*runtime, 1, 2)) return 2;  // the same layer with one image: fine
  if (argc > 1 && std::strcmp(argv[1], "abort") == 0) Run(*runtime, 2, 3);  // aborts
  const bool ok = Run(*runtime, 2, 2);
  std::printf(ok ? "agrees\n" : "DISCREPANCY\n");
  return ok ? 0 : 1;
}
