// Tensors: values in PyTorch's logical shape, stored in any memory order. Kernels and the harness
// index through strides, so one loop serves every layout (XNNPACK-style testers without copied
// index math).
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "core/conv_problem.h"

namespace convparity {

// Row-major strides of `shape` laid out in memory with its logical axes in `memory_order`
// (outermost first). Identity order = PyTorch's contiguous layout.
Shape StridesFor(const Shape& shape, const std::vector<int>& memory_order);
Shape ContiguousStrides(const Shape& shape);

// A non-owning strided view over float or double data.
template <typename T>
struct TensorView {
  T* data = nullptr;
  Shape shape;
  Shape strides;

  int64_t offset(const int64_t* index) const {
    int64_t off = 0;
    for (size_t i = 0; i < shape.size(); ++i) off += index[i] * strides[i];
    return off;
  }
};

// A case's tensors as the harness keeps them: float values in logical (contiguous PyTorch) order.
// Every value is a float32, also when the oracle reads it as float64.
struct HostTensor {
  Shape shape;
  std::vector<float> values;
};

// Copies between logical order and a memory order. `memory` has NumElements(shape) entries.
std::vector<float> ToMemoryOrder(const HostTensor& logical, const std::vector<int>& memory_order);
HostTensor FromMemoryOrder(const Shape& shape, const std::vector<float>& memory,
                           const std::vector<int>& memory_order);

// Calls f(logical_index, linear_logical_offset) for every element, in logical order.
template <typename F>
void ForEachIndex(const Shape& shape, F&& f) {
  const size_t r = shape.size();
  for (int64_t s : shape)
    if (s <= 0) return;
  std::vector<int64_t> idx(r, 0);
  for (int64_t linear = 0;; ++linear) {
    f(idx.data(), linear);
    size_t d = r;
    while (d > 0) {
      --d;
      if (++idx[d] < shape[d]) break;
      idx[d] = 0;
      if (d == 0) return;
    }
    if (r == 0) return;
  }
}

}  // namespace convparity

namespace convparity {

// A case's values by the name of the graph var each binds (core/case_graphs.h CaseVars), in
// logical order: of the problem's "x", "w", "b" and "grad_output" those the direction reads, and
// the form's own ("w2").
struct CaseInputs {
  std::map<std::string, HostTensor> vars;
  // The value of var `name`; an empty tensor when the case does not read it.
  const HostTensor& Get(const std::string& name) const;
};

// The logical shape of the tensor a direction produces: y, dx or dw.
inline Shape ResultShape(const ConvProblem& p, Direction d) {
  switch (d) {
    case Direction::kForward:
      return p.output_shape();
    case Direction::kBackwardData:
      return p.input_shape();
    case Direction::kBackwardWeight:
      return p.weight_shape();
  }
  return {};
}

// The memory order of that tensor for the problem's layouts.
inline std::vector<int> ResultMemoryOrder(const ConvProblem& p, Direction d) {
  return d == Direction::kBackwardWeight ? WeightMemoryOrder(p) : DataMemoryOrder(p);
}

}  // namespace convparity
