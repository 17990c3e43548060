// ONNX import of models written here and by convparity's own writer: a written model imports back
// as its problem and spelling; each reason to skip a node is counted with its first occurrence;
// scaling keeps an auto-pad spelling; bad input is an error naming the file; the cases written
// carry the problem, the spelling and the origin.
#include <gtest/gtest.h>
#include <onnx/onnx_pb.h>
#include <rapidcheck.h>
#include <rapidcheck/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <string>
#include <vector>

#include "core/descriptor.h"
#include "generators/fill.h"
#include "generators/problem_gen.h"
#include "harness/io/files.h"
#include "harness/io/onnx_conv_node.h"
#include "harness/io/onnx_import.h"
#include "harness/models/onnx_model.h"
#include "tests/harness/io/onnx_test_support.h"

namespace convparity {
namespace {

namespace fs = std::filesystem;
using onnx_test::OneNode;

OnnxImport Import(const std::string& bytes, OnnxImportOptions options = {}) {
  Result<OnnxImport> r = ParseOnnxModel(bytes, "m.onnx", options);
  EXPECT_TRUE(r.ok()) << r.status().message();
  return r.ok() ? r.value() : OnnxImport{};
}

// The model convparity's writer makes of p spelled s (forward, the conv form).
std::string WrittenModel(const ConvProblem& p, const Spelling& s) {
  const CaseInputs in = FillInputs(p, Direction::kForward, Fill::kExact, 1);
  std::map<std::string, std::vector<float>> memory;
  CaseBuffers buffers;
  for (const CaseVar& v : CaseVars(ConvForm(), p, Direction::kForward))
    memory[v.name] = ToMemoryOrder(in.Get(v.name), v.memory_order);
  for (const auto& [name, values] : memory) buffers.vars[name] = values.data();
  Result<std::string> model = OnnxModel(p, ConvForm(), Direction::kForward, s, buffers);
  RC_ASSERT(model.ok());
  return *model;
}

// What the import of p's model spelled s gives back: the convolution the model's Conv node
// computes (channels-first data, ONNX's weights; a Pad node's padding in its input, a separate Add
// its bias), spelled as the node writes it (its pads and output size).
std::pair<ConvProblem, Spelling> ExpectedBack(ConvProblem p, const Spelling& s) {
  p.data_layout = DataLayout::kChannelsFirst;
  p.weight_layout = p.natural_weight_layout();
  if (s.bias != BiasSpelling::kOperand) p.bias = false;
  Spelling back;
  back.output_size = s.output_size;
  if (s.pads == PadsSpelling::kPadOp) {
    for (int i = 0; i < p.rank; ++i) {
      p.input[i] += p.pad_begin[i] + p.pad_end[i];
      p.pad_begin[i] = p.pad_end[i] = 0;
    }
  } else {
    back.pads = s.pads;
  }
  return {p, back};
}

RC_GTEST_PROP(OnnxImport, AModelOfConvparitysWriterImportsBackAsItsProblemAndSpelling, ()) {
  ProblemSpace space;
  space.max_macs = 20000;
  space.large_percent = 0;
  ConvProblem p = *GenProblem(space);
  Spelling fused;  // not ONNX's
  fused.bias = BiasSpelling::kFused;
  Spelling s = FitSpelling(*GenSpelling(SpellingMask::AllBut(fused)), p);
  ConformToSpelling(s, p);
  RC_PRE(Validate(p).ok() && CheckSpelling(s, p).ok());
  const OnnxImport r = Import(WrittenModel(p, s));
  RC_ASSERT(r.tally.read == 1);
  if (r.problems.size() != 1)
    RC_FAIL(SpellingText(s) + " of " + CaseDescriptor(p, Direction::kForward) + ": skipped, " +
            r.tally.skipped.begin()->first + ": " + r.tally.skipped.begin()->second.what);
  const auto [problem, spelling] = ExpectedBack(p, s);
  RC_ASSERT(CaseDescriptor(r.problems[0].problem, Direction::kForward) ==
            CaseDescriptor(problem, Direction::kForward));
  RC_ASSERT(SpellingText(r.problems[0].spelling) == SpellingText(spelling));
  RC_ASSERT(r.tally.changed.empty());
  RC_TAG(SpellingText(spelling).empty() ? "plain" : SpellingText(spelling));
}

// Each attribute where ONNX puts it: pads are all beginnings, then all ends; a Conv's weight holds
// the input channels of one group, a ConvTranspose's the output channels of one group.
TEST(OnnxImport, ReadsEachAttributeWhereOnnxPutsIt) {
  OneNode grouped = OneNode::Of({"1", "4", "5"}, {6, 2, 3});
  grouped.group = 2;
  OneNode transposed = OneNode::Of({"1", "4", "5"}, {4, 3, 3});
  transposed.op = "ConvTranspose";
  transposed.group = 2;
  transposed.bias = true;
  OneNode valid = OneNode::Of({"2", "3", "4", "5", "6"}, {2, 3, 2, 2, 2});
  valid.auto_pad = "VALID";
  const std::pair<OneNode, const char*> nodes[] = {
      {OneNode::Of({"1", "2", "9", "8"}, {4, 2, 3, 3}).With("pads", {0, 1, 2, 0}),
       "fwd:2d_ic2_oc4_i9x8_k3x3_pb0x1_pe2x0"},
      {OneNode::Of({"1", "2", "9", "8"}, {4, 2, 3, 2})
           .With("strides", {2, 3})
           .With("dilations", {1, 2}),
       "fwd:2d_ic2_oc4_i9x8_k3x2_s2x3_d1x2"},
      {grouped, "fwd:1d_g2_ic4_oc6_i5_k3"},
      {transposed, "fwd:t1d_g2_ic4_oc6_i5_k3_b"},
      {valid, "fwd:3d_mb2_ic3_oc2_i4x5x6_k2x2x2"},
  };
  for (const auto& [node, descriptor] : nodes) {
    SCOPED_TRACE(descriptor);
    const OnnxImport r = Import(node.Bytes());
    ASSERT_EQ(r.problems.size(), 1u);
    EXPECT_EQ(CaseDescriptor(r.problems[0].problem, Direction::kForward), descriptor);
  }
}

TEST(OnnxImport, CountsEachReasonToSkipWithItsFirstNode) {
  OneNode half = OneNode::Of({"1", "2", "5", "5"}, {2, 2, 3, 3});
  half.elem_type = onnx::TensorProto::FLOAT16;
  OneNode auto_pad = OneNode::Of({"1", "2", "5", "5"}, {2, 2, 3, 3});
  auto_pad.auto_pad = "SAME";
  OneNode declared = OneNode::Of({"1", "2", "5", "5"}, {2, 2, 3, 3});
  declared.y = Shape{1, 2, 5, 5};  // without pads it is 3×3
  const OneNode kernel =
      OneNode::Of({"1", "2", "5", "5"}, {2, 2, 3, 3}).With("kernel_shape", {3, 2});
  const std::pair<OneNode, const char*> cases[] = {
      {half, "data type: FLOAT16"},
      {OneNode::Of({"1", "2", "H", "W"}, {2, 2, 3, 3}), "shapes: the input's shape is not known"},
      {OneNode::Of({"1", "2", "3", "3", "3", "3"}, {2, 2, 1, 1, 1, 1}),
       "rank: other than 1-3 spatial dimensions"},
      // ONNX's shape inference would divide by the stride of 0.
      {OneNode::Of({"1", "2", "5", "5"}, {2, 2, 3, 3}).With("strides", {0, 1}),
       "illegal: stride must be positive"},
      {OneNode::Of({"1", "3", "5", "5"}, {2, 2, 3, 3}),
       "attribute: the weight's N input channels per group times group N are not the "
       "input's N channels"},
      {kernel, "attribute: kernel_shape [N,N] is not the weight's [N,N]"},
      {auto_pad, "attribute: auto_pad 'SAME' is not NOTSET, SAME_UPPER, SAME_LOWER or VALID"},
      {declared, "output shape: not the one the model declares"},
  };
  for (const auto& [node, reason] : cases) {
    SCOPED_TRACE(reason);
    const OnnxImport r = Import(node.Bytes());
    EXPECT_EQ(r.tally.read, 1);
    EXPECT_TRUE(r.problems.empty());
    ASSERT_EQ(r.tally.skipped.size(), 1u);
    EXPECT_EQ(r.tally.skipped.begin()->first.rfind(reason, 0), 0u)
        << r.tally.skipped.begin()->first;
    EXPECT_EQ(r.tally.skipped.begin()->second.where, "m.onnx node 1");
    EXPECT_EQ(r.tally.skipped.begin()->second.count, 1);
  }
  // A skipped node's what says what was there: the node as written.
  const OnnxImport r = Import(kernel.Bytes());
  EXPECT_EQ(r.tally.skipped.begin()->second.what,
            "kernel_shape [3,2] is not the weight's [3,3]: Conv [1,2,5,5] [2,2,3,3] "
            "kernel_shape=[3,2] -> [1,2,3,4]");  // ONNX infers by kernel_shape
}

TEST(OnnxImport, ADynamicBatchIsOneAndCounted) {
  OneNode node = OneNode::Of({"N", "2", "5", "5"}, {4, 2, 3, 3}).With("pads", {1, 1, 1, 1});
  node.bias = true;
  const OnnxImport r = Import(node.Bytes());
  ASSERT_EQ(r.problems.size(), 1u);
  EXPECT_EQ(CaseDescriptor(r.problems[0].problem, Direction::kForward),
            "fwd:2d_ic2_oc4_i5x5_k3x3_p1x1_b");
  ASSERT_EQ(r.tally.changed.size(), 1u);
  EXPECT_EQ(r.tally.changed.begin()->first,
            "batch: a dynamic first dimension of a model input set to 1");
  EXPECT_EQ(r.tally.changed.begin()->second.what, "input 'x': 'N'");
  EXPECT_EQ(r.problems[0].written, "Conv [1,2,5,5] [4,2,3,3] [4] pads=[1,1,1,1] -> [1,4,5,5]");
}

TEST(OnnxImport, AConvInAControlFlowBodyIsCountedAsSkipped) {
  // y = Conv(x, w), then If(c) of two branches, each a Conv of the outer x and w.
  onnx::ModelProto m = OneNode::Of({"1", "2", "5", "5"}, {2, 2, 3, 3}).Model();
  onnx::GraphProto* g = m.mutable_graph();
  onnx::ValueInfoProto* c = g->add_input();
  c->set_name("c");
  c->mutable_type()->mutable_tensor_type()->set_elem_type(onnx::TensorProto::BOOL);
  c->mutable_type()->mutable_tensor_type()->mutable_shape();
  onnx::NodeProto* branch = g->add_node();
  branch->set_op_type("If");
  branch->add_input("c");
  branch->add_output("z");
  for (const char* name : {"then_branch", "else_branch"}) {
    onnx::AttributeProto* body = branch->add_attribute();
    body->set_name(name);
    body->set_type(onnx::AttributeProto::GRAPH);
    onnx::GraphProto* b = body->mutable_g();
    b->set_name(name);
    onnx::NodeProto* conv = b->add_node();
    conv->set_op_type("Conv");
    conv->add_input("x");
    conv->add_input("w");
    conv->add_output(std::string(name) + "_z");
    onnx::ValueInfoProto* out = b->add_output();
    out->set_name(std::string(name) + "_z");
    out->mutable_type()->mutable_tensor_type()->set_elem_type(onnx::TensorProto::FLOAT);
  }
  const OnnxImport r = Import(m.SerializeAsString());
  EXPECT_EQ(r.tally.read, 3);
  EXPECT_EQ(r.problems.size(), 1u);
  ASSERT_EQ(r.tally.skipped.count("subgraph: a convolution in a control-flow body"), 1u);
  EXPECT_EQ(r.tally.skipped.at("subgraph: a convolution in a control-flow body").count, 2);
  EXPECT_EQ(r.tally.skipped.at("subgraph: a convolution in a control-flow body").what,
            "its If node holds 2");
}

TEST(OnnxImport, ScalingKeepsAnAutoPadSpellingAndItsBudget) {
  OneNode node = OneNode::Of({"8", "64", "224", "224"}, {128, 64, 3, 3}).With("strides", {2, 2});
  node.auto_pad = "SAME_UPPER";
  OnnxImportOptions options;
  options.scale = {2, 9, 20000};
  const OnnxImport r = Import(node.Bytes(), options);
  ASSERT_EQ(r.problems.size(), 1u);
  const ConvProblem& p = r.problems[0].problem;
  EXPECT_EQ(SpellingText(r.problems[0].spelling), "pads=same_upper");
  EXPECT_TRUE(CheckSpelling(r.problems[0].spelling, p).ok());
  EXPECT_LE(p.macs(), 20000);
  EXPECT_LE(p.batch, 2);
  EXPECT_LE(p.input[0], 9);
  // A kernel alone over the budget stays over it: skipped, as for benchdnn's lists.
  const OneNode huge = OneNode::Of({"1", "4", "64", "64"}, {4, 4, 33, 33});
  options.scale = {0, 0, 100};
  const OnnxImport big = Import(huge.Bytes(), options);
  EXPECT_TRUE(big.problems.empty());
  EXPECT_EQ(big.tally.skipped.count("size: over the MAC budget after scaling"), 1u);
  // So is a problem over the limits a check replays cases within.
  options.scale = {};
  options.case_limits.max_macs = 1000;
  EXPECT_EQ(Import(huge.Bytes(), options)
                .tally.skipped.count(
                    "size: over the limits of a check (--max-elements, --max-macs, --max-extent)"),
            1u);
}

TEST(OnnxImport, BadInputIsAnErrorNamingTheFile) {
  EXPECT_EQ(ParseOnnxModel("not a model", "bad.onnx").status().message(),
            "bad.onnx: not an ONNX model (no ModelProto with a graph)");
  EXPECT_EQ(ParseOnnxModel("", "empty.onnx").status().code(), StatusCode::kInvalid);
  EXPECT_EQ(ImportOnnxFile("/no/such/model.onnx").status().message(),
            "/no/such/model.onnx: no such file");
  EXPECT_EQ(ImportOnnxFile("/").status().message(), "/: not a file");
  OnnxImportOptions small;
  small.max_file_bytes = 10;
  EXPECT_EQ(
      ParseOnnxModel(OneNode::Of({"1", "1", "3"}, {1, 1, 1}).Bytes(), "m", small).status().code(),
      StatusCode::kLimit);
}

TEST(OnnxImport, WritesCasesWithTheSpellingAndTheOrigin) {
  OneNode node = OneNode::Of({"1", "2", "7"}, {2, 2, 3}).With("strides", {2});
  node.auto_pad = "SAME_LOWER";
  node.name = "layer1/conv";
  const OnnxImport r = Import(node.Bytes());
  ASSERT_EQ(r.problems.size(), 1u);
  const fs::path dir =
      fs::temp_directory_path() / ("convparity_onnx_cases_" + std::to_string(getpid()));
  Result<WrittenCases> n =
      WriteOnnxCases(r.problems, {Direction::kForward, Direction::kBackwardData}, {Fill::kExact},
                     "direct", dir.string(), 5);
  ASSERT_TRUE(n.ok()) << n.status().message();
  EXPECT_EQ(n->written, 2);
  EXPECT_EQ(n->distinct, 2);
  for (const auto& e : fs::directory_iterator(dir)) {
    Result<ConvCase> c = ParseCaseText(*ReadFile(e.path().string()));
    ASSERT_TRUE(c.ok()) << c.status().message();
    EXPECT_EQ(c->problem, r.problems[0].problem);
    EXPECT_EQ(SpellingText(c->spelling), "pads=same_lower");
    EXPECT_EQ(c->origin.format, "onnx");
    EXPECT_EQ(c->origin.file, "m.onnx");
    EXPECT_EQ(c->origin.line, 1);
    EXPECT_EQ(c->origin.name, "layer1/conv");
    EXPECT_EQ(c->origin.repro, "Conv [1,2,7] [2,2,3] strides=[2] auto_pad=SAME_LOWER -> [1,2,4]");
    EXPECT_EQ(c->note, "layer1/conv (m.onnx node 1)");
    EXPECT_EQ(c->seed, 5u);
  }
  fs::remove_all(dir);
}

}  // namespace
}  // namespace convparity
