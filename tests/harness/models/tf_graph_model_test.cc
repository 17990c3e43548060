#include "harness/models/tf_graph_model.h"

#include <gtest/gtest.h>
#include <rapidcheck.h>
#include <rapidcheck/gtest.h>

#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "core/descriptor.h"
#include "core/graph.h"
#include "generators/fill.h"
#include "generators/problem_gen.h"
#include "harness/models/model_graph.h"
#include "kernels/graph/passes.h"
#include "oracles/graph_oracle.h"
#include "tests/harness/models/model_test_support.h"

namespace convparity {
namespace {

using json = nlohmann::json;

using model_test::Evaluate;
using model_test::Fill;
using model_test::FilledVars;

// The case's value as the oracle computes it: the plain graph of the form, differentiated.
std::vector<double> Reference(const ConvProblem& p, const GraphForm& form, Direction d,
                              const FilledVars& f) {
  const Graph g = form.build(GraphProblem(p, d), false);
  GraphInputs vars;
  for (const Node& n : g.nodes)
    if (n.op == OpKind::kVar)  // the var differentiated is not read: any value does
      vars[n.name] = f.memory.count(n.name)
                         ? HostTensor{n.shape, f.memory.at(n.name)}
                         : HostTensor{n.shape, std::vector<float>(NumElements(n.shape), 0.0f)};
  const HostTensor grad = f.memory.count(kGradOutputVar)
                              ? HostTensor{g.node(g.outputs[0]).shape, f.memory.at(kGradOutputVar)}
                              : HostTensor{};
  Result<GraphOracleOutput> out = ComputeGraph(g, vars, DifferentiatedVar(d), grad, false);
  EXPECT_TRUE(out.ok()) << out.status().message();
  return out.ok() ? out->result.values : std::vector<double>{};
}

std::vector<Spelling> SpellingsToTry() {
  return model_test::SpellingsToTry(
      {"pads=pad_op,weight=transposed,bias=add,norm=identity_batch_norm",
       "pads=same_upper,depthwise=multiplier,bias=fused"});
}

// What the tests read back of a model.
struct TfFacts {
  json model;
  std::map<std::string, int> op_counts;
  std::vector<const json*> convs;  // the conv-family ops, in order
  std::map<std::string, const json*> by_name;

