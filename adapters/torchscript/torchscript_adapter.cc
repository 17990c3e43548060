// The TorchScript adapter: LibTorch's own graph rewrites of a convolution, checked like a kernel.
//
// Each case builds a small TorchScript module around the convolution (our source text, compiled
// with torch::jit::Module::define), runs one of LibTorch's rewrites on it, checks that the
// rewritten graph holds the operator the rewrite promises, and runs it:
//
//   torchscript            torch::jit::freeze: constants inlined, the batch norm and the scale
//                          after the convolution folded into its weights (conv only)
//   torchscript#inference  torch::jit::optimize_for_inference: oneDNN (mkldnn) prepacked
//                          convolutions, prim::mkldnn_convolution
//   torchscript#mobile     torch::jit::optimizeForMobile: XNNPACK prepacked
//                          prepacked::conv2d_clamp_run / conv2d_transpose_clamp_run
//
// The graph around the convolution folds away without changing values, so that an exact fill stays
// exact: y = batch_norm(conv(2·x, w, 2·b)) · 0.5 with an identity batch norm (mean 0, variance 1,
// eps 0, scale 1, shift 0). Scaling by a power of two commutes with float rounding, so every
// intermediate is exact whether or not a rewrite folds it.
//
// When the rewrite leaves the convolution as it was (optimize_for_inference on a 1-D or transposed
// convolution, optimizeForMobile on a 3-D one) the case is declined: it would test nothing of the
// rewrite. This is the only file of the adapter that includes LibTorch headers.
#include <torch/csrc/jit/api/module.h>
#include <torch/csrc/jit/passes/xnnpack_rewrite.h>
#include <torch/script.h>
#include <torch/version.h>

#include <cstddef>
#include <cstring>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "adapter_support.h"
#include "convparity_plugin.h"

#ifndef CONVPARITY_TORCH_PACKAGE
#define CONVPARITY_TORCH_PACKAGE TORCH_VERSION
#endif

