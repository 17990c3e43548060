// Why the Arm NN adapter builds a network per case (README.md, "One network per case"), measured:
//   1. a Convolution2d layer has one input slot (the data): weights cannot be a network input;
//   2. a loaded network does not read the caller's weight buffer in place: changing it after
//      LoadNetwork leaves the results as they were (Arm NN copied the weights);
//   3. where a case's time goes: network build, Optimize, LoadNetwork, EnqueueWorkload (the run;
//      it allocates the working memory on first use), UnloadNetwork.
// Not built by default: cmake --build build --target armnn_network_reuse_probe, then
//   build/adapters/armnn/armnn_network_reuse_probe [repetitions [channels [size]]]
// (an NCHW 1 x C x S x S input, 2C x C x 3 x 3 weights, all ones, on CpuRef).
#include <armnn/ArmNN.hpp>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <vector>

namespace {

using Clock = std::chrono::steady_clock;

double Ms(Clock::time_point from, Clock::time_point to) {
  return std::chrono::duration<double, std::milli>(to - from).count();
}

}  // namespace

int main(int argc, char** argv) {
  const int repetitions = argc > 1 ? std::atoi(argv[1]) : 300;
  const unsigned channels = argc > 2 ? std::atoi(argv[2]) : 4;
  const unsigned size = argc > 3 ? std::atoi(argv[3]) : 9;
  if (repetitions < 1 || channels < 1 || size < 3) {
    std::fprintf(stderr, "usage: %s [repetitions >= 1 [channels >= 1 [size >= 3]]]\n", argv[0]);
    return 2;
  }
  armnn::IRuntime::CreationOptions options;
#ifdef CONVPARITY_ARMNN_BACKEND_PATH
  options.m_DynamicBackendsPath = CONVPARITY_ARMNN_BACKEND_PATH;
#endif
  const Clock::time_point start = Clock::now();
  armnn::IRuntimePtr runtime = armnn::IRuntime::Create(options);
  std::printf("IRuntime::Create: %.3f ms\n", Ms(start, Clock::now()));
  const armnn::TensorInfo input_info({1, channels, size, size}, armnn::DataType::Float32);
  const armnn::TensorInfo weight_info({2 * channels, channels, 3, 3}, armnn::DataType::Float32);
  const armnn::TensorInfo output_info({1, 2 * channels, size - 2, size - 2},
                                      armnn::DataType::Float32);
  std::vector<float> x(input_info.GetNumElements(), 1.0f), w(weight_info.GetNumElements(), 1.0f);
  std::vector<float> y(output_info.GetNumElements());
  armnn::Convolution2dDescriptor descriptor;
  descriptor.m_DataLayout = armnn::DataLayout::NCHW;
  descriptor.m_StrideX = descriptor.m_StrideY = 1;  // 20.08's descriptor defaults them to 0
  double build = 0, optimize = 0, load = 0, run = 0, unload = 0;
  for (int r = 0; r < repetitions; ++r) {
    const Clock::time_point t0 = Clock::now();
    armnn::INetworkPtr network = armnn::INetwork::Create();
    armnn::IConnectableLayer* input = network->AddInputLayer(0);
    armnn::IConnectableLayer* conv = network->AddConvolution2dLayer(
        descriptor, armnn::ConstTensor(weight_info, w.data()), armnn::EmptyOptional());
    armnn::IConnectableLayer* output = network->AddOutputLayer(0);
    input->GetOutputSlot(0).Connect(conv->GetInputSlot(0));
    conv->GetOutputSlot(0).Connect(output->GetInputSlot(0));
    input->GetOutputSlot(0).SetTensorInfo(input_info);
    conv->GetOutputSlot(0).SetTensorInfo(output_info);
    const Clock::time_point t1 = Clock::now();
    armnn::IOptimizedNetworkPtr optimized =
        armnn::Optimize(*network, {armnn::Compute::CpuRef}, runtime->GetDeviceSpec());
    if (!optimized) {
      std::fprintf(stderr, "Optimize failed (no CpuRef backend?)\n");
      return 1;
    }
    const Clock::time_point t2 = Clock::now();
    armnn::NetworkId id;
    if (runtime->LoadNetwork(id, std::move(optimized)) != armnn::Status::Success) {
      std::fprintf(stderr, "LoadNetwork failed\n");
      return 1;
    }
    const Clock::time_point t3 = Clock::now();
    const armnn::InputTensors inputs{
        {0, armnn::ConstTensor(runtime->GetInputTensorInfo(id, 0), x.data())}};
    const armnn::OutputTensors outputs{
        {0, armnn::Tensor(runtime->GetOutputTensorInfo(id, 0), y.data())}};
    runtime->EnqueueWorkload(id, inputs, outputs);
    const Clock::time_point t4 = Clock::now();
    if (r == 0) {
      std::printf("Convolution2d input slots: %u\n", conv->GetNumInputSlots());
      std::printf("weights 1: y[0] = %g (expected %u)\n", y[0], 9 * channels);
      for (float& v : w) v = 2.0f;
      runtime->EnqueueWorkload(id, inputs, outputs);
      std::printf(
          "caller's weights set to 2 after LoadNetwork, same network: y[0] = %g (%u if "
          "read in place)\n",
          y[0], 18 * channels);
      for (float& v : w) v = 1.0f;
    }
    runtime->UnloadNetwork(id);
    const Clock::time_point t5 = Clock::now();
    build += Ms(t0, t1);
    optimize += Ms(t1, t2);
    load += Ms(t2, t3);
    run += Ms(t3, t4);
    unload += Ms(t4, t5);
  }
  const double n = repetitions;
  std::printf(
      "per case (mean of %d): build %.3f ms, Optimize %.3f ms, LoadNetwork %.3f ms, "
      "EnqueueWorkload %.3f ms, UnloadNetwork %.3f ms\n",
      repetitions, build / n, optimize / n, load / n, run / n, unload / n);
  return 0;
}