  static std::string Text(const json& attr) {  // a string attribute, decoded
    static const std::string abc =
        "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    std::string out;
    uint32_t v = 0;
    int bits = 0;
    for (char c : attr.at("s").get<std::string>()) {
      if (c == '=') break;
      v = (v << 6) | static_cast<uint32_t>(abc.find(c));
      if ((bits += 6) >= 8) out += static_cast<char>((v >> (bits -= 8)) & 0xFF);
    }
    return out;
  }
  int Count(const std::string& op) const { return op_counts.count(op) ? op_counts.at(op) : 0; }
  // Whether some node of type `op` reads a Const directly (as its operand `k`).
  bool ReadsConst(const std::string& op, size_t k = 0) const {
    for (const json& n : model["modelTopology"]["node"])
      if (n["op"] == op && n["input"].size() > k) {
        const auto it = by_name.find(n["input"][k].get<std::string>());
        if (it != by_name.end() && (*it->second)["op"] == "Const") return true;
      }
    return false;
  }
};
TfFacts Read(const std::string& text) {
  TfFacts f;
  f.model = json::parse(text);
  for (const json& n : f.model["modelTopology"]["node"]) {
    const std::string op = n["op"];
    ++f.op_counts[op];
    f.by_name[n["name"]] = &n;
    if (op.find("Conv") != std::string::npos) f.convs.push_back(&n);
  }
  return f;
}

// What each spelling and direction must look like in the model: "" when it does, else the first
// thing that differs.
std::string SpelledAsSaid(const TfFacts& m, const ConvProblem& p, const GraphForm& form,
                          Direction d, const Spelling& s) {
  if (m.convs.empty()) return "no convolution";
  const json& conv = *m.convs.front();
  const std::string op = conv["op"];
  auto differs = [](const char* what, auto got, auto want) {
    return got == want ? std::string() : std::string(what) + " differs from what is spelled";
  };
  const bool backprop_input = p.transposed == (d == Direction::kForward);
  const std::string dims = p.rank == 3 ? "3D" : "2D";
  const bool multiplier = s.depthwise == DepthwiseSpelling::kMultiplier &&
                          d == Direction::kForward && !p.transposed && p.depthwise();
  const bool bias = p.bias && d == Direction::kForward;
  const std::string want_op =
      d == Direction::kBackwardWeight ? "Conv" + dims + "BackpropFilter" + (p.rank == 3 ? "V2" : "")
      : backprop_input                ? "Conv" + dims + "BackpropInput" + (p.rank == 3 ? "V2" : "")
      : multiplier ? (s.bias == BiasSpelling::kFused && bias ? "FusedDepthwiseConv2dNative"
                                                             : "DepthwiseConv2dNative")
      : s.bias == BiasSpelling::kFused && bias ? "_FusedConv2D"
                                               : "Conv" + dims;
  const bool pad_op = s.pads == PadsSpelling::kPadOp &&
                      (p.pad_begin != Dims{0, 0, 0} || p.pad_end != Dims{0, 0, 0});
  auto has_op = [&](const std::string& type) {
    for (const json* c : m.convs)
      if ((*c)["op"] == type) return true;
    return false;
  };
  auto padded = [&](const std::string& mode) {
    for (const json* c : m.convs)
      if (TfFacts::Text((*c)["attr"]["padding"]) == mode) return true;
    return false;
  };
  const bool first = TfFacts::Text(conv["attr"]["data_format"]).substr(0, 2) == "NC";
  for (const std::string& problem : std::vector<std::string>{
           differs("the op", form == ConvForm() ? op == want_op : has_op(want_op), true),
           // On the problem's convolution: a chain's first may be its second's gradient.
           s.pads == PadsSpelling::kSameUpper ? differs("padding", padded("SAME"), true)
           : s.pads == PadsSpelling::kValid   ? differs("padding", padded("VALID"), true)
           : p.rank == 2                      ? differs("padding", padded("EXPLICIT"), true)
                                              : "",
           differs("data_format", first,
                   s.data_format == DataFormatSpelling::kOp &&
                       p.data_layout == DataLayout::kChannelsFirst),
           // A Pad in front of the op; backward-data's gradient of one a StridedSlice after it
           // (which a transposed convolution's gradient may need anyway).
           d != Direction::kBackwardData
               ? differs("a Pad node", m.Count("Pad") != 0, pad_op)
               : differs("a StridedSlice", m.Count("StridedSlice") != 0 || !pad_op, true),
           differs("a FusedBatchNormV3", m.Count("FusedBatchNormV3"),
                   s.norm == NormSpelling::kIdentityBatchNorm ? 1 : 0),
           differs("the BiasAdd", m.Count("BiasAdd"),
                   bias && s.bias == BiasSpelling::kOperand ? 1 : 0),
           // A chain adds its two paths too (backward, the sum of their gradients may be a
           // constant the writer folds).
           form == ConvForm()         ? differs("the AddV2s", m.Count("AddV2"),
                                        bias && s.bias == BiasSpelling::kAdd ? 1 : 0)
           : d == Direction::kForward ? differs("the AddV2s", m.Count("AddV2") > 0, true)
                                      : "",
           // The weight's Transposes stay nodes only when spelled so.
           s.weight == WeightSpelling::kConstant
               ? differs("a Transpose of a Const", m.ReadsConst("Transpose"), false)
               : "",
       })
    if (!problem.empty()) return problem;
  return "";
}

// Why TensorFlow may not write a case: its own limits, each named.
bool KnownLimit(const std::string& why) {
  for (const char* limit : {"SAME_LOWER", "3-D convolutions pad SAME or VALID only",
                            "backprop ops take no groups", "no fused", "3-D depthwise", "negative"})
    if (why.find(limit) != std::string::npos) return true;
  return false;
}

RC_GTEST_PROP(TfGraphModel, EverySpellingAndDirectionComputesThePlainCase, ()) {
  ProblemSpace space;
  space.max_macs = 20000;
  space.large_percent = 0;
  const ConvProblem drawn = *GenProblem(space);
  const GraphForm& form = **rc::gen::element(&ConvForm(), &ChainForm());
  const Direction d =
      *rc::gen::element(Direction::kForward, Direction::kBackwardData, Direction::kBackwardWeight);
  const uint64_t seed = *rc::gen::arbitrary<uint64_t>();
  int written = 0;
  for (const Spelling& s : SpellingsToTry()) {
    ConvProblem p = drawn;
    ConformToSpelling(s, p);
    if (!Validate(p).ok() || !CheckSpelling(s, p).ok() || !ChooseExactRange(p, d, form).exact)
      continue;
    const FilledVars f = Fill(p, form, d, seed);
    const std::string what = SpellingText(s) + " of " + CaseDescriptor(p, d) + " as " + form.name;
    // Its model, or TensorFlow cannot write it, for a reason it names.
    Result<std::string> model = TfGraphModel(p, form, d, s, f.buffers);
    if (!model.ok()) {
      if (!KnownLimit(model.status().message())) RC_FAIL(what + ": " + model.status().message());
      continue;
    }
    // The graph it writes, 1-D lowered, computes the plain case exactly.
    Spelling graph_spelling = s;
    if (s.bias == BiasSpelling::kFused) graph_spelling.bias = BiasSpelling::kOperand;
    Result<Graph> g = ModelGraph(
        p, form, d, graph_spelling,
        {s.data_format == DataFormatSpelling::kOp ? p.data_layout : DataLayout::kChannelsLast,
         WeightLayout::kSpatialIO, WeightLayout::kSpatialIO});
    if (!g.ok()) RC_FAIL(what + ": " + g.status().message());
    Graph lowered = std::move(g).value();
    RC_ASSERT(LowerConv1d(lowered).ok());
    RC_ASSERT(Evaluate(lowered, f) == Reference(p, form, d, f));
    ++written;
    // And it says what is spelled.
    const std::string wrong = SpelledAsSaid(Read(*model), p, form, d, s);
    if (!wrong.empty()) RC_FAIL(what + ": " + wrong);
  }
  RC_TAG(written > 4 ? "several written" : "few written");
}

TEST(TfGraphModel, WritesTheCasesValuesAndTensorFlowsAttributes) {
  const ConvProblem p =
      ParseDescriptor("2d_ic4_oc6_i5x6_k3x2_s2x1_pb1x0_pe0x1_d1x2_nhwc_hwio_b")->problem;
  const FilledVars f = Fill(p, ConvForm(), Direction::kForward, 7);
  const std::string text = *TfGraphModel(p, ConvForm(), Direction::kForward, Spelling{}, f.buffers);
  const TfFacts m = Read(text);
  const json& conv = *m.convs.at(0);
  EXPECT_EQ(conv["op"], "Conv2D");
  EXPECT_EQ(conv["attr"]["strides"]["list"]["i"], json({"1", "2", "1", "1"}));
  EXPECT_EQ(conv["attr"]["dilations"]["list"]["i"], json({"1", "1", "2", "1"}));
  EXPECT_EQ(conv["attr"]["explicit_paddings"]["list"]["i"],
            json({"0", "0", "1", "0", "0", "1", "0", "0"}));
  EXPECT_EQ(TfFacts::Text(conv["attr"]["data_format"]), "NHWC");
  EXPECT_EQ(m.Count("BiasAdd"), 1);
  EXPECT_EQ(m.model["modelTopology"]["node"][0]["name"], "x");
  // The weights: the HWIO weight and the bias, bit for bit, as model.json and weights.bin.
  Result<std::vector<std::pair<std::string, std::string>>> files = TfGraphModelFiles(text);
  ASSERT_TRUE(files.ok());
  ASSERT_EQ(files->size(), 2u);
  const json manifest = json::parse((*files)[0].second)["weightsManifest"][0];
  EXPECT_EQ(manifest["paths"], json({"weights.bin"}));
  const std::string& bytes = (*files)[1].second;
  std::string want;
  for (const char* var : {"w", "b"})
    want.append(reinterpret_cast<const char*>(f.memory.at(var).data()),
                f.memory.at(var).size() * sizeof(float));
  EXPECT_EQ(bytes, want);
}

TEST(TfGraphModel, WritesEachDirectionsOp) {
  struct Want {
    const char* descriptor;
    const char* op;
  } const wants[] = {
      {"bwd_data:2d_ic2_oc3_i5x5_k3x3_s2_p1_nhwc", "Conv2DBackpropInput"},
      {"bwd_weight:2d_ic2_oc3_i5x5_k3x3_s2_p1_nhwc", "Conv2DBackpropFilter"},
      {"fwd:t2d_ic2_oc3_i4x5_k3x3_s2_p1_op1_nhwc", "Conv2DBackpropInput"},
      {"bwd_data:t2d_ic2_oc3_i4x5_k3x3_s2_p1_op1_nhwc", "Conv2D"},
      {"fwd:3d_ic2_oc2_i4x4x4_k2x2x2_ndhwc", "Conv3D"},
      {"bwd_data:3d_ic2_oc2_i4x4x4_k2x2x2_ndhwc", "Conv3DBackpropInputV2"},
      {"fwd:1d_ic2_oc3_i7_k3_pe1_nwc", "Conv2D"},
  };
  for (const Want& w : wants) {
    const ParsedDescriptor parsed = *ParseDescriptor(w.descriptor);
    const Direction d = *parsed.direction;
    const FilledVars f = Fill(parsed.problem, ConvForm(), d, 3);
    Result<std::string> text = TfGraphModel(parsed.problem, ConvForm(), d, Spelling{}, f.buffers);
    ASSERT_TRUE(text.ok()) << w.descriptor << ": " << text.status().message();
    const TfFacts m = Read(*text);
    EXPECT_EQ((*m.convs.at(0))["op"], w.op) << w.descriptor;
    EXPECT_EQ(m.model["modelTopology"]["node"][0]["name"], ModelInputVar(d)) << w.descriptor;
  }
}

TEST(TfGraphModel, DeclinesWhatTensorFlowCannotWrite) {
  const ParsedDescriptor padded3d = *ParseDescriptor("fwd:3d_ic2_oc2_i4x4x4_k3x3x3_pb1x0x0");
  const FilledVars f = Fill(padded3d.problem, ConvForm(), Direction::kForward, 1);
  EXPECT_EQ(TfGraphModel(padded3d.problem, ConvForm(), Direction::kForward, Spelling{}, f.buffers)
                .status()
                .code(),
            StatusCode::kUnsupported);
  const ParsedDescriptor lower = *ParseDescriptor("fwd:2d_ic2_oc2_i4x4_k2x2_pb1x1");
  const FilledVars g = Fill(lower.problem, ConvForm(), Direction::kForward, 1);
  EXPECT_NE(TfGraphModel(lower.problem, ConvForm(), Direction::kForward,
                         *ParseSpellingText("pads=same_lower"), g.buffers)
                .status()
                .message()
                .find("SAME_LOWER"),
            std::string::npos);
}

}  // namespace
}  // namespace convparity
