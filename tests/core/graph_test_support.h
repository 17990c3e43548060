// Small graphs and checks shared by the graph IR's tests (graph_test.cc, graph_of_problem_test.cc).
#pragma once

#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <utility>
#include <vector>

#include "core/graph.h"
#include "kernels/graph/interpreter.h"

namespace convparity::graph_test {

inline HostTensor T(Shape shape, std::vector<float> values) {
  return {std::move(shape), std::move(values)};
}

// A one-op graph over vars a, b, … of the given shapes.
inline Graph OneOp(OpKind op, const std::vector<Shape>& operands, OpAttrs attrs = {}) {
  Graph g;
  std::vector<int> in;
  for (size_t k = 0; k < operands.size(); ++k)
    in.push_back(g.AddVar(std::string(1, static_cast<char>('a' + k)), operands[k]));
  g.outputs = {g.AddOp(op, in, std::move(attrs))};
  return g;
}

// Runs a one-op graph on the given operand values.
inline HostTensor RunOneOp(OpKind op, const std::vector<HostTensor>& operands, OpAttrs attrs = {}) {
  std::vector<Shape> shapes;
  GraphBindings vars;
  for (size_t k = 0; k < operands.size(); ++k) {
    shapes.push_back(operands[k].shape);
    vars[std::string(1, static_cast<char>('a' + k))] = operands[k];
  }
  Graph g = OneOp(op, shapes, std::move(attrs));
  Status st = InferShapes(g);
  EXPECT_TRUE(st.ok()) << st.message();
  Result<std::vector<HostTensor>> out = Interpret(g, vars);
  EXPECT_TRUE(out.ok()) << out.status().message();
  return out.ok() ? out.value()[0] : HostTensor{};
}

// The message InferShapes gives, "" when it accepts the graph.
inline std::string InferError(Graph g) {
  Status st = InferShapes(g);
  return st.ok() ? "" : st.message();
}

inline ConvAttrs Conv2d(int64_t groups = 1) {
  ConvAttrs a;
  a.rank = 2;
  a.groups = groups;
  return a;
}

inline bool BitwiseEqual(const std::vector<float>& a, const std::vector<float>& b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(float)) == 0;
}

}  // namespace convparity::graph_test
