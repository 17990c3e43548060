// Helpers of shape inference shared by its two files: graph.cc (the entry points and the ops that
// move or combine data) and graph_conv_shapes.cc (the conv family's operands and results).
#pragma once

#include <string>
#include <variant>

#include "core/graph.h"

namespace convparity::graph_internal {

template <typename T>
const T* AttrsOf(const Node& n) {
  return std::get_if<T>(&n.attrs);
}

Status CheckOperandCount(const Graph& g, int i, size_t min, size_t max);

inline const Shape& OperandShape(const Graph& g, int i, size_t k) {
  return g.node(g.node(i).inputs[k]).shape;
}

// The result shape of a conv, conv_transpose or conv_backward_weight node, checked.
Result<Shape> ConvShape(const Graph& g, int i);

}  // namespace convparity::graph_internal
