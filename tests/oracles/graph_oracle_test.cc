// The graph oracle (oracles/graph_oracle.h): a one-conv graph in any layout and weight
// representation is the case's reference (oracles/case_reference.h, built in PyTorch's layouts) in
// every direction, with its bound; a residual chain is the composition of its convolutions and its
// gradients satisfy the adjoint identity; every other op agrees with our float32 interpreter on
// integers and its reverse rule is the adjoint of its forward; bad inputs are statuses.
#include "oracles/graph_oracle.h"

#include <gtest/gtest.h>
#include <rapidcheck.h>
#include <rapidcheck/gtest.h>

#include <cmath>
#include <functional>
#include <map>
#include <ostream>
#include <string>
#include <vector>

#include "core/graph.h"
#include "core/prng.h"
#include "generators/fill.h"
#include "generators/problem_gen.h"
#include "kernels/graph/interpreter.h"
#include "oracles/case_reference.h"
#include "oracles/torch_oracle.h"

namespace convparity {
namespace {

HostTensor Memory(const HostTensor& logical, const std::vector<int>& order) {
  return HostTensor{MemoryShape(logical.shape, order), ToMemoryOrder(logical, order)};
}

// A float64 tensor in logical order, as the values of its memory order.
std::vector<double> MemoryValues(const RefTensor& logical, const std::vector<int>& order) {
  const Shape strides = StridesFor(logical.shape, order);
  std::vector<double> memory(logical.values.size());
  ForEachIndex(logical.shape, [&](const int64_t* idx, int64_t linear) {
    int64_t off = 0;
    for (size_t i = 0; i < strides.size(); ++i) off += idx[i] * strides[i];
    memory[off] = logical.values[linear];
  });
  return memory;
}

HostTensor IntTensor(const Shape& shape, Prng& rng, int range) {
  HostTensor t{shape, std::vector<float>(static_cast<size_t>(NumElements(shape)))};
  for (float& v : t.values) v = static_cast<float>(rng.Between(-range, range));
  return t;
}

HostTensor RealTensor(const Shape& shape, Prng& rng) {
  HostTensor t{shape, std::vector<float>(static_cast<size_t>(NumElements(shape)))};
  for (float& v : t.values) v = 2.0f * rng.UnitFloat() - 1.0f;
  return t;
}

const Node& VarNamed(const Graph& g, const std::string& name) {
  for (const Node& n : g.nodes)
    if (n.op == OpKind::kVar && n.name == name) return n;
  static const Node none;
  return none;
}

std::string Described(const Status& s) {
  return std::to_string(static_cast<int>(s.code())) + " " + s.message();
}

// ---- a single convolution: the same in every layout, all three directions
// -------------------------------

ProblemSpace SmallSpace() {
  ProblemSpace space;
  space.max_macs = 20000;  // 1000 cases (ctest) × 3 directions × 2 runs in about a second
  return space;
}

// The graph of one convolution in the problem's layouts, in either weight representation, gives the
// case's reference bit for bit, and both give the bound's K: the reduction length, +1 for a bias.
RC_GTEST_PROP(GraphOracle, SingleConvGraphInAnyLayoutIsTheCaseReference, ()) {
  const ConvProblem p = *GenProblem(SmallSpace());
  const bool multiplier = *rc::gen::arbitrary<bool>() && HasMultiplierRepresentation(p);
  const uint64_t seed = *rc::gen::arbitrary<uint64_t>();
  RC_CLASSIFY(multiplier, "multiplier weight");
  RC_CLASSIFY(p.transposed, "transposed");
  RC_CLASSIFY(p.data_layout == DataLayout::kChannelsLast, "channels-last");
  Graph g = ForwardGraph(p, multiplier);
  const Status inferred = InferShapes(g);
  if (!inferred.ok()) RC_FAIL(inferred.message());
  CaseInputs in = FillInputs(p, Direction::kForward, Fill::kUniform, seed);
  in.vars[kGradOutputVar] =
      FillInputs(p, Direction::kBackwardData, Fill::kUniform, seed).Get(kGradOutputVar);
  GraphInputs vars{
      {"x", Memory(in.Get(kInputVar), DataMemoryOrder(p))},
      {"w", {VarNamed(g, "w").shape, ToMemoryOrder(in.Get(kWeightVar), WeightMemoryOrder(p))}}};
  if (p.bias) vars["b"] = in.Get(kBiasVar);
  const HostTensor dy = Memory(in.Get(kGradOutputVar), DataMemoryOrder(p));

  for (Direction d : AllDirections()) {
    const bool fwd = d == Direction::kForward;
    const std::string wrt = fwd ? "" : d == Direction::kBackwardData ? "x" : "w";
    Result<GraphOracleOutput> got = ComputeGraph(g, vars, wrt, fwd ? HostTensor{} : dy, true);
    Result<OracleOutput> want = ComputeReference(p, ConvForm(), d, in, true);
    if (!got.ok()) RC_FAIL(std::string(DirectionName(d)) + ": " + Described(got.status()));
    RC_ASSERT(want.ok());
    const std::vector<int> order = ResultMemoryOrder(p, d);
    RC_ASSERT(got->result.shape == (fwd ? g.node(g.outputs[0]).shape : VarNamed(g, wrt).shape));
    // The same ATen calls on the same values: bit-identical, whatever the layouts.
    RC_ASSERT(got->result.values == MemoryValues(want->result, order));
    RC_ASSERT(got->magnitude.values == MemoryValues(want->magnitude, order));
    const int64_t k = ReductionLength(p, d) + (fwd && p.bias ? 1 : 0);
    RC_ASSERT(got->root_reduction_sum == std::sqrt(static_cast<double>(k)));
    RC_ASSERT(want->bound_reduction_length == k);
  }
  if (p.bias) {  // the bias gradient: grad_output summed over all but the channel axis
    Result<GraphOracleOutput> db = ComputeGraph(g, vars, "b", dy, false);
    RC_ASSERT(db.ok());
    std::vector<double> want(static_cast<size_t>(p.out_channels), 0.0), scale = want;
    ForEachIndex(in.Get(kGradOutputVar).shape, [&](const int64_t* idx, int64_t linear) {
      want[idx[1]] += in.Get(kGradOutputVar).values[linear];
      scale[idx[1]] += std::fabs(in.Get(kGradOutputVar).values[linear]);
    });
    for (size_t c = 0; c < want.size(); ++c)
      RC_ASSERT(std::fabs(db->result.values[c] - want[c]) <= 1e-13 * scale[c]);
  }
}

// √K squared is K again, though not in double (√2² is 2.0000000000000004); other sums round up.
TEST(CaseReference, BoundOfOneReductionIsItsLength) {
  for (int64_t k = 1; k <= 100000; ++k)
    ASSERT_EQ(BoundReductionLength(std::sqrt(static_cast<double>(k))), k) << k;
  EXPECT_EQ(BoundReductionLength(std::sqrt(2.0) + std::sqrt(2.0)), 8);
  EXPECT_EQ(BoundReductionLength(std::sqrt(2.0) + 1), 6);  // 5.83
  EXPECT_EQ(BoundReductionLength(0), 0);
}

// ---- a residual chain -------------------------------------------------------------------------

// out = NCHW(conv_transpose(NHWC(conv(x, w1)), w2) + NHWC(x)): an ordinary grouped conv with
// asymmetric padding and dilation in NCHW/OIHW, a layout_transform, a transposed grouped conv with
// output_padding in NHWC/HWIO that restores x's size, a residual add that reads x a second time.
struct Chain {
  ConvProblem p1, p2;
  Graph g;
};

Chain ResidualChain() {
  Chain c;
  ConvProblem& p1 = c.p1;
  p1.batch = 2, p1.in_channels = 4, p1.out_channels = 6, p1.groups = 2;
  p1.input = {5, 6, 1}, p1.kernel = {3, 3, 1}, p1.dilation = {1, 2, 1};
  p1.pad_begin = {1, 1, 0}, p1.pad_end = {1, 3, 0};  // output 5 × 6
  ConvProblem& p2 = c.p2;
  p2.transposed = true;
  p2.batch = 2, p2.in_channels = 6, p2.out_channels = 4, p2.groups = 2;
  p2.input = {5, 6, 1}, p2.kernel = {3, 3, 1}, p2.dilation = {2, 2, 1};
  p2.pad_begin = {2, 1, 0}, p2.pad_end = {3, 3, 0}, p2.output_padding = {1, 0, 0};  // output 5 × 6
  p2.data_layout = DataLayout::kChannelsLast, p2.weight_layout = WeightLayout::kSpatialIO;
  Graph& g = c.g;
  const int x = g.AddVar("x", p1.input_shape());
  const int w1 = g.AddVar("w1", p1.weight_shape());
  const int w2 = g.AddVar("w2", MemoryShape(p2.weight_shape(), WeightMemoryOrder(p2)));
  const int y1 = g.AddOp(OpKind::kConv, {x, w1}, ConvAttrsOf(p1));
  const PermuteAttrs to_nhwc{{0, 2, 3, 1}, "NCHW", "NHWC"}, to_nchw{{0, 3, 1, 2}, "NHWC", "NCHW"};
  const int h = g.AddOp(OpKind::kLayoutTransform, {y1}, to_nhwc);
  const int y2 = g.AddOp(OpKind::kConvTranspose, {h, w2}, ConvAttrsOf(p2));
  const int skip = g.AddOp(OpKind::kLayoutTransform, {x}, to_nhwc);
  const int sum = g.AddOp(OpKind::kAdd, {y2, skip});
  g.outputs = {g.AddOp(OpKind::kLayoutTransform, {sum}, to_nchw)};
  return c;
}

TEST(GraphOracle, ResidualChainForwardIsTheCompositionOfItsConvs) {
  Chain c = ResidualChain();
  ASSERT_TRUE(Validate(c.p1).ok() && Validate(c.p2).ok());
  ASSERT_TRUE(InferShapes(c.g).ok());
  // Small integers: every value of the chain is an exact float32, so the composition through
  // float32 HostTensors is exact too.
  Prng rng(31);
  CaseInputs in1;
  in1.vars[kInputVar] = IntTensor(c.p1.input_shape(), rng, 2);
  in1.vars[kWeightVar] = IntTensor(c.p1.weight_shape(), rng, 2);
  const HostTensor w2 = IntTensor(c.p2.weight_shape(), rng, 2);
  const GraphInputs vars{{"x", in1.Get(kInputVar)},
                         {"w1", in1.Get(kWeightVar)},
                         {"w2", Memory(w2, WeightMemoryOrder(c.p2))}};
  Result<OracleOutput> y1 = ComputeReference(c.p1, ConvForm(), Direction::kForward, in1, false);
  ASSERT_TRUE(y1.ok()) << y1.status().message();
  CaseInputs in2;
  in2.vars[kInputVar] = {y1->result.shape,
                         std::vector<float>(y1->result.values.begin(), y1->result.values.end())};
  in2.vars[kWeightVar] = w2;
  Result<OracleOutput> y2 = ComputeReference(c.p2, ConvForm(), Direction::kForward, in2, false);
  ASSERT_TRUE(y2.ok()) << y2.status().message();
  std::vector<double> want = y2->result.values;  // logical NCHW = the output's memory
  for (size_t i = 0; i < want.size(); ++i) want[i] += in1.Get(kInputVar).values[i];

  Result<GraphOracleOutput> got = ComputeGraph(c.g, vars, "", {}, true);
  ASSERT_TRUE(got.ok()) << got.status().message();
  EXPECT_EQ(got->result.shape, c.p1.input_shape());
  EXPECT_EQ(got->result.values, want);
  ASSERT_EQ(got->magnitude.values.size(), want.size());
  for (size_t i = 0; i < want.size(); ++i) ASSERT_GE(got->magnitude.values[i], std::fabs(want[i]));
  const double k1 = ReductionLength(c.p1, Direction::kForward);
  const double k2 = ReductionLength(c.p2, Direction::kForward);
  EXPECT_DOUBLE_EQ(got->root_reduction_sum, std::sqrt(k1) + std::sqrt(k2) + 1);
}

// ⟨∂⟨dy, f⟩/∂var, v⟩ = ⟨dy, f(var = v) − f(var = 0)⟩ for f affine in var; `scale` bounds the
// terms of both sides (from the gradient's magnitude).
struct AdjointSides {
  double gradient_side = 0, forward_side = 0, scale = 0, root_reduction_sum = 0;
};

Result<AdjointSides> Adjoint(const Graph& g, GraphInputs vars, const std::string& var,
                             const HostTensor& dy, const HostTensor& v) {
  Result<GraphOracleOutput> grad = ComputeGraph(g, vars, var, dy, true);
  if (!grad.ok()) return grad.status();
  vars[var] = v;
  Result<GraphOracleOutput> at_v = ComputeGraph(g, vars, "", {}, false);
  if (!at_v.ok()) return at_v.status();
  vars[var].values.assign(v.values.size(), 0.0f);
  Result<GraphOracleOutput> at_0 = ComputeGraph(g, vars, "", {}, false);
  if (!at_0.ok()) return at_0.status();
  if (grad->result.values.size() != v.values.size() ||
      at_v->result.values.size() != dy.values.size())
    return Status::Internal("sizes differ");
  AdjointSides s;
  s.root_reduction_sum = grad->root_reduction_sum;
  for (size_t i = 0; i < v.values.size(); ++i) {
    s.gradient_side += grad->result.values[i] * v.values[i];
    s.scale += grad->magnitude.values[i] * std::fabs(v.values[i]);
  }
  for (size_t i = 0; i < dy.values.size(); ++i)
    s.forward_side += dy.values[i] * (at_v->result.values[i] - at_0->result.values[i]);
  return s;
}

TEST(GraphOracle, ResidualChainGradientsSatisfyTheAdjointIdentity) {
  Chain c = ResidualChain();
  ASSERT_TRUE(InferShapes(c.g).ok());
  const ConvProblem &p1 = c.p1, &p2 = c.p2;
  auto root = [](const ConvProblem& p, Direction d) {
    return std::sqrt(static_cast<double>(ReductionLength(p, d)));
  };
  // Σ√K of each gradient: x's two paths add (max + 1); a weight's path carries the other operand's.
  const std::map<std::string, double> expected_root{
      {"x", root(p2, Direction::kBackwardData) + root(p1, Direction::kBackwardData) + 1},
      {"w1", root(p2, Direction::kBackwardData) + root(p1, Direction::kBackwardWeight)},
      {"w2", root(p1, Direction::kForward) + root(p2, Direction::kBackwardWeight)}};
  for (uint64_t seed = 1; seed <= 5; ++seed) {
    Prng rng(seed);
    GraphInputs vars;
    for (const char* name : {"x", "w1", "w2"})
      vars[name] = RealTensor(VarNamed(c.g, name).shape, rng);
    const HostTensor dy = RealTensor(c.g.node(c.g.outputs[0]).shape, rng);
    for (const char* name : {"x", "w1", "w2"}) {
      Result<AdjointSides> s = Adjoint(c.g, vars, name, dy, RealTensor(vars[name].shape, rng));
      ASSERT_TRUE(s.ok()) << name << ": " << s.status().message();
      EXPECT_GT(s->scale, 1.0) << name;
      EXPECT_NEAR(s->gradient_side, s->forward_side, 1e-12 * s->scale) << name << " seed " << seed;
      EXPECT_DOUBLE_EQ(s->root_reduction_sum, expected_root.at(name)) << name;
    }
  }
}

// ---- every other op: the interpreter's forward, the adjoint of the reverse ---------------------

struct OpCase {
  std::string name;
  Graph graph;          // vars %a (and %b), one output
  bool reverse = true;  // false: the oracle has no reverse rule (conv_backward_weight)
  double root = -1;     // the forward's root_reduction_sum, when ≥ 0
};

Graph Unary(const Shape& shape, OpKind op, OpAttrs attrs) {
  Graph g;
  g.outputs = {g.AddOp(op, {g.AddVar("a", shape)}, std::move(attrs))};
  return g;
}

Graph Binary(const Shape& a, const Shape& b, OpKind op, OpAttrs attrs = {}) {
  Graph g;
  const int x = g.AddVar("a", a), y = g.AddVar("b", b);
  g.outputs = {g.AddOp(op, {x, y}, std::move(attrs))};
  return g;
}

// Operands used twice: their gradients add up.
Graph ConcatenateWithRepeat() {
  Graph g;
  const int a = g.AddVar("a", {2, 3, 4}), b = g.AddVar("b", {2, 1, 4});
  g.outputs = {g.AddOp(OpKind::kConcatenate, {a, b, a}, AxisAttrs{1})};
  return g;
}
Graph AddToItself() {
  Graph g;
  const int a = g.AddVar("a", {2, 3});
  g.outputs = {g.AddOp(OpKind::kAdd, {a, a})};
  return g;
}

// sum(strided_slice(pad(tile(a))) + b) of shape (1, 1): the add rounds once, the sum 3 · 7 terms.
Graph Composite() {
  Graph g;
  const int a = g.AddVar("a", {2, 3}), b = g.AddVar("b", {3, 1});
  const int t = g.AddOp(OpKind::kTile, {a}, TileAttrs{{2, 2}});
  const int p = g.AddOp(OpKind::kPad, {t}, PadAttrs{{1, 0}, {0, 2}});
  const int s = g.AddOp(OpKind::kStridedSlice, {p}, StridedSliceAttrs{{0, 1}, {5, 8}, {2, 1}});
  const int sum = g.AddOp(OpKind::kAdd, {s, b});
  g.outputs = {g.AddOp(OpKind::kSum, {sum}, SumAttrs{{0, 1}, true})};
  return g;
}

std::vector<OpCase> OpCases() {
  ConvAttrs bw;
  bw.groups = 2, bw.kernel = {3, 3, 1}, bw.stride = {2, 2, 1};
  ConvAttrs bw_nhwc;  // x larger by one row than grad_y needs; dilated; HWIO result
  bw_nhwc.groups = 2, bw_nhwc.kernel = {3, 2, 1}, bw_nhwc.stride = {2, 2, 1};
  bw_nhwc.dilation = {1, 2, 1}, bw_nhwc.pad_begin = {0, 1, 0};
  bw_nhwc.data_layout = DataLayout::kChannelsLast, bw_nhwc.weight_layout = WeightLayout::kSpatialIO;
  const OpKind cbw = OpKind::kConvBackwardWeight;
  // clang-format off
  return {
    {"layout_transform", Unary({2, 3, 4, 5}, OpKind::kLayoutTransform,
                               PermuteAttrs{{0, 2, 3, 1}, "NCHW", "NHWC"}), true, 0},
    {"transpose", Unary({3, 4, 5}, OpKind::kTranspose, PermuteAttrs{{2, 0, 1}}), true, 0},
    {"reshape", Unary({3, 4, 5}, OpKind::kReshape, ReshapeAttrs{{6, 10}}), true, 0},
    {"expand_dims", Unary({3, 4}, OpKind::kExpandDims, AxisAttrs{2}), true, 0},
    {"squeeze", Unary({3, 1, 4}, OpKind::kSqueeze, SqueezeAttrs{{1}}), true, 0},
    {"squeeze_all", Unary({1, 3, 1}, OpKind::kSqueeze, SqueezeAttrs{}), true, 0},
    {"tile", Unary({2, 3, 2}, OpKind::kTile, TileAttrs{{2, 1, 3}}), true, 0},
    {"sum", Unary({2, 3, 4}, OpKind::kSum, SumAttrs{{0, 2}, false}), true, std::sqrt(8.0)},
    {"sum_keep_dims", Unary({2, 3, 4}, OpKind::kSum, SumAttrs{{1}, true}), true, std::sqrt(3.0)},
    {"sum_no_axes", Unary({2, 3}, OpKind::kSum, SumAttrs{{}, false}), true, 0},
    {"sum_to_scalar", Unary({2, 3}, OpKind::kSum, SumAttrs{{0, 1}, false}), true, std::sqrt(6.0)},
    {"strided_slice", Unary({4, 4, 6}, OpKind::kStridedSlice,
                            StridedSliceAttrs{{1, 0, 2}, {4, 4, 6}, {2, 3, 2}}), true, 0},
    {"strided_slice_empty", Unary({2, 3}, OpKind::kStridedSlice,
                                  StridedSliceAttrs{{1, 0}, {1, 3}, {1, 1}}), true, 0},
    {"pad", Unary({2, 3, 2}, OpKind::kPad, PadAttrs{{1, 0, 2}, {0, 2, 1}}), true, 0},
    {"concatenate", ConcatenateWithRepeat(), true, 0},
    {"add", Binary({2, 3}, {2, 3}, OpKind::kAdd), true, 1},
    {"add_broadcast", Binary({2, 3, 4}, {3, 1}, OpKind::kAdd), true, 1},
    {"add_broadcast_both", Binary({1, 3, 1}, {2, 1, 4}, OpKind::kAdd), true, 1},
    {"add_to_itself", AddToItself(), true, 1},
    {"composite", Composite(), true, 1 + std::sqrt(21.0)},
    {"conv_backward_weight", Binary({2, 4, 7, 7}, {2, 6, 3, 3}, cbw, bw), false,
     std::sqrt(2.0 * 3 * 3)},
    {"conv_backward_weight_nhwc_hwio", Binary({1, 8, 6, 2}, {1, 3, 3, 4}, cbw, bw_nhwc), false,
     std::sqrt(1.0 * 3 * 3)},
  };
  // clang-format on
}

void PrintTo(const OpCase& c, std::ostream* os) { *os << c.name; }

class GraphOracleOp : public ::testing::TestWithParam<OpCase> {
 protected:
  void SetUp() override {
    graph_ = GetParam().graph;
    const Status st = InferShapes(graph_);
    ASSERT_TRUE(st.ok()) << st.message();
  }
  GraphInputs IntInputs(Prng& rng) const {
    GraphInputs vars;
    for (const Node& n : graph_.nodes)
      if (n.op == OpKind::kVar) vars[n.name] = IntTensor(n.shape, rng, 4);
    return vars;
  }
  Graph graph_;
};

TEST_P(GraphOracleOp, ForwardEqualsOurInterpreterOnIntegers) {
  for (uint64_t seed = 1; seed <= 3; ++seed) {
    Prng rng(seed);
    const GraphInputs vars = IntInputs(rng);
    Result<std::vector<HostTensor>> want = Interpret(graph_, vars);
    ASSERT_TRUE(want.ok()) << want.status().message();
    Result<GraphOracleOutput> got = ComputeGraph(graph_, vars, "", {}, true);
    ASSERT_TRUE(got.ok()) << Described(got.status());
    const HostTensor& y = want.value()[0];
    EXPECT_EQ(got->result.shape, y.shape);
    EXPECT_EQ(got->result.values, std::vector<double>(y.values.begin(), y.values.end()));
    ASSERT_EQ(got->magnitude.values.size(), y.values.size());
    for (size_t i = 0; i < y.values.size(); ++i)
      EXPECT_GE(got->magnitude.values[i], std::fabs(got->result.values[i])) << i;
    if (GetParam().root >= 0) {
      EXPECT_DOUBLE_EQ(got->root_reduction_sum, GetParam().root);
    }
  }
}

TEST_P(GraphOracleOp, ReverseIsTheAdjointOfForwardExactlyOnIntegers) {
  const std::string op = OpName(graph_.node(graph_.outputs[0]).op);
  for (uint64_t seed = 1; seed <= 3; ++seed) {
    Prng rng(seed);
    const GraphInputs vars = IntInputs(rng);
    const HostTensor dy = IntTensor(graph_.node(graph_.outputs[0]).shape, rng, 4);
    for (const auto& [name, value] : vars) {
      Result<AdjointSides> s = Adjoint(graph_, vars, name, dy, IntTensor(value.shape, rng, 4));
      if (!GetParam().reverse) {
        EXPECT_EQ(s.status().code(), StatusCode::kUnsupported) << Described(s.status());
        EXPECT_NE(s.status().message().find(op), std::string::npos) << s.status().message();
        continue;
      }
      ASSERT_TRUE(s.ok()) << name << ": " << Described(s.status());
      // Integers all along: both sides are exact.
      EXPECT_EQ(s->gradient_side, s->forward_side) << name << " seed " << seed;
    }
  }
}

INSTANTIATE_TEST_SUITE_P(GraphOracle, GraphOracleOp, ::testing::ValuesIn(OpCases()),
                         [](const ::testing::TestParamInfo<OpCase>& info) {
                           return info.param.name;
                         });

TEST(GraphOracle, TiledAndBroadcastGradientsCountTheirSums) {
  Graph g = Binary({2, 3, 4}, {3, 1}, OpKind::kAdd);
  ASSERT_TRUE(InferShapes(g).ok());
  Prng rng(3);
  GraphInputs vars{{"a", IntTensor({2, 3, 4}, rng, 2)}, {"b", IntTensor({3, 1}, rng, 2)}};
  const HostTensor dy = IntTensor({2, 3, 4}, rng, 2);
  Result<GraphOracleOutput> db = ComputeGraph(g, vars, "b", dy, false);
  ASSERT_TRUE(db.ok()) << db.status().message();
  EXPECT_DOUBLE_EQ(db->root_reduction_sum, std::sqrt(8.0));  // summed over 2 · 4 positions
  Result<GraphOracleOutput> da = ComputeGraph(g, vars, "a", dy, false);
  ASSERT_TRUE(da.ok());
  EXPECT_EQ(da->root_reduction_sum, 0);
  Graph t = Unary({2, 3}, OpKind::kTile, TileAttrs{{3, 2}});
  ASSERT_TRUE(InferShapes(t).ok());
  Result<GraphOracleOutput> dt =
      ComputeGraph(t, {{"a", IntTensor({2, 3}, rng, 2)}}, "a", IntTensor({6, 6}, rng, 2), false);
  ASSERT_TRUE(dt.ok());
  EXPECT_DOUBLE_EQ(dt->root_reduction_sum, std::sqrt(6.0));
}

// ---- errors -----------------------------------------------------------------------------------

class GraphOracleErrors : public ::testing::Test {
 protected:
  void SetUp() override {
    ConvProblem p;
    p.in_channels = 2, p.out_channels = 3, p.input = {4, 4, 1}, p.kernel = {3, 3, 1}, p.bias = true;
    problem_ = p;
    graph_ = ForwardGraph(p);
    ASSERT_TRUE(InferShapes(graph_).ok());
    Prng rng(5);
    vars_ = {{"x", IntTensor(p.input_shape(), rng, 2)},
             {"w", IntTensor(p.weight_shape(), rng, 2)},
             {"b", IntTensor(p.bias_shape(), rng, 2)}};
    dy_ = IntTensor(p.output_shape(), rng, 2);
  }
  Status Run(const GraphInputs& vars, const std::string& wrt, const HostTensor& dy) const {
    Result<GraphOracleOutput> r = Status::Internal("not run");
    EXPECT_NO_THROW(r = ComputeGraph(graph_, vars, wrt, dy, true));
    return r.status();
  }
  ConvProblem problem_;
  Graph graph_;
  GraphInputs vars_;
  HostTensor dy_;
};

TEST_F(GraphOracleErrors, UnboundOrMisshapenVarIsInvalid) {
  GraphInputs vars = vars_;
  vars.erase("b");
  Status st = Run(vars, "", {});
  EXPECT_EQ(st.code(), StatusCode::kInvalid);
  EXPECT_NE(st.message().find("var %b is not bound"), std::string::npos) << st.message();
  vars = vars_;
  vars["w"].shape = {3, 2, 9};  // the right number of values in the wrong shape
  st = Run(vars, "x", dy_);
  EXPECT_EQ(st.code(), StatusCode::kInvalid);
  EXPECT_NE(st.message().find("var %w expects shape [3, 2, 3, 3]"), std::string::npos)
      << st.message();
  vars = vars_;
  vars["x"].values.pop_back();
  EXPECT_EQ(Run(vars, "", {}).code(), StatusCode::kInvalid);
}

TEST_F(GraphOracleErrors, WrtThatIsNoVarIsInvalid) {
  const Status st = Run(vars_, "y", dy_);
  EXPECT_EQ(st.code(), StatusCode::kInvalid);
  EXPECT_NE(st.message().find("wrt 'y' is not a var of the graph (its vars: %x, %w, %b)"),
            std::string::npos)
      << st.message();
}

TEST_F(GraphOracleErrors, GradOutputOfWrongShapeIsInvalid) {
  HostTensor dy = dy_;
  dy.shape = {1, 3, 4};
  Status st = Run(vars_, "w", dy);
  EXPECT_EQ(st.code(), StatusCode::kInvalid);
  EXPECT_NE(st.message().find("grad_output expects shape [1, 3, 2, 2]"), std::string::npos)
      << st.message();
  EXPECT_EQ(Run(vars_, "x", HostTensor{}).code(), StatusCode::kInvalid);
  EXPECT_TRUE(Run(vars_, "", HostTensor{}).ok());  // ignored for the forward
}

TEST_F(GraphOracleErrors, GraphWithoutOneOutputOrWithStaleShapesIsInvalid) {
  graph_.outputs.push_back(0);
  EXPECT_EQ(Run(vars_, "", {}).code(), StatusCode::kInvalid);
  graph_.outputs = {};
  EXPECT_EQ(Run(vars_, "", {}).code(), StatusCode::kInvalid);
  graph_.outputs = {static_cast<int>(graph_.nodes.size())};
  EXPECT_EQ(Run(vars_, "", {}).code(), StatusCode::kInvalid);
  graph_.outputs = {static_cast<int>(graph_.nodes.size()) - 1};
  graph_.nodes.back().shape = {1, 3, 2, 3};
  const Status st = Run(vars_, "", {});
  EXPECT_EQ(st.code(), StatusCode::kInvalid);
  EXPECT_NE(st.message().find("run InferShapes"), std::string::npos) << st.message();
}

TEST_F(GraphOracleErrors, MagnitudeIsOnlyFilledWhenAskedFor) {
  Result<GraphOracleOutput> r = ComputeGraph(graph_, vars_, "", {}, false);
  ASSERT_TRUE(r.ok());
  EXPECT_TRUE(r->magnitude.values.empty());
  EXPECT_EQ(r->result.values.size(), 12u);
}

TEST(GraphOracle, WrtVarTheOutputDoesNotReadHasZeroGradient) {
  Graph g;
  const int a = g.AddVar("a", {2, 3});
  g.AddVar("unused", {4});
  g.outputs = {g.AddOp(OpKind::kSum, {a}, SumAttrs{{1}, false})};
  ASSERT_TRUE(InferShapes(g).ok());
  Prng rng(1);
  Result<GraphOracleOutput> r =
      ComputeGraph(g, {{"a", IntTensor({2, 3}, rng, 2)}}, "unused", IntTensor({2}, rng, 2), true);
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(r->result.shape, Shape{4});
  EXPECT_EQ(r->result.values, std::vector<double>(4, 0.0));
  EXPECT_EQ(r->magnitude.values, std::vector<double>(4, 0.0));
}

}  // namespace
}  // namespace convparity
