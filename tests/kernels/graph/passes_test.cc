// The passes keep a graph's outputs bit for bit on the exact fill (every partial sum is an integer
// below 2^24, so any summation order and any number of added zeros give the same floats), keep
// their structural promises, and the buggy variants differ exactly where the original bugs did.
#include "kernels/graph/passes.h"

#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "core/descriptor.h"
#include "core/graph.h"
#include "generators/fill.h"
#include "generators/problem_gen.h"
#include "kernels/direct_conv.h"
#include "kernels/graph/interpreter.h"

namespace convparity {
namespace {

using GradientFn = Result<Graph> (*)(const Graph&, const std::vector<std::string>&);

struct Built {
  Graph graph;
  GraphBindings vars;
};

HostTensor Memory(const HostTensor& logical, const std::vector<int>& order, const Shape& shape) {
  return HostTensor{shape, ToMemoryOrder(logical, order)};
}

ConvProblem Problem(const std::string& text) {
  Result<ParsedDescriptor> d = ParseDescriptor(text);
  EXPECT_TRUE(d.ok()) << text << ": " << d.status().message();
  EXPECT_TRUE(d.ok() && Validate(d->problem).ok()) << text;
  return d.ok() ? d->problem : ConvProblem{};
}

int VarNamed(const Graph& g, const std::string& name) {
  for (size_t i = 0; i < g.nodes.size(); ++i)
    if (g.nodes[i].op == OpKind::kVar && g.nodes[i].name == name) return static_cast<int>(i);
  return -1;
}

// The graph of direction `d` of `p` (the forward graph, or its gradient with respect to x or w)
// and its vars bound to the exact fill of `seed`, in the graph's memory layouts.
Built Build(const ConvProblem& p, Direction d, bool multiplier, uint64_t seed,
            GradientFn gradient = Gradient) {
  Built b;
  const Graph forward = ForwardGraph(p, multiplier);
  const CaseInputs in = FillInputs(p, d, Fill::kExact, seed);
  const std::vector<int> data = DataMemoryOrder(p), weight = WeightMemoryOrder(p);
  if (!in.Get(kInputVar).values.empty())
    b.vars["x"] = Memory(in.Get(kInputVar), data, forward.node(VarNamed(forward, "x")).shape);
  if (!in.Get(kWeightVar).values.empty())
    b.vars["w"] = Memory(in.Get(kWeightVar), weight, forward.node(VarNamed(forward, "w")).shape);
  if (!in.Get(kBiasVar).values.empty()) b.vars["b"] = in.Get(kBiasVar);
  if (!in.Get(kGradOutputVar).values.empty())
    b.vars["grad_output"] =
        Memory(in.Get(kGradOutputVar), data, MemoryShape(p.output_shape(), data));
  if (d == Direction::kForward) {
    b.graph = forward;
  } else {
    Result<Graph> g = gradient(forward, {d == Direction::kBackwardData ? "x" : "w"});
    EXPECT_TRUE(g.ok()) << g.status().message();
    if (g.ok()) b.graph = *g;
  }
  return b;
}

bool SameBits(const std::vector<HostTensor>& a, const std::vector<HostTensor>& b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i)
    if (a[i].shape != b[i].shape ||
        std::memcmp(a[i].values.data(), b[i].values.data(), a[i].values.size() * sizeof(float)))
      return false;
  return true;
}

std::vector<HostTensor> Run(const Graph& g, const GraphBindings& vars) {
  Result<std::vector<HostTensor>> r = Interpret(g, vars);
  RC_ASSERT(r.ok());
  return *r;
}

// Small problems keep ctest fast; CONVPARITY_PASSES_MAX_MACS raises the cap for longer runs.
ProblemSpace SmallSpace() {
  ProblemSpace s;
  s.max_macs = 3000;
  if (const char* env = std::getenv("CONVPARITY_PASSES_MAX_MACS")) s.max_macs = std::atoll(env);
  return s;
}

const std::vector<Direction> kDirections = {Direction::kForward, Direction::kBackwardData,
                                            Direction::kBackwardWeight};

bool IsBuggy(const PassInfo& p) { return p.name.find('@') != std::string::npos; }

std::vector<const PassInfo*> CorrectPasses() {
  std::vector<const PassInfo*> out;
  for (const PassInfo& p : AllPasses())
    if (!IsBuggy(p)) out.push_back(&p);
  return out;
}

// Applies `pass` to a copy of `g` and checks its promise; the transformed graph.
Graph Apply(const PassInfo& pass, const Graph& g) {
  Graph t = g;
  const Status st = pass.run(t);
  RC_ASSERT(st.ok());
  const Status promise = pass.check_promise(g, t);
  if (!IsBuggy(pass)) RC_ASSERT(promise.ok());
  return t;
}

// ---- gradient ------------------------------------------------------------------------------

// Plumbing: the gradient's conv_transpose and conv_backward_weight run on the loops of the direct
// kernel's backward directions, so this checks which ops and attributes the pass emits, not the
// loops; TransformSut.EveryCorrectPassAgreesWithTheOracleBackward* check the gradient graphs
// against the oracle, and GraphOracle.* the gradient by reverse accumulation in ATen.
RC_GTEST_PROP(Gradient, DgradAndWgradGraphsRunTheDirectKernelsBackwardLoopsBitwise, ()) {
  const ConvProblem p = *GenProblem(SmallSpace());
  const Direction d = *rc::gen::element(Direction::kBackwardData, Direction::kBackwardWeight);
  RC_PRE(ChooseExactRange(p, d).exact);
  const bool multiplier = *rc::gen::arbitrary<bool>();
  const uint64_t seed = *rc::gen::arbitrary<uint32_t>();
  const Built b = Build(p, d, multiplier, seed);
  const std::vector<HostTensor> got = Run(b.graph, b.vars);
  RC_ASSERT(got.size() == 1u);
  const CaseInputs in = FillInputs(p, d, Fill::kExact, seed);
  const std::vector<float> x = ToMemoryOrder(in.Get(kInputVar), DataMemoryOrder(p));
  const std::vector<float> w = ToMemoryOrder(in.Get(kWeightVar), WeightMemoryOrder(p));
  const std::vector<float> dy = ToMemoryOrder(in.Get(kGradOutputVar), DataMemoryOrder(p));
  std::vector<float> want(static_cast<size_t>(NumElements(ResultShape(p, d))));
  ConvBuffers buffers{x.data(), w.data(), nullptr, dy.data(), want.data()};
  RC_ASSERT(DirectConv().Run(p, d, buffers).ok());
  RC_ASSERT(got[0].values.size() == want.size());
  RC_ASSERT(std::memcmp(got[0].values.data(), want.data(), want.size() * sizeof(float)) == 0);
}

TEST(Gradient, BiasGradientIsTheSumOfGradOutputPerChannel) {
  const ConvProblem p = Problem("2d_ic2_oc3_i4x5_k3x3_p1x1_nhwc_b");
  Result<Graph> g = Gradient(ForwardGraph(p), {"b"});
  ASSERT_TRUE(g.ok()) << g.status().message();
  const Shape y = MemoryShape(p.output_shape(), DataMemoryOrder(p));  // (1, 4, 5, 3)
  HostTensor dy{y, std::vector<float>(static_cast<size_t>(NumElements(y)))};
  for (size_t i = 0; i < dy.values.size(); ++i) dy.values[i] = static_cast<float>(i % 3 + 1);
  Result<std::vector<HostTensor>> r = Interpret(*g, {{"grad_output", dy}});
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ((*r)[0].values, (std::vector<float>{20, 40, 60}));
}

TEST(Gradient, NamesWhatItCannotDo) {
  Graph g = ForwardGraph(Problem("2d_ic2_oc2_i4x4_k3x3"));
  EXPECT_EQ(Gradient(g, {"nope"}).status().code(), StatusCode::kInvalid);
  g.outputs.push_back(g.outputs[0]);
  EXPECT_EQ(Gradient(g, {"x"}).status().code(), StatusCode::kInvalid);
}

TEST(Gradient, TakesTheOtherConvKindOverTheSameWeightAndTheLargeSideFirst) {
  const Graph conv = ForwardGraph(Problem("2d_g2_ic4_oc6_i6x5_k3x3_s2x2"));
  const Graph deconv = ForwardGraph(Problem("t2d_g2_ic4_oc6_i3x3_k3x3_s2x2_op1x0"));
  struct Want {
    const Graph* forward;
    const char* wrt;
    OpKind op;
    std::vector<std::string> operands;
    WeightLayout layout;
  } const cases[] = {
      {&conv, "x", OpKind::kConvTranspose, {"grad_output", "w"}, WeightLayout::kIO},
      {&deconv, "x", OpKind::kConv, {"grad_output", "w"}, WeightLayout::kOI},
      {&conv, "w", OpKind::kConvBackwardWeight, {"x", "grad_output"}, WeightLayout::kOI},
      {&deconv, "w", OpKind::kConvBackwardWeight, {"grad_output", "x"}, WeightLayout::kOI},
  };
  for (const Want& c : cases) {
    Result<Graph> g = Gradient(*c.forward, {c.wrt});
    ASSERT_TRUE(g.ok()) << g.status().message();
    const Node& out = g->node(g->outputs[0]);
    ASSERT_EQ(out.op, c.op);
    for (size_t k = 0; k < c.operands.size(); ++k)
      EXPECT_EQ(g->node(out.inputs[k]).name, c.operands[k]);
    EXPECT_EQ(std::get<ConvAttrs>(out.attrs).weight_layout, c.layout);
  }
  // conv's output size is not a bijection: x's 6 rows need output_padding 1 (5 rows would do too).
  const Result<Graph> grad = Gradient(conv, {"x"});  // alive as long as the reference below
  ASSERT_TRUE(grad.ok()) << grad.status().message();
  const Node& dx = grad->node(grad->outputs[0]);
  EXPECT_EQ(std::get<ConvAttrs>(dx.attrs).output_padding[0], 1);
  EXPECT_EQ(std::get<ConvAttrs>(dx.attrs).output_padding[1], 0);
}

// ---- every pass, every direction, and pipelines ------------------------------------------

RC_GTEST_PROP(Passes, EveryPassKeepsOutputsBitwiseAndItsPromise, ()) {
  const ConvProblem p = *GenProblem(SmallSpace());
  const Direction d = *rc::gen::elementOf(kDirections);
  RC_PRE(ChooseExactRange(p, d).exact);
  const Built b = Build(p, d, *rc::gen::arbitrary<bool>(), *rc::gen::arbitrary<uint32_t>());
  const std::vector<HostTensor> want = Run(b.graph, b.vars);
  for (const PassInfo* pass : CorrectPasses()) {
    RC_LOG() << pass->name << "\n";
    RC_ASSERT(SameBits(Run(Apply(*pass, b.graph), b.vars), want));
  }
}

RC_GTEST_PROP(Passes, RandomPipelinesKeepOutputsBitwise, ()) {
  const ConvProblem p = *GenProblem(SmallSpace());
  const Direction d = *rc::gen::elementOf(kDirections);
  RC_PRE(ChooseExactRange(p, d).exact);
  const Built b = Build(p, d, *rc::gen::arbitrary<bool>(), *rc::gen::arbitrary<uint32_t>());
  const std::vector<const PassInfo*> passes = CorrectPasses();
  const auto pipeline = *rc::gen::container<std::vector<const PassInfo*>>(
      *rc::gen::inRange(1, 6), rc::gen::elementOf(passes));
  Graph g = b.graph;
  for (const PassInfo* pass : pipeline) {
    RC_LOG() << pass->name << ",";
    g = Apply(*pass, g);
  }
  RC_ASSERT(SameBits(Run(g, b.vars), Run(b.graph, b.vars)));
}

RC_GTEST_PROP(Passes, ConvertLayoutToAnyWeightLayoutKeepsOutputsBitwise, ()) {
  const ConvProblem p = *GenProblem(SmallSpace());
  const Direction d = *rc::gen::elementOf(kDirections);
  RC_PRE(ChooseExactRange(p, d).exact);
  const Built b = Build(p, d, *rc::gen::arbitrary<bool>(), *rc::gen::arbitrary<uint32_t>());
  const WeightLayout wl = *rc::gen::element(WeightLayout::kOI, WeightLayout::kIO,
                                            WeightLayout::kSpatialIO, WeightLayout::kOSpatialI);
  Graph g = b.graph;
  RC_ASSERT(ConvertLayout(g, wl).ok());
  for (const Node& n : g.nodes)
    if (n.op == OpKind::kConv || n.op == OpKind::kConvTranspose ||
        n.op == OpKind::kConvBackwardWeight) {
      RC_ASSERT(std::get<ConvAttrs>(n.attrs).data_layout == DataLayout::kChannelsLast);
      RC_ASSERT(std::get<ConvAttrs>(n.attrs).weight_layout == wl);
    }
  RC_ASSERT(SameBits(Run(g, b.vars), Run(b.graph, b.vars)));
}

// Edges the generators reach only now and then, named: output_padding ≥ stride (dilation >
// stride), padding beyond the kernel's reach (a transposed conv's crop, and one whose padding crops
// its whole input away), 3-D, every weight layout, multipliers in both representations, leftover
// rows with stride ≠ dilation.
TEST(Passes, EdgeConfigurationsKeepOutputsBitwiseInEveryDirection) {
  const char* descriptors[] = {
      "t1d_ic2_oc2_i3_k3_d3_op2",
      "t2d_g2_ic4_oc2_i3x2_k2x3_s2x1_pb3x0_pe0x2_d1x2_op1x1",
      "t1d_ic1_oc1_i1_k1_s2_pb1_op1_b",
      "t3d_g2_ic2_oc4_i2x2x3_k2x1x2_s1x2x1_p1x0x0_ndhwc_dhwio",
      "2d_g2_ic2_oc6_i5x4_k3x2_s2x1_d1x2_nhwc_hwio_b",
      "2d_g3_ic3_oc6_i5x5_k3x3_s2x2_ohwi",
      "t2d_ic2_oc3_i3x3_k2x2_d3x1_op2x0_iohw",
      "t2d_g2_ic2_oc4_i3x3_k2x2_s2x2_d1x3_op1x2_nhwc_ohwi_b",
      "3d_g3_mb2_ic3_oc6_i7x5x4_k2x2x1_s3x1x2_d2x2x1_pb1x0x0_pe0x1x0_ndhwc_odhwi",
      "1d_g2_mb2_ic4_oc6_i9_k3_s2_d2_pb2_pe1_nwc_owi",
      "1d_g2_ic2_oc4_i6_k2_s3_nwc_wio",
  };
  for (const char* text : descriptors) {
    const ConvProblem p = Problem(text);
    for (Direction d : kDirections) {
      for (bool multiplier : {false, true}) {
        SCOPED_TRACE(std::string(DirectionName(d)) + ":" + text + (multiplier ? " (C, m)" : ""));
        ASSERT_TRUE(ChooseExactRange(p, d).exact);
        const Built b = Build(p, d, multiplier, 11);
        const Result<std::vector<HostTensor>> want = Interpret(b.graph, b.vars);
        ASSERT_TRUE(want.ok()) << want.status().message();
        Graph all = b.graph;  // every pass in turn, as one pipeline
        for (const PassInfo* pass : CorrectPasses()) {
          SCOPED_TRACE(pass->name);
          Graph g = b.graph;
          ASSERT_TRUE(pass->run(g).ok());
          EXPECT_TRUE(pass->check_promise(b.graph, g).ok());
          EXPECT_TRUE(SameBits(*Interpret(g, b.vars), *want));
          ASSERT_TRUE(pass->run(all).ok());
        }
        EXPECT_TRUE(SameBits(*Interpret(all, b.vars), *want));
      }
    }
  }
}

TEST(Legalize, BuildsTheTvmSchemeOfPrimitiveOps) {
  const ConvProblem p = Problem("2d_g2_mb2_ic4_oc6_i7x6_k3x2_s2x1_d1x2_pb1x0_pe0x1_nhwc_hwio");
  Graph g = Build(p, Direction::kBackwardWeight, false, 3).graph;
  ASSERT_TRUE(Legalize(g).ok());
  EXPECT_EQ(g.CountOps(OpKind::kConvBackwardWeight), 0);
  EXPECT_EQ(g.CountOps(OpKind::kTile), 1);
  EXPECT_EQ(g.CountOps(OpKind::kConv), 1);
  EXPECT_EQ(g.CountOps(OpKind::kSum), 1);
  EXPECT_GE(g.CountOps(OpKind::kStridedSlice), 1);  // K' > k: the extra x rows
  for (const Node& n : g.nodes)
    if (n.op == OpKind::kConv) {
      const ConvAttrs& a = std::get<ConvAttrs>(n.attrs);
      EXPECT_EQ(a.groups, 2 * 4);   // one group per (image, input channel)
      EXPECT_EQ(a.stride[1], 2);    // the dilation …
      EXPECT_EQ(a.dilation[0], 2);  // … and the stride swap places
    }
}

// ---- convert_layout + fold_constants on chains ----------------------------------------------

// x (1, 2, 9, 8) NCHW → conv 3×3 (OIHW const) → conv_transpose 2×2 stride 2 (IOHW const) →
// grouped conv 3×3 stride 2 (OHWI const) → y. Values in {-1, 0, 1}: every sum stays exact.
Graph Chain(bool transposed_middle) {
  Graph g;
  auto weight = [&](const std::string& name, Shape s) {
    HostTensor t{s, std::vector<float>(static_cast<size_t>(NumElements(s)))};
    for (size_t i = 0; i < t.values.size(); ++i)
      t.values[i] = static_cast<float>(int(i * 7 % 3) - 1);
    return g.AddConst(name, t);
  };
  const int x = g.AddVar("x", {1, 2, 9, 8});
  ConvAttrs a;
  a.kernel = {3, 3, 1};
  a.pad_begin = {1, 1, 0};
  a.pad_end = {1, 0, 0};
  int y = g.AddOp(OpKind::kConv, {x, weight("w1", {4, 2, 3, 3})}, a);
  ConvAttrs t;
  t.stride = {2, 2, 1};
  t.output_padding = {1, 0, 0};
  t.weight_layout = WeightLayout::kIO;
  if (transposed_middle)
    y = g.AddOp(OpKind::kConvTranspose, {y, weight("w2", {4, 2, 2, 2})}, t);
  else
    y = g.AddOp(OpKind::kConv, {y, weight("w2", {2, 4, 1, 1})}, ConvAttrs{});
  ConvAttrs c;
  c.groups = 2;
  c.stride = {2, 2, 1};
  c.kernel = {3, 3, 1};
  c.weight_layout = WeightLayout::kOSpatialI;
  y = g.AddOp(OpKind::kConv, {y, weight("w3", {4, 3, 3, 1})}, c);
  g.outputs = {y};
  EXPECT_TRUE(InferShapes(g).ok());
  return g;
}

GraphBindings ChainInput() {
  HostTensor x{{1, 2, 9, 8}, std::vector<float>(144)};
  for (size_t i = 0; i < x.values.size(); ++i) x.values[i] = static_cast<float>(int(i * 5 % 3) - 1);
  return {{"x", x}};
}

TEST(ConvertLayoutFoldConstants, AChainOfConvsKeepsExactlyTwoRuntimeLayoutTransforms) {
  for (bool transposed : {false, true}) {
    const Graph chain = Chain(transposed);
    Graph g = chain;
    ASSERT_TRUE(FindPass("convert_layout")->run(g).ok());
    EXPECT_TRUE(FindPass("convert_layout")->check_promise(chain, g).ok());
    ASSERT_TRUE(FindPass("fold_constants")->run(g).ok());
    EXPECT_TRUE(FindPass("fold_constants")->check_promise(chain, g).ok());
    EXPECT_EQ(g.CountOps(OpKind::kLayoutTransform), 2);
    EXPECT_TRUE(SameBits(*Interpret(g, ChainInput()), *Interpret(chain, ChainInput())));
  }
}

TEST(ConvertLayoutFoldConstants, TvmLayoutFoldLeavesOneWeightTransformPerConv) {
  const Graph chain = Chain(true);
  Graph g = chain;
  ASSERT_TRUE(FindPass("convert_layout")->run(g).ok());
  const PassInfo* buggy = FindPass("fold_constants@tvm-layout-fold");
  ASSERT_NE(buggy, nullptr);
  ASSERT_TRUE(buggy->run(g).ok());
  EXPECT_EQ(g.CountOps(OpKind::kLayoutTransform), 2 + 3);
  EXPECT_FALSE(buggy->check_promise(chain, g).ok());
  EXPECT_TRUE(SameBits(*Interpret(g, ChainInput()), *Interpret(chain, ChainInput())));
}

TEST(FoldConstants, EvaluatesAllConstantSubgraphs) {
  Graph g;
  const int c = g.AddConst("c", HostTensor{{2, 3}, {1, 2, 3, 4, 5, 6}});
  const int t = g.AddOp(OpKind::kTranspose, {c}, PermuteAttrs{{1, 0}, "", ""});
  const int x = g.AddVar("x", {3, 2});
  g.outputs = {g.AddOp(OpKind::kAdd, {x, t})};
  ASSERT_TRUE(InferShapes(g).ok());
  ASSERT_TRUE(FoldConstants(g).ok());
  EXPECT_EQ(g.CountOps(OpKind::kTranspose), 0);
  const Result<std::vector<HostTensor>> r =
      Interpret(g, {{"x", HostTensor{{3, 2}, {0, 0, 0, 0, 0, 0}}}});
  ASSERT_TRUE(r.ok());
  EXPECT_EQ((*r)[0].values, (std::vector<float>{1, 4, 2, 5, 3, 6}));
}

TEST(Passes, AMalformedGraphIsAnErrorNotACrash) {
  Graph g = ForwardGraph(Problem("2d_ic2_oc2_i4x4_k3x3"));
  g.node(g.outputs[0]).attrs =
      PermuteAttrs{{0, 1, 2, 3}, "", ""};  // a conv without conv attributes
  for (const PassInfo& pass : AllPasses()) {
    Graph t = g;
    EXPECT_EQ(pass.run(t).code(), StatusCode::kInvalid) << pass.name;
  }
  EXPECT_EQ(Gradient(g, {"x"}).status().code(), StatusCode::kInvalid);
}

// ---- buggy variants: wrong on their trigger, the correct pass elsewhere ----------------------

bool AnyNode(const Graph& g, const std::function<bool(const Node&, const ConvAttrs&)>& f) {
  for (const Node& n : g.nodes)
    if ((n.op == OpKind::kConv || n.op == OpKind::kConvTranspose ||
         n.op == OpKind::kConvBackwardWeight) &&
        f(n, std::get<ConvAttrs>(n.attrs)))
      return true;
  return false;
}

bool Any1d(const Dims& d, int64_t above) { return d[0] > above; }

// Where each variant's original took its wrong path, read off the graph it is given.
bool Triggers(const std::string& variant, const Graph& g) {
  if (variant == "legalize@tvm-9954")
    return AnyNode(g, [&](const Node& n, const ConvAttrs& a) {
      const Shape& x = g.node(n.inputs[0]).shape;
      const int64_t c = a.data_layout == DataLayout::kChannelsFirst ? x[1] : x.back();
      return n.op == OpKind::kConvBackwardWeight && a.groups > 1 && c / a.groups > 1;
    });
  if (variant == "lower_conv1d@tvm-6203")
    return AnyNode(g, [](const Node& n, const ConvAttrs& a) {
      return n.op == OpKind::kConv && a.rank == 1 && (Any1d(a.stride, 1) || Any1d(a.dilation, 1));
    });
  if (variant == "lower_conv1d@tvm-7912")
    return AnyNode(g, [](const Node& n, const ConvAttrs& a) {
      return n.op == OpKind::kConvTranspose && a.rank == 1 && Any1d(a.output_padding, 0);
    });
  if (variant == "canonicalize_depthwise@tvm-10294")
    return AnyNode(g, [&](const Node& n, const ConvAttrs& a) {
      const Shape& w = g.node(n.inputs[1]).shape;
      return a.multiplier_weight && w[a.weight_layout == WeightLayout::kOI ? 1 : a.rank + 1] > 1;
    });
  return false;  // fold_constants@tvm-layout-fold changes structure, never values
}

RC_GTEST_PROP(BuggyPasses, AgreeWithTheCorrectPassOffTheirTriggerBitwise, ()) {
  const ConvProblem p = *GenProblem(SmallSpace());
  const Direction d = *rc::gen::elementOf(kDirections);
  RC_PRE(ChooseExactRange(p, d).exact);
  const Built b = Build(p, d, *rc::gen::arbitrary<bool>(), *rc::gen::arbitrary<uint32_t>());
  for (const PassInfo& pass : AllPasses()) {
    if (!IsBuggy(pass) || Triggers(pass.name, b.graph)) continue;
    RC_LOG() << pass.name << "\n";
    const PassInfo* correct = FindPass(pass.name.substr(0, pass.name.find('@')));
    RC_ASSERT(correct != nullptr);
    RC_ASSERT(SameBits(Run(Apply(pass, b.graph), b.vars), Run(Apply(*correct, b.graph), b.vars)));
  }
}

RC_GTEST_PROP(BuggyPasses, GradientAsTvm9465AgreesOffItsTriggerBitwise, ()) {
  const ConvProblem p = *GenProblem(SmallSpace());
  const Direction d = *rc::gen::elementOf(kDirections);
  RC_PRE(d != Direction::kForward && ChooseExactRange(p, d).exact);
  const bool trigger = d == Direction::kBackwardData && !p.transposed && p.groups > 1 &&
                       p.in_channels / p.groups > 1 && p.out_channels / p.groups > 1;
  RC_PRE(!trigger);
  const bool multiplier = *rc::gen::arbitrary<bool>();
  const uint64_t seed = *rc::gen::arbitrary<uint32_t>();
  const Built right = Build(p, d, multiplier, seed);
  const Built wrong = Build(p, d, multiplier, seed, GradientAsTvm9465);
  RC_ASSERT(SameBits(Run(wrong.graph, wrong.vars), Run(right.graph, right.vars)));
}

struct TriggerCase {
  const char* variant;
  const char* descriptor;
  Direction direction;
  bool multiplier;
};

TEST(BuggyPasses, EachDiffersOnItsTriggerConfiguration) {
  const TriggerCase cases[] = {
      {"legalize@tvm-9954", "2d_g2_ic4_oc6_i5x5_k3x3", Direction::kBackwardWeight, false},
      {"legalize@tvm-9954", "2d_g2_ic4_oc6_i7x6_k3x2_s2x1_d1x2_p1x0", Direction::kBackwardWeight,
       false},
      {"lower_conv1d@tvm-6203", "1d_ic2_oc2_i9_k3_s2", Direction::kForward, false},
      {"lower_conv1d@tvm-6203", "1d_ic2_oc2_i9_k3_d2", Direction::kForward, false},
      {"lower_conv1d@tvm-7912", "t1d_ic2_oc2_i4_k3_s2_op1", Direction::kForward, false},
      {"canonicalize_depthwise@tvm-10294", "2d_g3_ic3_oc6_i5x5_k3x3", Direction::kForward, true},
  };
  for (const TriggerCase& c : cases) {
    SCOPED_TRACE(std::string(c.variant) + " " + c.descriptor);
    const ConvProblem p = Problem(c.descriptor);
    const Built b = Build(p, c.direction, c.multiplier, 7);
    ASSERT_TRUE(Triggers(c.variant, b.graph));
    const PassInfo* pass = FindPass(c.variant);
    ASSERT_NE(pass, nullptr);
    Graph g = b.graph;
    ASSERT_TRUE(pass->run(g).ok());
    const Result<std::vector<HostTensor>> got = Interpret(g, b.vars);
    ASSERT_TRUE(got.ok()) << got.status().message();
    EXPECT_FALSE(SameBits(*got, *Interpret(b.graph, b.vars)));
  }
  const ConvProblem p = Problem("2d_g2_ic4_oc8_i6x6_k3x3_p1x1");
  const Built right = Build(p, Direction::kBackwardData, false, 7);
  const Built wrong = Build(p, Direction::kBackwardData, false, 7, GradientAsTvm9465);
  EXPECT_FALSE(SameBits(*Interpret(wrong.graph, wrong.vars), *Interpret(right.graph, right.vars)));
}

// How often a variant's wrong path shows in values on random problems that take it: the trigger
// predicates above are not so wide that they name cases the bug never touches. (Some trigger
// cases cannot differ: a stride on a conv1d whose output has one element, for example.)
TEST(BuggyPasses, DifferOnMostRandomProblemsThatTakeTheirWrongPath) {
  rc::Random random(20261122);
  const rc::Gen<ConvProblem> gen = GenProblem(SmallSpace());
  std::map<std::string, std::pair<int, int>> counts;  // variant → (took the path, differed)
  for (int i = 0; i < 1500; ++i) {
    const ConvProblem p = gen(random.split(), rc::kNominalSize).value();
    for (Direction d : kDirections) {
      if (!ChooseExactRange(p, d).exact) continue;
      const Built b = Build(p, d, /*multiplier=*/i % 2 == 0, i);
      const std::vector<HostTensor> want = *Interpret(b.graph, b.vars);
      for (const PassInfo& pass : AllPasses()) {
        if (!IsBuggy(pass) || !Triggers(pass.name, b.graph)) continue;
        Graph g = b.graph;
        auto& [took, differed] = counts[pass.name];
        ++took;
        // Dropping output_padding can leave no output at all: an invalid graph, as TVM's was.
        differed += !pass.run(g).ok() || !SameBits(*Interpret(g, b.vars), want);
      }
      if (d == Direction::kBackwardData && !p.transposed && p.groups > 1 &&
          p.in_channels / p.groups > 1 && p.out_channels / p.groups > 1) {
        const Built wrong = Build(p, d, i % 2 == 0, i, GradientAsTvm9465);
        auto& [took, differed] = counts["gradient@tvm-9465"];
        ++took;
        differed += !SameBits(*Interpret(wrong.graph, wrong.vars), want);
      }
    }
  }
  for (const auto& [name, c] : counts) {
    std::printf("%-34s took the wrong path %4d times, differed %4d times\n", name.c_str(), c.first,
                c.second);
    EXPECT_GE(c.first, 10) << name;
    EXPECT_GE(c.second, c.first * 3 / 4) << name;
  }
  EXPECT_EQ(counts.size(), 5u);  // every value-changing variant was reached
}

TEST(PassRegistry, NamesAreUniqueAndEveryVariantHasItsPass) {
  std::vector<std::string> names;
  for (const PassInfo& p : AllPasses()) {
    EXPECT_FALSE(p.summary.empty()) << p.name;
    EXPECT_EQ(FindPass(p.name), &p);
    if (IsBuggy(p)) {
      EXPECT_NE(FindPass(p.name.substr(0, p.name.find('@'))), nullptr) << p.name;
    }
    names.push_back(p.name);
  }
  std::sort(names.begin(), names.end());
  EXPECT_EQ(std::unique(names.begin(), names.end()), names.end());
  EXPECT_EQ(FindPass("nope"), nullptr);
  ASSERT_NE(FindGradient("gradient@tvm-9465"), nullptr);
  EXPECT_EQ(FindGradient("gradient")->run, &Gradient);
}

}  // namespace
}  // namespace convparity
