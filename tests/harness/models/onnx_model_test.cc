#include "harness/models/onnx_model.h"

#include <gtest/gtest.h>
#include <onnx/onnx_pb.h>
#include <rapidcheck.h>
#include <rapidcheck/gtest.h>

#include <algorithm>
#include <cstring>
#include <map>
#include <string>
#include <vector>

#include "core/descriptor.h"
#include "core/graph.h"
#include "generators/fill.h"
#include "generators/problem_gen.h"
#include "harness/models/model_formats.h"
#include "harness/models/model_graph.h"
#include "oracles/graph_oracle.h"
#include "tests/harness/models/model_test_support.h"

namespace convparity {
namespace {

using model_test::Evaluate;
using model_test::FilledVars;

// A case's vars filled exactly for the forward direction, the only one ONNX writes.
FilledVars Fill(const ConvProblem& p, const GraphForm& form, uint64_t seed) {
  return model_test::Fill(p, form, Direction::kForward, seed);
}

std::vector<Spelling> SpellingsToTry() {
  return model_test::SpellingsToTry(
      {"pads=pad_op,weight=transposed,bias=add,norm=identity_batch_norm",
       "pads=same_lower,depthwise=multiplier,bias=add",
       "output_size=output_shape,weight=transposed,bias=add,norm=identity_batch_norm"});
}

// What the tests read back of a model.
struct ModelFacts {
  onnx::ModelProto model;
  const onnx::NodeProto* conv = nullptr;  // the first Conv or ConvTranspose
  std::map<std::string, int> op_counts;
  std::map<std::string, const onnx::TensorProto*> initializers;
  std::map<std::string, Shape> weight_inputs;  // the graph's inputs but x, by name

