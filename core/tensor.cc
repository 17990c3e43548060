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

std::vector<float> ToMemoryOrder(const HostTensor& logical, const std::vector<int>& memory_order) {
  if (logical.values.empty()) return {};  // a tensor the direction does not read
  Shape strides = StridesFor(logical.shape, memory_order);
  std::vector<float> memory(logical.values.size());
  ForEachIndex(logical.shape, [&](const int64_t* idx, int64_t linear) {
    int64_t off = 0;
    for (size_t i = 0; i < strides.size(); ++i) off += idx[i] * strides[i];
    memory[off] = logical.values[linear];
  });
  return memory;
}

HostTensor FromMemoryOrder(const Shape& shape, const std::vector<float>& memory,
                           const std::vector<int>& memory_order) {
  Shape strides = StridesFor(shape, memory_order);
  HostTensor t{shape, std::vector<float>(memory.size())};
  ForEachIndex(shape, [&](const int64_t* idx, int64_t linear) {
    int64_t off = 0;
    for (size_t i = 0; i < strides.size(); ++i) off += idx[i] * strides[i];
    t.values[linear] = memory[off];
  });
  return t;
}

}  // namespace convparity
