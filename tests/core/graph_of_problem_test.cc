// The graph of a problem (its conv, its residual chain, its weight gradient, its multiplier form)
// is a legal graph of the problem's shapes, and the interpreter runs it on the direct kernel with
// the buffers it describes, bitwise.
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include "core/graph.h"
#include "generators/fill.h"
#include "generators/problem_gen.h"
#include "kernels/direct_conv.h"
#include "kernels/graph/interpreter.h"
#include "tests/core/graph_test_support.h"

namespace convparity {
namespace {

using graph_test::BitwiseEqual;
using graph_test::InferError;
using graph_test::OneOp;
using graph_test::T;

// ---- the graph of a problem runs our kernel on the same buffers ----

struct Buffers {
  Shape x_shape, w_shape;
  std::vector<float> x, w, b;
};

Buffers MemoryBuffers(const ConvProblem& p, uint64_t seed) {
  CaseInputs in = FillInputs(p, Direction::kForward, Fill::kUniform, seed);
  return {MemoryShape(p.input_shape(), DataMemoryOrder(p)),
          MemoryShape(p.weight_shape(), WeightMemoryOrder(p)),
          ToMemoryOrder(in.Get(kInputVar), DataMemoryOrder(p)),
          ToMemoryOrder(in.Get(kWeightVar), WeightMemoryOrder(p)), in.Get(kBiasVar).values};
}

std::vector<float> DirectForward(const ConvProblem& p, const Buffers& b) {
  std::vector<float> y(static_cast<size_t>(NumElements(p.output_shape())));
  ConvBuffers cb{b.x.data(), b.w.data(), p.bias ? b.b.data() : nullptr, nullptr, y.data()};
  DirectConv conv;
  Status st = conv.Run(p, Direction::kForward, cb);
  RC_ASSERT(st.ok());
  return y;
}

Result<std::vector<HostTensor>> InterpretForward(const ConvProblem& p, const Buffers& b,
                                                 bool multiplier) {
  Graph g = ForwardGraph(p, multiplier);
  Status st = InferShapes(g);
  if (!st.ok()) return st;
  GraphBindings vars{{"x", T(b.x_shape, b.x)}, {"w", T(g.node(1).shape, b.w)}};
  if (p.bias) vars["b"] = T(p.bias_shape(), b.b);
  return Interpret(g, vars);
}

// Plumbing: the interpreter runs a conv node on the direct kernel's own loops, so this checks that
// the graph hands the kernel the problem, layouts and buffers it describes, not the loops (which
// DirectParity.* and TransformSut.* check against the oracle).
RC_GTEST_PROP(GraphForward, InterpreterRunsTheForwardGraphOnTheDirectKernelBitwise, ()) {
  const ConvProblem p = *GenProblem();
  const uint64_t seed = *rc::gen::arbitrary<uint64_t>();
  Buffers b = MemoryBuffers(p, seed);
  Result<std::vector<HostTensor>> out = InterpretForward(p, b, false);
  RC_ASSERT(out.ok());
  RC_ASSERT(out.value()[0].shape == MemoryShape(p.output_shape(), DataMemoryOrder(p)));
  RC_ASSERT(BitwiseEqual(out.value()[0].values, DirectForward(p, b)));
}

RC_GTEST_PROP(GraphForward, ConvProblemOfTheForwardGraphIsTheProblem, ()) {
  const ConvProblem p = *GenProblem();
  Graph g = ForwardGraph(p);
  RC_ASSERT(InferShapes(g).ok());
  Result<ConvProblem> q = ConvProblemOf(g, g.outputs[0]);
  RC_ASSERT(q.ok());
  RC_ASSERT(*q == p);
}

// The residual block of any problem: a legal second convolution keeping the first one's result
// shape, whose node names ResidualConv(p).
RC_GTEST_PROP(GraphChain, TheResidualBlockOfAnyProblemIsALegalGraphOfItsShape, ()) {
  const ConvProblem p = *GenProblem();
  const ConvProblem q = ResidualConv(p);
  RC_ASSERT(Validate(q).ok());
  RC_ASSERT(q.output_shape() == p.output_shape());
  Graph g = ChainGraph(p);
  RC_ASSERT(InferShapes(g).ok());
  RC_ASSERT(g.node(g.outputs[0]).op == OpKind::kAdd);
  RC_ASSERT(g.node(g.outputs[0]).shape == MemoryShape(p.output_shape(), DataMemoryOrder(p)));
  RC_ASSERT(g.CountOps(OpKind::kConv) + g.CountOps(OpKind::kConvTranspose) == 2);
  const int second = g.node(g.outputs[0]).inputs[1];
  RC_ASSERT(ConvProblemOf(g, second).value() == q);
  RC_ASSERT(FormConvs(ChainForm(), p).value() == (std::vector<ConvProblem>{p, q}));
  RC_ASSERT(FormMacs(ChainForm(), p) == p.macs() + q.macs());
  RC_ASSERT(FormMacs(ConvForm(), p) == p.macs());
}

TEST(GraphChain, TheResidualConvolutionPadsToTheSameSizeAsymmetricallyWhenItMust) {
  ConvProblem p;
  p.rank = 2;
  p.in_channels = 2;
  p.out_channels = 4;
  p.groups = 2;
  p.input = {7, 6, 1};
  p.kernel = {3, 2, 1};
  p.dilation = {2, 3, 1};
  p.stride = {2, 1, 1};
  p.weight_layout = WeightLayout::kSpatialIO;
  const ConvProblem q = ResidualConv(p);
  EXPECT_EQ(q.in_channels, 4);
  EXPECT_EQ(q.out_channels, 4);
  EXPECT_EQ(q.groups, 2);
  EXPECT_EQ(q.input, p.output());
  EXPECT_EQ(q.pad_begin, (Dims{2, 1, 0}));
  EXPECT_EQ(q.pad_end, (Dims{2, 2, 0}));  // d·(k − 1) = 3 on the second axis
  EXPECT_EQ(q.stride, (Dims{1, 1, 1}));
  EXPECT_EQ(q.weight_layout, WeightLayout::kSpatialIO);
}

// A depthwise ordinary problem (multiplier m ≥ 1) with an OI… or …IO weight, from a generated one.
ConvProblem Depthwise(ConvProblem p, int64_t m, bool spatial_io) {
  p.transposed = false;
  p.in_channels = std::max<int64_t>(p.in_channels, 2);
  p.output_padding = {0, 0, 0};
  p.groups = p.in_channels;
  p.out_channels = p.in_channels * m;
  p.weight_layout = spatial_io ? WeightLayout::kSpatialIO : WeightLayout::kOI;
  return p;
}

RC_GTEST_PROP(GraphForward, MultiplierWeightRepresentationGivesTheGroupsRepresentationsResult, ()) {
  ProblemSpace space;
  space.transposed = false;
  space.max_macs = 50000;
  const ConvProblem p =
      Depthwise(*GenProblem(space), *rc::gen::inRange<int64_t>(1, 4), *rc::gen::arbitrary<bool>());
  RC_PRE(Validate(p).ok());
  RC_ASSERT(HasMultiplierRepresentation(p));
  Buffers b = MemoryBuffers(p, 7);
  Result<std::vector<HostTensor>> groups = InterpretForward(p, b, false);
  Result<std::vector<HostTensor>> multiplier = InterpretForward(p, b, true);
  RC_ASSERT(groups.ok());
  RC_ASSERT(multiplier.ok());
  RC_ASSERT(BitwiseEqual(groups.value()[0].values, multiplier.value()[0].values));
  // And the multiplier graph names the same problem.
  Graph g = ForwardGraph(p, true);
  RC_ASSERT(std::get<ConvAttrs>(g.node(g.outputs[0]).attrs).multiplier_weight);
  RC_ASSERT(InferShapes(g).ok());
  RC_ASSERT(ConvProblemOf(g, g.outputs[0]).value() == p);
}

// conv_backward_weight of a problem's relation: ordinary problems in their own layouts, transposed
// ones with the weight layout named in the ordinary relation (IO… ↔ OI…, graph.h's NOTE).
// Plumbing, like the forward one above: the same loops on both sides; TransformSut.*BackwardWeight
// checks them against the oracle.
RC_GTEST_PROP(GraphBackwardWeight, InterpreterRunsConvBackwardWeightOnTheDirectKernelBitwise, ()) {
  ConvProblem p = *GenProblem();
  if (p.transposed && p.weight_layout != WeightLayout::kOI) p.weight_layout = WeightLayout::kIO;
  CaseInputs in = FillInputs(p, Direction::kBackwardWeight, Fill::kUniform, 11);
  const std::vector<int> data_order = DataMemoryOrder(p);
  std::vector<float> x = ToMemoryOrder(in.Get(kInputVar), data_order);
  std::vector<float> dy = ToMemoryOrder(in.Get(kGradOutputVar), data_order);
  std::vector<float> dw(static_cast<size_t>(NumElements(p.weight_shape())));
  ConvBuffers cb{x.data(), nullptr, nullptr, dy.data(), dw.data()};
  DirectConv conv;
  RC_ASSERT(conv.Run(p, Direction::kBackwardWeight, cb).ok());

  Graph g;
  const Shape xs = MemoryShape(p.input_shape(), data_order);
  const Shape ys = MemoryShape(p.output_shape(), data_order);
  // The large side first: the ordinary input, or the transposed output (its grad_output).
  const int large = g.AddVar("large", p.transposed ? ys : xs);
  const int small = g.AddVar("small", p.transposed ? xs : ys);
  ConvAttrs a = ConvAttrsOf(p);
  a.output_padding = {0, 0, 0};
  a.weight_layout = !p.transposed                          ? p.weight_layout
                    : p.weight_layout == WeightLayout::kIO ? WeightLayout::kOI
                                                           : WeightLayout::kIO;
  g.outputs = {g.AddOp(OpKind::kConvBackwardWeight, {large, small}, a)};
  Status st = InferShapes(g);
  RC_ASSERT(st.ok());
  RC_ASSERT(g.node(2).shape == MemoryShape(p.weight_shape(), WeightMemoryOrder(p)));
  GraphBindings vars{{"large", T(p.transposed ? ys : xs, p.transposed ? dy : x)},
                     {"small", T(p.transposed ? xs : ys, p.transposed ? x : dy)}};
  Result<std::vector<HostTensor>> out = Interpret(g, vars);
  RC_ASSERT(out.ok());
  RC_ASSERT(BitwiseEqual(out.value()[0].values, dw));
  // The ordinary problem whose weight gradient it is: an ordinary p itself (without bias).
  Result<ConvProblem> q = ConvProblemOf(g, 2);
  if (!p.transposed) {
    ConvProblem plain = p;
    plain.bias = false;
    RC_ASSERT(q.ok());
    RC_ASSERT(*q == plain);
  } else if (q.ok()) {
    RC_ASSERT(q->output() == p.input);
    RC_ASSERT(q->in_channels == p.out_channels);
  }
}

// A transposed conv whose output_padding reaches past its stride (allowed below the dilation) has a
// weight gradient no ordinary problem has: x is larger than any ordinary conv with output grad_y
// reads. The node is still well-formed and runs; only ConvProblemOf declines it.
TEST(GraphBackwardWeight, OutputPaddingBeyondTheStrideRunsButHasNoOrdinaryProblem) {
  ConvProblem p;
  p.transposed = true;
  p.rank = 1;
  p.input = {3, 1, 1};
  p.kernel = {2, 1, 1};
  p.dilation = {3, 1, 1};
  p.output_padding = {2, 0, 0};  // < dilation 3, ≥ stride 1
  p.weight_layout = WeightLayout::kIO;
  ASSERT_TRUE(Validate(p).ok()) << Validate(p).message();
  ConvAttrs a;
  a.rank = 1;
  a.kernel = p.kernel;
  a.dilation = p.dilation;
  a.weight_layout = WeightLayout::kOI;  // the transposed IO… weight, named in the ordinary relation
  Graph g = OneOp(OpKind::kConvBackwardWeight, {p.output_shape(), p.input_shape()}, a);
  ASSERT_TRUE(InferShapes(g).ok()) << InferError(g);
  EXPECT_EQ(ConvProblemOf(g, 2).status().code(), StatusCode::kUnsupported);
  CaseInputs in = FillInputs(p, Direction::kBackwardWeight, Fill::kExact, 5);
  std::vector<float> dw(static_cast<size_t>(NumElements(p.weight_shape())));
  ConvBuffers cb{in.Get(kInputVar).values.data(), nullptr, nullptr,
                 in.Get(kGradOutputVar).values.data(), dw.data()};
  DirectConv conv;
  ASSERT_TRUE(conv.Run(p, Direction::kBackwardWeight, cb).ok());
  Result<std::vector<HostTensor>> out =
      Interpret(g, {{"a", in.Get(kGradOutputVar)}, {"b", in.Get(kInputVar)}});
  ASSERT_TRUE(out.ok()) << out.status().message();
  EXPECT_EQ(out.value()[0].values, dw);
}

}  // namespace
}  // namespace convparity