  const onnx::AttributeProto* Attribute(const std::string& name) const {
    for (const onnx::AttributeProto& a : conv->attribute())
      if (a.name() == name) return &a;
    return nullptr;
  }
  // Nodes of `type` that read a weight directly: an initializer or a weight input.
  int ReadingWeight(const std::string& type) const {
    int n = 0;
    for (const onnx::NodeProto& node : model.graph().node())
      if (node.op_type() == type &&
          (initializers.count(node.input(0)) != 0 || weight_inputs.count(node.input(0)) != 0))
        ++n;
    return n;
  }
};
ModelFacts Read(const std::string& bytes) {
  ModelFacts f;
  EXPECT_TRUE(f.model.ParseFromString(bytes));
  for (const onnx::TensorProto& t : f.model.graph().initializer()) f.initializers[t.name()] = &t;
  for (const onnx::ValueInfoProto& in : f.model.graph().input()) {
    if (in.name() == kInputVar) continue;
    Shape& shape = f.weight_inputs[in.name()];
    for (const auto& d : in.type().tensor_type().shape().dim()) shape.push_back(d.dim_value());
  }
  for (const onnx::NodeProto& n : f.model.graph().node()) {
    ++f.op_counts[n.op_type()];
    if (!f.conv && (n.op_type() == "Conv" || n.op_type() == "ConvTranspose")) f.conv = &n;
  }
  return f;
}

std::vector<int64_t> Ints(const onnx::AttributeProto* a) {
  return a ? std::vector<int64_t>(a->ints().begin(), a->ints().end()) : std::vector<int64_t>{};
}

// What each spelling must look like in the model, beside what the checker checks: "" when it
// does, else the first thing that differs.
std::string SpelledAsSaid(const ModelFacts& m, const ConvProblem& p, const GraphForm& form,
                          const Spelling& s) {
  if (m.conv == nullptr) return "no Conv or ConvTranspose";
  auto differs = [](const char* what, auto got, auto want) {
    return got == want ? std::string() : std::string(what) + " differs from what is spelled";
  };
  const char* modes[] = {nullptr, "SAME_UPPER", "SAME_LOWER", "VALID", nullptr};
  const char* mode = modes[static_cast<int>(s.pads)];
  const onnx::AttributeProto* auto_pad = m.Attribute("auto_pad");
  const bool output_shape = s.output_size == OutputSizeSpelling::kOutputShape;
  const bool pad_op = s.pads == PadsSpelling::kPadOp;
  const Dims out = p.output();
  const int adds = m.op_counts.count("Add") ? m.op_counts.at("Add") : 0;
  const int transposes = m.op_counts.count("Transpose") ? m.op_counts.at("Transpose") : 0;
  const bool natural = p.weight_layout == (p.transposed ? WeightLayout::kIO : WeightLayout::kOI);
  const bool multiplier = s.depthwise == DepthwiseSpelling::kMultiplier;
  for (const std::string& problem : std::vector<std::string>{
           differs("auto_pad", auto_pad ? auto_pad->s() : "", std::string(mode ? mode : "")),
           differs("output_shape", m.Attribute("output_shape") != nullptr, output_shape),
           output_shape ? differs("output_shape's sizes", Ints(m.Attribute("output_shape")),
                                  Shape(out.begin(), out.begin() + p.rank))
                        : "",
           // Explicit pads exactly where no mode or output shape derives them; a Pad node pads
           // instead.
           differs("pads", m.Attribute("pads") != nullptr, !mode && !output_shape),
           differs("a Pad node", m.op_counts.count("Pad") != 0,
                   pad_op && (p.pad_begin != Dims{0, 0, 0} || p.pad_end != Dims{0, 0, 0})),
           pad_op ? differs("the padded op's pads", Ints(m.Attribute("pads")), Shape(2 * p.rank, 0))
                  : "",
           differs("a BatchNormalization", m.op_counts.count("BatchNormalization") != 0,
                   s.norm == NormSpelling::kIdentityBatchNorm),
           differs("the Adds", adds,
                   (s.bias == BiasSpelling::kAdd ? 1 : 0) + (form == ChainForm() ? 1 : 0)),
           differs("the op's operands", m.conv->input_size(),
                   p.bias && s.bias == BiasSpelling::kOperand ? 3 : 2),
           // The weight's layout change stays a node over the initializer only when spelled so
           // (the conv form: a chain's second convolution has layouts of its own).
           form == ConvForm()
               ? differs("a Transpose of the weight", m.ReadingWeight("Transpose") != 0,
                         s.weight == WeightSpelling::kTransposed && !natural &&
                             !(multiplier && p.weight_layout == WeightLayout::kSpatialIO))
               : "",
           // (C, m, k…) → (C·m, 1, k…): no reshape at all for m = 1 in OI….
           differs(
               "a Reshape of the weight", m.ReadingWeight("Reshape") != 0,
               multiplier && (p.depth_multiplier() > 1 || p.weight_layout != WeightLayout::kOI)),
           // Channels-last data: transposes around the convolution, ONNX's reads channels-first.
           p.data_layout == DataLayout::kChannelsLast && transposes < 2
               ? "no Transposes around a channels-last convolution"
               : "",
       })
    if (!problem.empty()) return problem;
  return "";
}

// The model with the weights as inputs passes the checker and says what the spelling says; it
// declares x and then the weights, in the order and shapes given with their values; its bytes do
// not change with the values; and the graph it is written from, its inputs bound in the model's
// order to those values, computes the plain case exactly.
void CheckWeightInputs(const ConvProblem& p, const GraphForm& form, const Spelling& s,
                       const FilledVars& f, uint64_t seed, const std::vector<double>& plain,
                       const std::string& what) {
  Result<WeightInputsModel> model =
      OnnxModelWithWeightInputs(p, form, Direction::kForward, s, f.buffers);
  RC_ASSERT(model.ok());
  const Status checked = CheckOnnxModel(model->model);
  if (!checked.ok()) RC_FAIL(what + ", weights as inputs: " + checked.message());
  const ModelFacts m = Read(model->model);
  const std::string wrong = SpelledAsSaid(m, p, form, s);
  if (!wrong.empty()) RC_FAIL(what + ", weights as inputs: " + wrong);
  const auto& inputs = m.model.graph().input();
  RC_ASSERT(static_cast<size_t>(inputs.size()) == 1 + model->weights.size());
  RC_ASSERT(inputs.Get(0).name() == std::string(kInputVar));
  for (const onnx::TensorProto& t : m.model.graph().initializer())
    RC_ASSERT(m.weight_inputs.count(t.name()) == 0);
  Result<WeightInputsModel> refilled =
      OnnxModelWithWeightInputs(p, form, Direction::kForward, s, Fill(p, form, seed + 1).buffers);
  RC_ASSERT(refilled.ok());
  RC_ASSERT(refilled->model == model->model);
  Result<WeightInputsGraph> g = OnnxWeightInputsGraph(p, form, Direction::kForward, s, f.buffers);
  RC_ASSERT(g.ok());
  GraphInputs vars;
  for (const Node& n : g->graph.nodes)
    if (n.name == kInputVar) vars[n.name] = HostTensor{n.shape, f.memory.at(n.name)};
  for (size_t k = 0; k < model->weights.size(); ++k) {
    const ModelWeightInput& w = model->weights[k];
    RC_ASSERT(m.weight_inputs.at(inputs.Get(static_cast<int>(k) + 1).name()) == w.shape);
    RC_ASSERT(static_cast<int64_t>(w.values.size()) == NumElements(w.shape));
    vars[inputs.Get(static_cast<int>(k) + 1).name()] = HostTensor{w.shape, w.values};
  }
  RC_ASSERT(Evaluate(g->graph, vars) == plain);
}

RC_GTEST_PROP(OnnxModel, EverySpellingComputesThePlainCaseAndPassesTheChecker, ()) {
  ProblemSpace space;
  space.max_macs = 20000;
  space.large_percent = 0;
  const ConvProblem drawn = *GenProblem(space);
  const GraphForm& form = **rc::gen::element(&ConvForm(), &ChainForm());
  const uint64_t seed = *rc::gen::arbitrary<uint64_t>();
  int spelled = 0;
  for (const Spelling& s : SpellingsToTry()) {
    ConvProblem p = drawn;
    ConformToSpelling(s, p);
    if (!Validate(p).ok() || !CheckSpelling(s, p).ok() ||
        !ChooseExactRange(p, Direction::kForward, form).exact)
      continue;
    ++spelled;
    const FilledVars f = Fill(p, form, seed);
    const std::string what =
        SpellingText(s) + " of " + CaseDescriptor(p, Direction::kForward) + " as " + form.name;
    // The spelling's graph computes the plain graph's values exactly, in both formats' layouts.
    const std::vector<double> plain = Evaluate(form.build(p, false), f);
    for (const ConvLayouts& layouts :
         {ConvLayouts{DataLayout::kChannelsFirst, WeightLayout::kOI, WeightLayout::kIO},
          ConvLayouts{DataLayout::kChannelsLast, WeightLayout::kSpatialIO,
                      WeightLayout::kSpatialIO}}) {
      Result<Graph> g = ModelGraph(p, form, Direction::kForward, s, layouts);
      RC_ASSERT(g.ok());
      RC_ASSERT(Evaluate(*g, f) == plain);
    }
    // Its ONNX model passes the checker and says what the spelling says.
    Result<std::string> model = OnnxModel(p, form, Direction::kForward, s, f.buffers);
    if (s.bias == BiasSpelling::kFused) {
      RC_ASSERT(model.status().code() == StatusCode::kUnsupported);
      continue;
    }
    RC_ASSERT(model.ok());
    const Status checked = CheckOnnxModel(*model);
    if (!checked.ok()) RC_FAIL(what + ": " + checked.message());
    const std::string wrong = SpelledAsSaid(Read(*model), p, form, s);
    if (!wrong.empty()) RC_FAIL(what + ": " + wrong);
    CheckWeightInputs(p, form, s, f, seed, plain, what);
  }
  RC_TAG(spelled > 4 ? "several spellings" : "few spellings");
}

TEST(OnnxModel, WritesTheCasesValuesAndShapes) {
  const ConvProblem p =
      ParseDescriptor("2d_g2_ic4_oc6_i5x6_k3x2_s2x1_pb1x0_pe0x1_d1x2_nhwc_hwio_b")->problem;
  const FilledVars f = Fill(p, ConvForm(), 7);
  const ModelFacts m = Read(*OnnxModel(p, ConvForm(), Direction::kForward, Spelling{}, f.buffers));
  ASSERT_NE(m.conv, nullptr);
  EXPECT_EQ(Ints(m.Attribute("pads")), (Shape{1, 0, 0, 1}));
  EXPECT_EQ(Ints(m.Attribute("dilations")), (Shape{1, 2}));
  EXPECT_EQ(Ints(m.Attribute("strides")), (Shape{2, 1}));
  EXPECT_EQ(m.Attribute("group")->i(), 2);
  EXPECT_EQ(m.model.graph().input(0).name(), "x");
  EXPECT_EQ(m.model.graph().output(0).name(), "y");
  // The bias is the case's bias, bit for bit; the weight (folded into OIHW) holds the same values.
  const onnx::TensorProto* b = m.initializers.at(m.conv->input(2));
  ASSERT_EQ(b->raw_data().size(), 6 * sizeof(float));
  EXPECT_EQ(std::memcmp(b->raw_data().data(), f.memory.at("b").data(), 6 * sizeof(float)), 0);
  const onnx::TensorProto* w = m.initializers.at(m.conv->input(1));
  EXPECT_EQ(std::vector<int64_t>(w->dims().begin(), w->dims().end()), (Shape{6, 2, 3, 2}));
  std::vector<float> got(w->raw_data().size() / sizeof(float)), want = f.memory.at("w");
  std::memcpy(got.data(), w->raw_data().data(), w->raw_data().size());
  std::sort(got.begin(), got.end());
  std::sort(want.begin(), want.end());
  EXPECT_EQ(got, want);
}

TEST(OnnxModel, WritesTheCasesValuesAsWeightInputsInstead) {
  const ConvProblem p =
      ParseDescriptor("2d_g2_ic4_oc6_i5x6_k3x2_s2x1_pb1x0_pe0x1_d1x2_nhwc_hwio_b")->problem;
  const FilledVars f = Fill(p, ConvForm(), 7);
  Result<WeightInputsModel> model =
      OnnxModelWithWeightInputs(p, ConvForm(), Direction::kForward, Spelling{}, f.buffers);
  ASSERT_TRUE(model.ok()) << model.status().message();
  const ModelFacts m = Read(model->model);
  ASSERT_NE(m.conv, nullptr);
  EXPECT_TRUE(m.initializers.empty());
  ASSERT_EQ(model->weights.size(), 2u);
  // The bias is the var itself; the weight, folded into OIHW, has a name of its own.
  std::map<std::string, const ModelWeightInput*> weights;
  for (const ModelWeightInput& w : model->weights) weights[w.name] = &w;
  ASSERT_EQ(weights.count("b"), 1u);
  EXPECT_EQ(weights.at("b")->values, f.memory.at("b"));
  EXPECT_EQ(m.conv->input(2), "b");
  const ModelWeightInput& w = *weights.at(m.conv->input(1));
  EXPECT_EQ(w.shape, (Shape{6, 2, 3, 2}));
  std::vector<float> got = w.values, want = f.memory.at("w");
  std::sort(got.begin(), got.end());
  std::sort(want.begin(), want.end());
  EXPECT_EQ(got, want);
  EXPECT_EQ(m.model.graph().input(0).name(), "x");
}

// The layers below the writers know which formats write weights as inputs without linking them.
TEST(ModelFormats, WhichWriteWeightInputsIsKnownByName) {
  for (const ModelFormat& f : ModelFormats())
    EXPECT_EQ(f.write_weight_inputs != nullptr, WritesWeightInputs(f.name)) << f.name;
}

TEST(OnnxModel, DeclinesWhatOnnxCannotWrite) {
  const ConvProblem p = ParseDescriptor("2d_ic2_oc2_i4x4_k3x3_b")->problem;
  const FilledVars f = Fill(p, ConvForm(), 1);
  EXPECT_EQ(
      OnnxModel(p, ConvForm(), Direction::kBackwardData, Spelling{}, f.buffers).status().code(),
      StatusCode::kUnsupported);
  EXPECT_EQ(
      OnnxModel(p, ConvForm(), Direction::kForward, *ParseSpellingText("bias=fused"), f.buffers)
          .status()
          .code(),
      StatusCode::kUnsupported);
  EXPECT_EQ(OnnxModel(p, ConvForm(), Direction::kForward, *ParseSpellingText("pads=same_upper"),
                      f.buffers)
                .status()
                .message(),
            "pads=same_upper pads 1 and 1 in dimension 0, the problem 0 and 0");
  EXPECT_EQ(
      OnnxModelWithWeightInputs(p, ConvForm(), Direction::kBackwardData, Spelling{}, f.buffers)
          .status()
          .code(),
      StatusCode::kUnsupported);
  EXPECT_FALSE(CheckOnnxModel("not a model").ok());
}

}  // namespace
}  // namespace convparity
