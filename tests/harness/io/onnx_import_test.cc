// ONNX import of ONNX's own test models (Debian's libonnx-testdata): every Conv and ConvTranspose
// node is imported, with the operand and result shapes the model declares, and the imported
// problem computes the output ONNX's test expects from the test's inputs (the oracle); the integer
// convolutions are the only nodes skipped, for their data type.
#include "harness/io/onnx_import.h"

#include <gtest/gtest.h>
#include <onnx/onnx_pb.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "core/case_graphs.h"
#include "core/descriptor.h"
#include "core/graph.h"
#include "oracles/graph_oracle.h"
#include "tests/harness/io/onnx_test_support.h"

namespace convparity {
namespace {

namespace fs = std::filesystem;
using onnx_test::TestDataDir;

// The test models with convolutions: node/*conv* (ONNX's operator tests, the integer ones
// included), pytorch-converted/test_Conv* (PyTorch's modules exported), and
// pytorch-operator/test_operator_conv* (PyTorch's functions exported).
std::vector<fs::path> ConvModelDirs() {
  std::vector<fs::path> dirs;
  const std::pair<const char*, const char*> globs[] = {{"node", "conv"},
                                                       {"pytorch-converted", "test_Conv"},
                                                       {"pytorch-operator", "test_operator_conv"}};
  for (const auto& [folder, part] : globs) {
    const fs::path root = TestDataDir() / folder;
    if (!fs::is_directory(root)) continue;
    for (const auto& e : fs::directory_iterator(root)) {
      const std::string name = e.path().filename().string();
      const bool match = std::string(folder) == "node" ? name.find(part) != std::string::npos
                                                       : name.rfind(part, 0) == 0;
      if (match && fs::is_regular_file(e.path() / "model.onnx")) dirs.push_back(e.path());
    }
  }
  std::sort(dirs.begin(), dirs.end());
  return dirs;
}

std::string FileBytes(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

onnx::ModelProto ReadModel(const fs::path& path) {
  onnx::ModelProto m;
  EXPECT_TRUE(m.ParseFromString(FileBytes(path))) << path;
  return m;
}

// The shape a graph input or output declares, read here without shape inference.
Shape Declared(const onnx::ValueInfoProto& v) {
  Shape s;
  for (const auto& d : v.type().tensor_type().shape().dim()) s.push_back(d.dim_value());
  return s;
}

std::map<std::string, Shape> DeclaredShapes(const onnx::GraphProto& g) {
  std::map<std::string, Shape> shapes;
  for (const onnx::TensorProto& t : g.initializer())
    shapes[t.name()] = Shape(t.dims().begin(), t.dims().end());
  for (const onnx::ValueInfoProto& v : g.input()) shapes[v.name()] = Declared(v);
  for (const onnx::ValueInfoProto& v : g.output()) shapes[v.name()] = Declared(v);
  return shapes;
}

bool FloatConv(const std::string& op) { return op == "Conv" || op == "ConvTranspose"; }
bool IntegerConv(const std::string& op) { return op == "ConvInteger" || op == "QLinearConv"; }

HostTensor ToHost(const onnx::TensorProto& t) {
  HostTensor h;
  h.shape.assign(t.dims().begin(), t.dims().end());
  if (!t.raw_data().empty()) {
    h.values.resize(t.raw_data().size() / sizeof(float));
    std::memcpy(h.values.data(), t.raw_data().data(), h.values.size() * sizeof(float));
  } else {
    h.values.assign(t.float_data().begin(), t.float_data().end());
  }
  return h;
}

TEST(OnnxImport, ImportsEveryConvNodeOfOnnxsTestDataWithTheShapesTheModelDeclares) {
  const std::vector<fs::path> dirs = ConvModelDirs();
  if (dirs.empty())
    CONVPARITY_SKIP_OR_FAIL_UNDER_CI("no ONNX test models in " << TestDataDir()
                                                               << " (Debian's libonnx-testdata)");
  int64_t float_nodes = 0, integer_nodes = 0, imported = 0, transposed = 0;
  std::map<int, int> ranks;
  for (const fs::path& dir : dirs) {
    const fs::path file = dir / "model.onnx";
    SCOPED_TRACE(file.string());
    const onnx::ModelProto m = ReadModel(file);
    const std::map<std::string, Shape> shapes = DeclaredShapes(m.graph());
    Result<OnnxImport> r = ImportOnnxFile(file.string());
    ASSERT_TRUE(r.ok()) << r.status().message();
    // Every node that is a convolution is read; the float ones imported, in graph order.
    size_t next = 0;
    for (int i = 0; i < m.graph().node_size(); ++i) {
      const onnx::NodeProto& node = m.graph().node(i);
      if (IntegerConv(node.op_type())) {
        ++integer_nodes;
        EXPECT_EQ(r->tally.skipped.count("data type: " + node.op_type()), 1u);
      }
      if (!FloatConv(node.op_type())) continue;
      ++float_nodes;
      ASSERT_LT(next, r->problems.size()) << "node " << i + 1 << " was not imported";
      const OnnxProblem& p = r->problems[next++];
      EXPECT_EQ(p.node, i + 1);
      EXPECT_EQ(p.file, file.string());
      EXPECT_EQ(p.name, node.name());
      EXPECT_EQ(p.problem.transposed, node.op_type() == "ConvTranspose");
      EXPECT_EQ(p.problem.input_shape(), shapes.at(node.input(0)));
      EXPECT_EQ(p.problem.weight_shape(), shapes.at(node.input(1)));
      // The promise: the case's output shape is the one the model declares for the node.
      EXPECT_EQ(p.problem.output_shape(), shapes.at(node.output(0)))
          << CaseDescriptor(p.problem, Direction::kForward) << " from " << p.written;
      EXPECT_EQ(p.problem.bias, node.input_size() > 2 && !node.input(2).empty());
      EXPECT_EQ(p.problem.data_layout, DataLayout::kChannelsFirst);
      EXPECT_EQ(p.problem.weight_layout, p.problem.natural_weight_layout());
      EXPECT_TRUE(CheckSpelling(p.spelling, p.problem).ok());
      ++ranks[p.problem.rank];
      transposed += p.problem.transposed;
      ++imported;
    }
    EXPECT_EQ(next, r->problems.size());
    EXPECT_EQ(r->tally.read, r->tally.imported + r->tally.SkippedTotal());
    for (const auto& [reason, e] : r->tally.skipped)
      EXPECT_EQ(reason.rfind("data type: ", 0), 0u)
          << reason << ", first " << e.where << ": " << e.what;
  }
  std::printf(
      "ONNX test data: %zu models, %lld float conv nodes imported of %lld (%lld transposed;"
      " 1-D %d, 2-D %d, 3-D %d), %lld integer convolutions skipped\n",
      dirs.size(), static_cast<long long>(imported), static_cast<long long>(float_nodes),
      static_cast<long long>(transposed), ranks[1], ranks[2], ranks[3],
      static_cast<long long>(integer_nodes));
  EXPECT_EQ(imported, float_nodes);
  // What ONNX's test data holds (libonnx-testdata 1.12): each kind is there, so that a test
  // data set without them does not pass by importing nothing.
  EXPECT_GE(float_nodes, 40);
  EXPECT_GE(transposed, 10);
  EXPECT_GE(integer_nodes, 3);
  EXPECT_EQ(ranks.size(), 3u);
}

// The imported problem, evaluated by the oracle on ONNX's test inputs (x, w, b: initializers or
// test_data_set_0's input_<i>.pb), gives the output ONNX's test expects: the pads, output padding
// and groups are read as ONNX means them, not only to the right output shape.
TEST(OnnxImport, ImportedProblemsComputeTheOutputsOnnxsTestsExpect) {
  const std::vector<fs::path> dirs = ConvModelDirs();
  if (dirs.empty())
    CONVPARITY_SKIP_OR_FAIL_UNDER_CI("no ONNX test models in " << TestDataDir()
                                                               << " (Debian's libonnx-testdata)");
  int checked = 0;
  for (const fs::path& dir : dirs) {
    const fs::path data = dir / "test_data_set_0";
    const onnx::ModelProto m = ReadModel(dir / "model.onnx");
    if (m.graph().node_size() != 1 || !FloatConv(m.graph().node(0).op_type()) ||
        !fs::is_regular_file(data / "output_0.pb"))
      continue;
    SCOPED_TRACE(dir.string());
    std::map<std::string, HostTensor> values;
    for (const onnx::TensorProto& t : m.graph().initializer()) values[t.name()] = ToHost(t);
    int input = 0;
    for (const onnx::ValueInfoProto& v : m.graph().input()) {
      if (values.count(v.name())) continue;
      onnx::TensorProto t;
      ASSERT_TRUE(
          t.ParseFromString(FileBytes(data / ("input_" + std::to_string(input++) + ".pb"))));
      values[v.name()] = ToHost(t);
    }
    onnx::TensorProto expected_proto;
    ASSERT_TRUE(expected_proto.ParseFromString(FileBytes(data / "output_0.pb")));
    const HostTensor expected = ToHost(expected_proto);

    Result<OnnxImport> r = ImportOnnxFile((dir / "model.onnx").string());
    ASSERT_TRUE(r.ok()) << r.status().message();
    ASSERT_EQ(r->problems.size(), 1u);
    const ConvProblem& p = r->problems[0].problem;
    const onnx::NodeProto& node = m.graph().node(0);
    GraphInputs vars = {{kInputVar, values.at(node.input(0))},
                        {kWeightVar, values.at(node.input(1))}};
    if (p.bias) vars[kBiasVar] = values.at(node.input(2));
    Result<GraphOracleOutput> got = ComputeGraph(ConvForm().build(p, false), vars, "", {}, false);
    ASSERT_TRUE(got.ok()) << got.status().message();
    ASSERT_EQ(got->result.shape, expected.shape);
    ASSERT_EQ(got->result.values.size(), expected.values.size());
    size_t wrong = 0, first = 0;
    for (size_t i = 0; i < expected.values.size(); ++i) {
      const double want = expected.values[i], have = got->result.values[i];
      if (std::abs(have - want) > 1e-4 * (1 + std::abs(want)) && wrong++ == 0) first = i;
    }
    EXPECT_EQ(wrong, 0u) << CaseDescriptor(p, Direction::kForward) << " from "
                         << r->problems[0].written << ": first at " << first << ", "
                         << got->result.values[first] << " instead of " << expected.values[first];
    ++checked;
  }
  std::printf("ONNX test data: %d imported convolutions give the expected outputs\n", checked);
  EXPECT_GE(checked, 40);
}

// Nodes whose attributes are read in more than one step: what the problem and its spelling say,
// and what the tally counts as written otherwise.
TEST(OnnxImport, ReadsAutoPadOutputShapeAndOutputPaddingAsOnnxMeansThem) {
  if (!fs::is_directory(TestDataDir() / "node"))
    CONVPARITY_SKIP_OR_FAIL_UNDER_CI("no ONNX test models in " << TestDataDir());
  struct Known {
    const char* model;
    const char* descriptor;
    const char* spelling;
    const char* changed;  // a key of the tally's changes, or ""
  };
  const Known known[] = {
      {"node/test_conv_with_autopad_same", "fwd:2d_ic1_oc1_i5x5_k3x3_s2x2_p1x1", "pads=same_lower",
       ""},
      {"node/test_conv_with_strides_and_asymmetric_padding", "fwd:2d_ic1_oc1_i7x5_k3x3_s2x2_p1x0",
       "", ""},
      // SAME_UPPER on a ConvTranspose: the output input × stride, the odd padding at the end.
      {"node/test_convtranspose_autopad_same", "fwd:t2d_ic1_oc2_i3x3_k3x3_s2x2_pb0x0_pe1x1", "",
       "spelling: pads=same_upper of a ConvTranspose written as explicit pads"},
      // output_shape 10×8 is one row and column past the full output: output_padding.
      {"node/test_convtranspose_output_shape", "fwd:t2d_ic1_oc2_i3x3_k3x3_s3x2_op1x1",
       "output_size=output_shape", "output_padding: output_shape beyond the full output"},
      {"node/test_convtranspose_kernel_shape", "fwd:t2d_ic1_oc2_i3x3_k3x3_s3x2_op1x1",
       "output_size=output_shape", ""},
      {"node/test_convtranspose_pads", "fwd:t2d_ic1_oc2_i3x3_k3x3_s3x2_p1x2", "", ""},
      {"pytorch-converted/test_Conv2d_depthwise_with_multiplier",
       "fwd:2d_g4_mb2_ic4_oc8_i6x6_k3x3_b", "", ""},
      {"pytorch-converted/test_ConvTranspose2d", "fwd:t2d_ic3_oc4_i7x6_k3x3_s3x2_p1x1_op1x1_b", "",
       ""},
  };
  for (const Known& k : known) {
    SCOPED_TRACE(k.model);
    Result<OnnxImport> r = ImportOnnxFile((TestDataDir() / k.model / "model.onnx").string());
    ASSERT_TRUE(r.ok()) << r.status().message();
    ASSERT_EQ(r->problems.size(), 1u);
    EXPECT_EQ(CaseDescriptor(r->problems[0].problem, Direction::kForward), k.descriptor);
    EXPECT_EQ(SpellingText(r->problems[0].spelling), k.spelling);
    if (*k.changed) {
      EXPECT_EQ(r->tally.changed.count(k.changed), 1u);
    } else {
      EXPECT_TRUE(r->tally.changed.empty()) << r->tally.changed.begin()->first;
    }
  }
}

}  // namespace
}  // namespace convparity
