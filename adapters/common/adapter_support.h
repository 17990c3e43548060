// What every adapter plugin needs besides its library: the 1-D/2-D problem seen as a 2-D one,
// tensor permutations between PyTorch's layouts and a library's (into guarded memory, so that a
// library writing past a buffer crashes instead of corrupting the heap: guarded_memory.h), and
// the reason for the last declined case. Header-only and free of convparity's libraries: an adapter
// is a plugin like a user's, built against convparity_plugin.h alone.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>

#include "convparity_plugin.h"
#include "guarded_memory.h"

namespace convparity_adapter {

// The reason for the last CONVPARITY_UNSUPPORTED or error on this thread (the plugin table's
// last_message).
inline std::string& LastMessage() {
  thread_local std::string message;
  return message;
}
inline const char* LastMessageText() { return LastMessage().c_str(); }

inline int Decline(std::string reason) {
  LastMessage() = std::move(reason);
  return CONVPARITY_UNSUPPORTED;
}
inline int Fail(std::string reason) {
  LastMessage() = std::move(reason);
  return CONVPARITY_ERROR;
}

// A rank-1 or rank-2 problem as a 2-D one: a 1-D convolution is a 2-D one over a single row (height
// 1, kernel height 1, no vertical padding), the way TensorFlow Lite and Arm NN's parsers lower
// Conv1D. Fields are the plugin struct's, named by axis.
struct Problem2d {
  int64_t batch, in_channels, out_channels, groups;
  int64_t in_h, in_w, out_h, out_w;
  int64_t kernel_h, kernel_w, stride_h, stride_w, dilation_h, dilation_w;
  int64_t pad_top, pad_bottom, pad_left, pad_right;
  int64_t output_padding_h, output_padding_w;
  bool transposed, bias, channels_last;
  int weight_layout;  // CONVPARITY_WEIGHT_*, a hint

  int64_t group_in() const { return in_channels / groups; }
  int64_t group_out() const { return out_channels / groups; }
};

// False for rank 3 (no library here has a 3-D path).
inline bool As2d(const convparity_problem& p, Problem2d* out) {
  if (p.rank != 1 && p.rank != 2) return false;
  const int h = p.rank == 2 ? 0 : -1, w = p.rank == 2 ? 1 : 0;  // -1: the added row axis
  auto at = [](const int64_t* v, int i, int64_t none) { return i < 0 ? none : v[i]; };
  Problem2d q;
  q.batch = p.batch;
  q.in_channels = p.in_channels;
  q.out_channels = p.out_channels;
  q.groups = p.groups;
  q.in_h = at(p.input, h, 1);
  q.in_w = p.input[w];
  q.out_h = at(p.output, h, 1);
  q.out_w = p.output[w];
  q.kernel_h = at(p.kernel, h, 1);
  q.kernel_w = p.kernel[w];
  q.stride_h = at(p.stride, h, 1);
  q.stride_w = p.stride[w];
  q.dilation_h = at(p.dilation, h, 1);
  q.dilation_w = p.dilation[w];
  q.pad_top = at(p.pad_begin, h, 0);
  q.pad_bottom = at(p.pad_end, h, 0);
  q.pad_left = p.pad_begin[w];
  q.pad_right = p.pad_end[w];
  q.output_padding_h = at(p.output_padding, h, 0);
  q.output_padding_w = p.output_padding[w];
  q.transposed = p.transposed != 0;
  q.bias = p.has_bias != 0;
  q.channels_last = p.data_layout == CONVPARITY_DATA_CHANNELS_LAST;
  q.weight_layout = p.weight_layout;
  *out = q;
  return true;
}

// Copies a dense tensor of shape `dims` into the order `order` (source axes, outermost first):
// Permute({N, C, H, W}, {0, 2, 3, 1}) turns NCHW into NHWC. `extra` zeros follow the data, for
// libraries that read past the end of their inputs.
template <size_t R>
GuardedFloats Permute(const float* src, const std::array<int64_t, R>& dims,
                      const std::array<int, R>& order, size_t extra = 0) {
  std::array<int64_t, R> src_strides{};
  int64_t total = 1;
  for (size_t i = R; i-- > 0;) {
    src_strides[i] = total;
    total *= dims[i];
  }
  GuardedFloats dst(static_cast<size_t>(total) + extra);
  if (total == 0) return dst;
  std::array<int64_t, R> idx{};  // destination coordinates, axis k of dst is source axis order[k]
  for (int64_t d = 0; d < total; ++d) {
    int64_t s = 0;
    for (size_t k = 0; k < R; ++k) s += idx[k] * src_strides[order[k]];
    dst[static_cast<size_t>(d)] = src[s];
    for (size_t k = R; k-- > 0;) {
      if (++idx[k] < dims[order[k]]) break;
      idx[k] = 0;
    }
  }
  return dst;
}

// A copy of the data with `extra` zeros appended (no reordering).
inline GuardedFloats Copied(const float* src, size_t count, size_t extra = 0) {
  GuardedFloats dst(count + extra);
  std::memcpy(dst.data(), src, count * sizeof(float));
  return dst;
}

// NCHW <-> NHWC of a 2-D problem's data tensors.
inline GuardedFloats NchwToNhwc(const float* src, int64_t n, int64_t c, int64_t h, int64_t w,
                                size_t extra = 0) {
  return Permute<4>(src, {n, c, h, w}, {0, 2, 3, 1}, extra);
}
inline void NhwcToNchw(const float* src, int64_t n, int64_t c, int64_t h, int64_t w, float* dst) {
  const GuardedFloats v = Permute<4>(src, {n, h, w, c}, {0, 3, 1, 2});
  std::memcpy(dst, v.data(), v.size() * sizeof(float));
}

}  // namespace convparity_adapter
