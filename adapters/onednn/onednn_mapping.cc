#include "onednn_mapping.h"

#include <cstdint>
#include <vector>

namespace convparity_onednn {
namespace {

using dnnl::memory;

// Strides of a tensor whose dimensions `dims` lie in memory in the order `order` (outermost
// first), densely.
memory::dims StridesInOrder(const memory::dims& dims, const std::vector<int>& order) {
  memory::dims strides(dims.size());
  memory::dim step = 1;
  for (size_t i = order.size(); i > 0; --i) {
    strides[order[i - 1]] = step;
    step *= dims[order[i - 1]];
  }
  return strides;
}

memory::desc Strided(const memory::dims& dims, const std::vector<int>& order) {
  return memory::desc(dims, memory::data_type::f32, StridesInOrder(dims, order));
}

memory::desc Any(const memory::dims& dims) {
  return memory::desc(dims, memory::data_type::f32, memory::format_tag::any);
}

// (N, C, spatial...) in the order N C spatial... or N spatial... C.
std::vector<int> DataOrder(int rank, bool channels_last) {
  std::vector<int> order{0};
  if (!channels_last) order.push_back(1);
  for (int i = 0; i < rank; ++i) order.push_back(2 + i);
  if (channels_last) order.push_back(1);
  return order;
}

// The memory order of PyTorch's weight in oneDNN's weight dimensions. oneDNN: [G,] OC/G, IC/G, k…
// with OC the channels of dst. PyTorch: ordinary (C_out, C_in/g, k…) = [G,] OC/G, IC/G, k… in this
// order; transposed (C_in, C_out/g, k…) = [G,] IC/G, OC/G, k…, that is with the two channel axes
// swapped.
std::vector<int> PyTorchWeightOrder(int rank, bool groups, bool transposed) {
  std::vector<int> order;
  const int g = groups ? 1 : 0;
  if (groups) order.push_back(0);
  if (transposed) {
    order.push_back(g + 1);
    order.push_back(g + 0);
  } else {
    order.push_back(g + 0);
    order.push_back(g + 1);
  }
  for (int i = 0; i < rank; ++i) order.push_back(g + 2 + i);
  return order;
}

bool IsNaturalWeightLayout(const convparity_problem& p) {
  return p.weight_layout == (p.transposed ? CONVPARITY_WEIGHT_IO : CONVPARITY_WEIGHT_OI);
}

}  // namespace

const char* FormatPolicyName(FormatPolicy policy) {
  switch (policy) {
    case FormatPolicy::kPlain:
      return "plain";
    case FormatPolicy::kAny:
      return "any";
    case FormatPolicy::kChannelsLast:
      return "channels-last+plain";
    case FormatPolicy::kChannelsLastAny:
      return "channels-last+any";
  }
  return "?";
}

std::string MapProblem(const convparity_problem& p, Mapping* m) {
  const int rank = p.rank;
  if (rank < 1 || rank > CONVPARITY_MAX_RANK) return "rank " + std::to_string(rank);
  m->deconvolution = p.transposed != 0;
  m->bias = p.has_bias != 0;
  const bool channels_last = p.data_layout == CONVPARITY_DATA_CHANNELS_LAST;
  const bool natural = IsNaturalWeightLayout(p);
  m->policy = channels_last
                  ? (natural ? FormatPolicy::kChannelsLast : FormatPolicy::kChannelsLastAny)
                  : (natural ? FormatPolicy::kPlain : FormatPolicy::kAny);

  memory::dims src{p.batch, p.in_channels}, dst{p.batch, p.out_channels}, weights;
  const bool groups = p.groups > 1;
  if (groups) weights.push_back(p.groups);
  weights.push_back(p.out_channels / p.groups);
  weights.push_back(p.in_channels / p.groups);
  m->strides.clear();
  m->dilates.clear();
  m->padding_l.clear();
  m->padding_r.clear();
  for (int i = 0; i < rank; ++i) {
    src.push_back(p.input[i]);
    dst.push_back(p.output[i]);
    weights.push_back(p.kernel[i]);
    m->strides.push_back(p.stride[i]);
    m->dilates.push_back(p.dilation[i] - 1);  // NOTE: oneDNN's 0 is PyTorch's 1
    m->padding_l.push_back(p.pad_begin[i]);
    // A deconvolution's output_padding extends dst at its end: less padding removed there.
    const int64_t padding_r = p.pad_end[i] - (m->deconvolution ? p.output_padding[i] : 0);
    if (padding_r <= -p.stride[i])
      return "output_padding " + std::to_string(p.output_padding[i]) + " with padding end " +
             std::to_string(p.pad_end[i]) + " needs padding_r " + std::to_string(padding_r) +
             " in dimension " + std::to_string(i) +
             ", but oneDNN accepts no less than -(stride - 1) = " + std::to_string(1 - p.stride[i]);
    m->padding_r.push_back(padding_r);
  }

  const std::vector<int> plain = DataOrder(rank, false), last = DataOrder(rank, true);
  m->user_src = Strided(src, plain);
  m->user_dst = Strided(dst, plain);
  m->user_weights = Strided(weights, PyTorchWeightOrder(rank, groups, m->deconvolution));
  m->user_bias = memory::desc({p.out_channels}, memory::data_type::f32, memory::format_tag::a);
  m->bias_md = m->user_bias;
  switch (m->policy) {
    case FormatPolicy::kPlain:
      m->src = m->user_src;
      m->dst = m->user_dst;
      m->weights = m->user_weights;
      break;
    case FormatPolicy::kAny:
      m->src = Any(src);
      m->dst = Any(dst);
      m->weights = Any(weights);
      break;
    case FormatPolicy::kChannelsLast:
    case FormatPolicy::kChannelsLastAny:
      m->src = Strided(src, last);
      m->dst = Strided(dst, last);
      m->weights = m->policy == FormatPolicy::kChannelsLast ? m->user_weights : Any(weights);
      break;
  }
  return "";
}

}  // namespace convparity_onednn
