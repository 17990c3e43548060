#include "core/tensor.h"

namespace convparity {

Shape StridesFor(const Shape& shape, const std::vector<int>& memory_order) {
  Shape strides(shape.size(), 0);
  int64_t step = 1;
  for (auto it = memory_order.rbegin(); it != memory_order.rend(); ++it) {
    strides[*it] = step;
    step *= shape[*it];
  }
  return strides;
}

Shape ContiguousStrides(const Shape& shape) {
  std::vector<int> identity(shape.size());
  for (size_t i = 0; i < shape.size(); ++i) identity[i] = static_cast<int>(i);
  return StridesFor(shape, identity);
}

namespace {

bool IsIdentity(const std::vector<int>& order) {
  for (size_t i = 0; i < order.size(); ++i)
    if (order[i] != static_cast<int>(i)) return false;
  return true;
}

// Visits the elements of `shape` in logical order with their offsets under `strides`, updated as
// an odometer (no multiplication per element): f(logical, strided) on each innermost run.
template <typename F>
void ForEachRun(const Shape& shape, const Shape& strides, F&& f) {
  const size_t r = shape.size();
  for (int64_t s : shape)
    if (s <= 0) return;
  if (r == 0) {
    f(int64_t{0}, int64_t{0}, int64_t{1}, int64_t{1});
    return;
  }
  std::vector<int64_t> idx(r, 0);
  const int64_t inner = shape[r - 1], inner_stride = strides[r - 1];
  for (int64_t linear = 0, offset = 0;; linear += inner) {
    f(linear, offset, inner, inner_stride);
    size_t d = r - 1;
    for (;;) {
      if (d == 0) return;
      --d;
      offset += strides[d];
      if (++idx[d] < shape[d]) break;
      offset -= strides[d] * shape[d];
      idx[d] = 0;
    }
  }
}

}  // namespace

std::vector<float> ToMemoryOrder(const HostTensor& logical, const std::vector<int>& memory_order) {
  if (logical.values.empty()) return {};  // a tensor the direction does not read
  if (IsIdentity(memory_order)) return logical.values;
  const Shape strides = StridesFor(logical.shape, memory_order);
  std::vector<float> memory(logical.values.size());
  ForEachRun(logical.shape, strides, [&](int64_t linear, int64_t offset, int64_t n, int64_t step) {
    const float* src = logical.values.data() + linear;
    float* dst = memory.data() + offset;
    for (int64_t i = 0; i < n; ++i) dst[i * step] = src[i];
  });
  return memory;
}

HostTensor FromMemoryOrder(const Shape& shape, const std::vector<float>& memory,
                           const std::vector<int>& memory_order) {
  if (IsIdentity(memory_order)) return HostTensor{shape, memory};
  const Shape strides = StridesFor(shape, memory_order);
  HostTensor t{shape, std::vector<float>(memory.size())};
  ForEachRun(shape, strides, [&](int64_t linear, int64_t offset, int64_t n, int64_t step) {
    const float* src = memory.data() + offset;
    float* dst = t.values.data() + linear;
    for (int64_t i = 0; i < n; ++i) dst[i] = src[i * step];
  });
  return t;
}

const HostTensor& CaseInputs::Get(const std::string& name) const {
  static const HostTensor kNone;
  const auto it = vars.find(name);
  return it == vars.end() ? kNone : it->second;
}

}  // namespace convparity