namespace {

using convparity_adapter::Decline;
using convparity_adapter::Fail;

// The plugin's variants (convparity_problem.variant): 0 is the plugin itself.
enum Rewrite { kFreeze = 0, kInference = 1, kMobile = 2 };
const char* const kVariantNames[] = {"inference", "mobile"};

const char* RewriteName(int rewrite) {
  switch (rewrite) {
    case kInference:
      return "optimize_for_inference";
    case kMobile:
      return "optimizeForMobile";
    default:
      return "freeze";
  }
}

std::string IntList(const int64_t* v, int rank) {
  std::string s = "[";
  for (int i = 0; i < rank; ++i) s += (i ? ", " : "") + std::to_string(v[i]);
  return s + "]";
}

// PyTorch's convolutions pad symmetrically; an ordinary convolution with asymmetric padding is
// written as an explicit constant_pad_nd first (as a user would), with the convolution's padding
// the smaller side. The padding list of constant_pad_nd runs from the last axis backwards.
std::string PadSource(const convparity_problem& p, std::vector<int64_t>* conv_padding) {
  bool asymmetric = false;
  std::string pads = "[";
  for (int i = p.rank - 1; i >= 0; --i) {
    const int64_t common = std::min(p.pad_begin[i], p.pad_end[i]);
    (*conv_padding)[i] = common;
    asymmetric |= p.pad_begin[i] != p.pad_end[i];
    pads += std::to_string(p.pad_begin[i] - common) + ", " + std::to_string(p.pad_end[i] - common) +
            (i ? ", " : "");
  }
  if (!asymmetric) return "";
  return "    x = torch.constant_pad_nd(x, " + pads + "], 0.0)\n";
}

// A transposed convolution's asymmetric padding: the convolution trims the smaller side, a narrow
// at the end the rest (padding removes output elements there). Empty when it is symmetric.
std::string NarrowSource(const convparity_problem& p, std::vector<int64_t>* conv_padding) {
  std::string lines;
  for (int i = 0; i < p.rank; ++i) {
    const int64_t common = std::min(p.pad_begin[i], p.pad_end[i]);
    (*conv_padding)[i] = common;
    if (p.pad_begin[i] == p.pad_end[i]) continue;
    lines += "    y = torch.narrow(y, " + std::to_string(2 + i) + ", " +
             std::to_string(p.pad_begin[i] - common) + ", " + std::to_string(p.output[i]) + ")\n";
  }
  return lines;
}

// The module's TorchScript source: one string per problem shape, so that the compiled module can
// be cached by it.
std::string ForwardSource(const convparity_problem& p) {
  const std::string rank = std::to_string(p.rank);
  std::vector<int64_t> padding(CONVPARITY_MAX_RANK, 0);
  const std::string pad_line = p.transposed ? "" : PadSource(p, &padding);
  const std::string narrow_lines = p.transposed ? NarrowSource(p, &padding) : "";
  const std::string bias = p.has_bias ? "self.bias" : "None";
  std::ostringstream s;
  s << "def forward(self, x):\n" << pad_line << "    x = x * 2.0\n";
  if (p.transposed) {
    s << "    y = torch.conv_transpose" << rank << "d(x, self.weight, " << bias << ", "
      << IntList(p.stride, p.rank) << ", " << IntList(padding.data(), p.rank) << ", "
      << IntList(p.output_padding, p.rank) << ", " << p.groups << ", "
      << IntList(p.dilation, p.rank) << ")\n";
  } else {
    s << "    y = torch.conv" << rank << "d(x, self.weight, " << bias << ", "
      << IntList(p.stride, p.rank) << ", " << IntList(padding.data(), p.rank) << ", "
      << IntList(p.dilation, p.rank) << ", " << p.groups << ")\n";
  }
  s << "    y = torch.batch_norm(y, self.bn_weight, self.bn_bias, self.bn_mean, self.bn_var, "
       "False, 0.0, 0.0, False)\n"
    << "    y = y * 0.5\n"
    << narrow_lines << "    return y\n";
  return s.str();
}

std::vector<int64_t> Sizes(int64_t a, int64_t b, const int64_t* spatial, int rank) {
  std::vector<int64_t> sizes = {a, b};
  sizes.insert(sizes.end(), spatial, spatial + rank);
  return sizes;
}

std::vector<int64_t> WeightSizes(const convparity_problem& p) {
  return p.transposed ? Sizes(p.in_channels, p.out_channels / p.groups, p.kernel, p.rank)
                      : Sizes(p.out_channels, p.in_channels / p.groups, p.kernel, p.rank);
}

// Compiled modules by source text: compiling is the costly step, and a module's parameters can be
// replaced (freezing and the rewrites clone the module, so the cached one stays as it was).
torch::jit::Module& CachedModule(const std::string& source, const convparity_problem& p) {
  // Never destroyed: LibTorch's own static state may be gone by the time this one would be.
  static auto& cache = *new std::map<std::string, torch::jit::Module>;
  // The batch norm's buffers are sized by the output channels; the weight and bias are replaced.
  const std::string key = source + "# out_channels " + std::to_string(p.out_channels);
  auto it = cache.find(key);
  if (it != cache.end()) return it->second;
  if (cache.size() >= 256) cache.clear();  // bounded: a campaign draws many shapes
  torch::jit::Module m("ConvUnderRewrite");
  const auto f32 = torch::kFloat32;
  m.register_parameter("weight", torch::zeros(WeightSizes(p), f32), /*is_buffer=*/false);
  if (p.has_bias) m.register_parameter("bias", torch::zeros({p.out_channels}, f32), false);
  m.register_buffer("bn_weight", torch::ones({p.out_channels}, f32));
  m.register_buffer("bn_bias", torch::zeros({p.out_channels}, f32));
  m.register_buffer("bn_mean", torch::zeros({p.out_channels}, f32));
  m.register_buffer("bn_var", torch::ones({p.out_channels}, f32));
  m.define(source);
  m.eval();
  return cache.emplace(key, std::move(m)).first->second;
}

// Every node kind of a graph, nested blocks included.
void CollectKinds(torch::jit::Block* block, std::multiset<std::string>* kinds) {
  for (torch::jit::Node* node : block->nodes()) {
    kinds->insert(node->kind().toQualString());
    for (torch::jit::Block* inner : node->blocks()) CollectKinds(inner, kinds);
  }
}

std::string ConvKind(const convparity_problem& p) {
  return std::string(p.transposed ? "aten::conv_transpose" : "aten::conv") +
         std::to_string(p.rank) + "d";
}

// What the last successful run used (describe_last_run).
std::string& LastImplementation() {
  thread_local std::string implementation;
  return implementation;
}

// Checks that the rewritten graph holds what the rewrite promises, and says what ran. Returns
// CONVPARITY_OK, or a decline when the rewrite left nothing of its own to test.
int CheckRewrite(int rewrite, const convparity_problem& p,
                 const std::multiset<std::string>& kinds) {
  const std::string conv = ConvKind(p);
  const bool folded = kinds.count("aten::batch_norm") == 0;
  std::string& what = LastImplementation();
  switch (rewrite) {
    case kInference:
      if (kinds.count("prim::mkldnn_convolution") == 0)
        return Decline(
            "optimize_for_inference left no prim::mkldnn_convolution in the graph (it keeps " +
            conv + "): nothing of the rewrite to test");
      what = "prim::mkldnn_convolution (optimize_for_inference)";
      return CONVPARITY_OK;
    case kMobile: {
      const char* prepacked =
          p.transposed ? "prepacked::conv2d_transpose_clamp_run" : "prepacked::conv2d_clamp_run";
      if (kinds.count(prepacked) == 0)
        return Decline(std::string("optimizeForMobile left no ") + prepacked +
                       " in the graph (it keeps " + conv + "): nothing of the rewrite to test");
      what = std::string(prepacked) + " (optimizeForMobile, XNNPACK)";
      return CONVPARITY_OK;
    }
    default:
      if (kinds.count(conv) == 0) return Fail("freeze lost " + conv + " from the graph");
      what = conv + " (freeze" + (folded ? ", batch norm folded)" : ", batch norm left unfolded)");
      return CONVPARITY_OK;
  }
}

torch::jit::Module Rewritten(int rewrite, torch::jit::Module& m) {
  switch (rewrite) {
    case kInference: {
      // As torch.jit.optimize_for_inference does: freeze first (the C++ function freezes only a
      // module that still has a `training` attribute, and then leaves the weights unfrozen here).
      torch::jit::Module frozen = torch::jit::freeze(m);
      return torch::jit::optimize_for_inference(frozen);
    }
    case kMobile:
      return torch::jit::optimizeForMobile(m);
    default:
      return torch::jit::freeze(m);
  }
}

// The line of a LibTorch error that says what was wrong: the first one, or for an error inside
// the TorchScript interpreter the exception line after its TorchScript traceback.
std::string Essence(const char* what) {
  std::istringstream lines(what);
  std::string line, first;
  while (std::getline(lines, line)) {
    if (first.empty()) first = line;
    if (line.find("Error: ") != std::string::npos && line.find("File ") == std::string::npos &&
        line.compare(0, 1, " ") != 0)
      return line;
  }
  return first;
}

int Forward(const convparity_problem* p, const float* x, const float* w, const float* b, float* y) {
  const int rewrite = CONVPARITY_PROBLEM_HAS(p, variant) ? p->variant : 0;
  if (rewrite < kFreeze || rewrite > kMobile) return Fail("unknown variant");
  const std::string source = ForwardSource(*p);
  const auto f32 = torch::TensorOptions().dtype(torch::kFloat32);
  // Stage 1, building and rewriting: LibTorch's refusals here are declines of the rewrite.
  torch::jit::Module optimized;
  try {
    torch::jit::Module& m = CachedModule(source, *p);
    m.setattr("weight", torch::from_blob(const_cast<float*>(w), WeightSizes(*p), f32).clone());
    if (p->has_bias)
      m.setattr("bias", torch::from_blob(const_cast<float*>(b), {p->out_channels}, f32).mul(2.0));
    optimized = Rewritten(rewrite, m);
  } catch (const std::exception& e) {
    return Fail(std::string(RewriteName(rewrite)) + " failed: " + Essence(e.what()));
  }
  std::multiset<std::string> kinds;
  CollectKinds(optimized.get_method("forward").graph()->block(), &kinds);
  if (const int code = CheckRewrite(rewrite, *p, kinds); code != CONVPARITY_OK) return code;
  // Stage 2, running: a channels-last case hands the module a channels-last tensor, as a user of
  // NHWC data would (rank 2 and 3 have a channels-last memory format).
  try {
    torch::Tensor input = torch::from_blob(const_cast<float*>(x),
                                           Sizes(p->batch, p->in_channels, p->input, p->rank), f32);
    if (p->data_layout == CONVPARITY_DATA_CHANNELS_LAST && p->rank == 2)
      input = input.contiguous(torch::MemoryFormat::ChannelsLast);
    else if (p->data_layout == CONVPARITY_DATA_CHANNELS_LAST && p->rank == 3)
      input = input.contiguous(torch::MemoryFormat::ChannelsLast3d);
    const torch::Tensor out = optimized.forward({input}).toTensor().contiguous();
    const std::vector<int64_t> expected = Sizes(p->batch, p->out_channels, p->output, p->rank);
    if (out.sizes().vec() != expected || out.scalar_type() != torch::kFloat32)
      return Fail("the rewritten module returned a " + std::string(out.toString()) + " of shape " +
                  c10::str(out.sizes()) + ", expected " + c10::str(c10::IntArrayRef(expected)));
    std::memcpy(y, out.data_ptr<float>(), out.numel() * sizeof(float));
  } catch (const std::exception& e) {
    return Fail(std::string("running the ") + RewriteName(rewrite) +
                " module failed: " + Essence(e.what()));
  }
  return CONVPARITY_OK;
}

void DescribeLastRun(convparity_run_notes* notes) {
  // Both prepacked paths sum in float32 like any direct convolution (no Winograd here).
  if (notes->struct_size >= offsetof(convparity_run_notes, implementation) + sizeof(const char*))
    notes->implementation = LastImplementation().c_str();
}

// Freezing runs every forward convolution; optimize_for_inference rewrites ordinary 2-D and 3-D
// ones to oneDNN, optimizeForMobile ordinary 1-D and 2-D ones and transposed 2-D ones to XNNPACK
// (a variant declines what its rewrite leaves alone).
const char* const kVariantCapabilities[] = {
    R"([{"directions": ["fwd"], "kinds": ["ordinary"], "ranks": [2, 3]}])",
    R"([{"directions": ["fwd"], "kinds": ["ordinary"], "ranks": [1, 2]},
        {"directions": ["fwd"], "kinds": ["transposed"], "ranks": [2]}])",
};

const convparity_plugin kPlugin = {
    CONVPARITY_PLUGIN_ABI_VERSION,
    "LibTorch " CONVPARITY_TORCH_PACKAGE " TorchScript rewrites",
    CONVPARITY_FORWARD,
    Forward,
    nullptr,
    nullptr,
    convparity_adapter::LastMessageText,
    2,
    kVariantNames,
    DescribeLastRun,
    R"([{"directions": ["fwd"]}])",
    kVariantCapabilities,
};

}  // namespace

CONVPARITY_PLUGIN_EXPORT const convparity_plugin* convparity_plugin_entry(void) { return &kPlugin; }
