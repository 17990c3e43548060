// Helpers shared by the ONNX import tests: where ONNX's own test models are, and small models
// written here with ONNX's protobuf classes.
#pragma once

#include <gtest/gtest.h>
#include <onnx/onnx_pb.h>

#include <cstdlib>
#include <filesystem>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "core/conv_problem.h"

namespace convparity {
namespace onnx_test {

namespace fs = std::filesystem;

// Debian's libonnx-testdata (scripts/setup.sh installs it); CONVPARITY_ONNX_TESTDATA overrides.
inline fs::path TestDataDir() {
  if (const char* env = std::getenv("CONVPARITY_ONNX_TESTDATA")) return env;
  return "/usr/share/libonnx-testdata/data";
}

// A missing package skips the tests that need it, except under CI=true (scripts/setup.sh
// installs it there): then it fails.
inline bool UnderCi() {
  const char* ci = std::getenv("CI");
  return ci != nullptr && std::string(ci) == "true";
}
#define CONVPARITY_SKIP_OR_FAIL_UNDER_CI(message)      \
  do {                                                 \
    if (onnx_test::UnderCi()) GTEST_FAIL() << message; \
    GTEST_SKIP() << message;                           \
  } while (0)

// A one-node model: x (its dims numbers, or names for symbolic ones) → op(x, w[, b]) → y, w and b
// initializers of zeros, y typed but without a shape unless `y` is given. Opset 13.
struct OneNode {
  std::string op = "Conv";
  std::vector<std::string> x;
  Shape w;
  bool bias = false;
  int elem_type = onnx::TensorProto::FLOAT;
  std::vector<std::pair<std::string, Shape>> ints;  // INTS attributes: pads, strides, …
  std::optional<int64_t> group;
  std::optional<std::string> auto_pad;
  std::optional<Shape> y;
  std::string name = "conv";

  static OneNode Of(std::vector<std::string> x, Shape w) {
    OneNode n;
    n.x = std::move(x);
    n.w = std::move(w);
    return n;
  }
  OneNode& With(const std::string& attribute, Shape values) {
    ints.push_back({attribute, std::move(values)});
    return *this;
  }

  onnx::ModelProto Model() const {
    onnx::ModelProto m;
    m.set_ir_version(7);
    onnx::OperatorSetIdProto* opset = m.add_opset_import();
    opset->set_domain("");
    opset->set_version(13);
    onnx::GraphProto* g = m.mutable_graph();
    g->set_name("test");
    onnx::ValueInfoProto* in = g->add_input();
    in->set_name("x");
    onnx::TypeProto_Tensor* t = in->mutable_type()->mutable_tensor_type();
    t->set_elem_type(elem_type);
    t->mutable_shape();
    for (const std::string& d : x) {
      onnx::TensorShapeProto_Dimension* dim = t->mutable_shape()->add_dim();
      if (!d.empty() && d.find_first_not_of("0123456789") == std::string::npos)
        dim->set_dim_value(std::stoll(d));
      else
        dim->set_dim_param(d);
    }
    onnx::NodeProto* node = g->add_node();
    node->set_op_type(op);
    node->set_name(name);
    node->add_input("x");
    node->add_input("w");
    Zeros(g, "w", w);
    if (bias) {
      node->add_input("b");
      Zeros(g, "b", {op == "ConvTranspose" ? w[1] * group.value_or(1) : w[0]});
    }
    node->add_output("y");
    for (const auto& [attr, values] : ints) {
      onnx::AttributeProto* a = node->add_attribute();
      a->set_name(attr);
      a->set_type(onnx::AttributeProto::INTS);
      for (int64_t v : values) a->add_ints(v);
    }
    if (group) {
      onnx::AttributeProto* a = node->add_attribute();
      a->set_name("group");
      a->set_type(onnx::AttributeProto::INT);
      a->set_i(*group);
    }
    if (auto_pad) {
      onnx::AttributeProto* a = node->add_attribute();
      a->set_name("auto_pad");
      a->set_type(onnx::AttributeProto::STRING);
      a->set_s(*auto_pad);
    }
    onnx::ValueInfoProto* out = g->add_output();
    out->set_name("y");
    onnx::TypeProto_Tensor* ot = out->mutable_type()->mutable_tensor_type();
    ot->set_elem_type(elem_type);
    if (y)
      for (int64_t d : *y) ot->mutable_shape()->add_dim()->set_dim_value(d);
    return m;
  }

  std::string Bytes() const { return Model().SerializeAsString(); }

 private:
  void Zeros(onnx::GraphProto* g, const std::string& name, const Shape& shape) const {
    onnx::TensorProto* t = g->add_initializer();
    t->set_name(name);
    t->set_data_type(elem_type);
    int64_t n = 1;
    for (int64_t d : shape) {
      t->add_dims(d);
      n *= d;
    }
    t->set_raw_data(std::string(static_cast<size_t>(n) * 4, '\0'));  // 4 bytes: FLOAT
  }
};

}  // namespace onnx_test
}  // namespace convparity
