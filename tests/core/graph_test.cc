// The graph IR (core/graph.h): shape inference, each op's semantics, the interpreter's robustness
// (kernels/graph/interpreter.h), the graph utilities and the printer.
#include "core/graph.h"

#include <gtest/gtest.h>

#include "core/graph_printer.h"
#include "kernels/graph/interpreter.h"
#include "tests/core/graph_test_support.h"

namespace convparity {
namespace {

using graph_test::Conv2d;
using graph_test::InferError;
using graph_test::OneOp;
using graph_test::RunOneOp;
using graph_test::T;

// ---- shape inference: errors name node, operand, expected and found ----

TEST(GraphInferShapes, WrongChannelsPerGroupNamesNodeExpectedAndFound) {
  std::string e = InferError(OneOp(OpKind::kConv, {{1, 8, 5, 5}, {4, 3, 3, 3}}, Conv2d(2)));
  EXPECT_NE(e.find("%2 = conv"), std::string::npos) << e;
  EXPECT_NE(e.find("3 input channels per group"), std::string::npos) << e;
  EXPECT_NE(e.find("8 channels / 2 groups = 4"), std::string::npos) << e;
}

TEST(GraphInferShapes, DataRankMismatchIsInvalid) {
  Graph g = OneOp(OpKind::kConv, {{1, 4, 5}, {4, 4, 3, 3}}, Conv2d());
  Status st = InferShapes(g);
  EXPECT_EQ(st.code(), StatusCode::kInvalid);
  EXPECT_NE(st.message().find("has rank 3, expected 4"), std::string::npos) << st.message();
}

TEST(GraphInferShapes, RejectsBadOperandsAndAttributes) {
  auto rejects = [](Graph g, const char* needle) {
    std::string e = InferError(std::move(g));
    EXPECT_NE(e.find(needle), std::string::npos)
        << "message: '" << e << "', expected '" << needle << "'";
  };
  rejects(OneOp(OpKind::kTranspose, {{2, 3, 4}}, PermuteAttrs{{0, 0, 1}, "", ""}),
          "repeats axis 0");
  rejects(OneOp(OpKind::kTranspose, {{2, 3, 4}}, PermuteAttrs{{0, 1}, "", ""}), "has rank 3");
  rejects(OneOp(OpKind::kStridedSlice, {{4, 5}}, StridedSliceAttrs{{0, 0}, {4, 6}, {1, 1}}),
          "end ≤ 5");
  rejects(OneOp(OpKind::kStridedSlice, {{4, 5}}, StridedSliceAttrs{{0, 0}, {4, 5}, {1, 0}}),
          "stride 0");
  rejects(OneOp(OpKind::kReshape, {{4, 5}}, ReshapeAttrs{{3, 7}}), "element counts differ");
  rejects(OneOp(OpKind::kSqueeze, {{4, 1}}, SqueezeAttrs{{0}}), "has size 4, expected 1");
  rejects(OneOp(OpKind::kSum, {{4, 1}}, SumAttrs{{2}, false}), "has axis 2");
  rejects(OneOp(OpKind::kConcatenate, {{2, 3}, {2, 4}}, AxisAttrs{0}), "does not match operand 0");
  rejects(OneOp(OpKind::kAdd, {{2, 3}, {2, 4}}), "do not broadcast");
  rejects(OneOp(OpKind::kAdd, {{2, 3}}), "expected 2 operands, found 1");
  rejects(OneOp(OpKind::kTile, {{2, 3}}, TileAttrs{{2}}), "has rank 2");
  rejects(OneOp(OpKind::kPad, {{2, 3}}, PadAttrs{{0, -1}, {0, 0}}), "non-negative");
  rejects(OneOp(OpKind::kExpandDims, {{2, 3}}, AxisAttrs{3}), "expected in [0, 2]");
  rejects(OneOp(OpKind::kTranspose, {{2, 3}}, ReshapeAttrs{{3, 2}}), "expected permutation");
  rejects(OneOp(OpKind::kConv, {{1, 4, 5, 5}, {8, 4, 3, 3}, {4}}, Conv2d()),
          "bias [4] expected shape [8]");
  rejects(OneOp(OpKind::kConv, {{1, 4, 2, 2}, {8, 4, 3, 3}}, Conv2d()),
          "Kernel size can't be greater");
  ConvAttrs t = Conv2d();
  t.output_padding = {1, 0, 0};
  rejects(OneOp(OpKind::kConv, {{1, 4, 5, 5}, {8, 4, 3, 3}}, t), "only for conv_transpose");
  // conv_transpose: the weight's first axis is the data's channels.
  ConvAttrs io = Conv2d();
  io.weight_layout = WeightLayout::kIO;
  rejects(OneOp(OpKind::kConvTranspose, {{1, 4, 5, 5}, {8, 4, 3, 3}}, io),
          "8 input channels, data has 4");
  // conv_backward_weight: grad_y must fit x through the kernel, stride, padding and dilation.
  ConvAttrs w = Conv2d();
  w.kernel = {3, 3, 1};
  rejects(OneOp(OpKind::kConvBackwardWeight, {{1, 4, 9, 9}, {1, 2, 6, 7}}, w),
          "expected grad_y spatial size [7, 7]");
  rejects(OneOp(OpKind::kConvBackwardWeight, {{1, 4, 9, 9}, {2, 2, 7, 7}}, w),
          "x has batch 1, grad_y has 2");
  // Operands are earlier nodes.
  Graph forward;
  forward.AddVar("a", {2});
  forward.AddOp(OpKind::kAdd, {0, 2});
  forward.AddOp(OpKind::kAdd, {0, 0});
  rejects(forward, "operand 1 is %2, expected an earlier node");
}

TEST(GraphInferShapes, OversizedTensorsAreOverTheLimitNotAllocated) {
  Graph g = OneOp(OpKind::kTile, {{1024, 1024}}, TileAttrs{{1024, 1024}});
  EXPECT_EQ(InferShapes(g).code(), StatusCode::kLimit);
  Graph big = OneOp(OpKind::kAdd, {{int64_t{1} << 40}, {1}});
  EXPECT_EQ(InferShapes(big).code(), StatusCode::kLimit);
}

TEST(GraphInferShapes, ConvOutputShapeFollowsTheDataLayout) {
  ConvAttrs a = Conv2d(2);
  a.stride = {2, 2, 1};
  a.pad_begin = {1, 1, 0};
  a.pad_end = {1, 0, 0};
  a.data_layout = DataLayout::kChannelsLast;
  a.weight_layout = WeightLayout::kSpatialIO;
  Graph g = OneOp(OpKind::kConv, {{1, 9, 9, 4}, {3, 3, 2, 6}}, a);
  ASSERT_TRUE(InferShapes(g).ok()) << InferError(g);
  EXPECT_EQ(g.node(2).shape, (Shape{1, 5, 4, 6}));
}

// ---- each op's semantics on small hand-computed tensors ----

TEST(GraphOps, TransposeAndLayoutTransformPermuteAxes) {
  HostTensor x = T({2, 3}, {1, 2, 3, 4, 5, 6});
  EXPECT_EQ(RunOneOp(OpKind::kTranspose, {x}, PermuteAttrs{{1, 0}, "", ""}).values,
            (std::vector<float>{1, 4, 2, 5, 3, 6}));
  HostTensor nchw = T({1, 2, 1, 2}, {1, 2, 3, 4});  // c0: 1 2, c1: 3 4
  HostTensor nhwc =
      RunOneOp(OpKind::kLayoutTransform, {nchw}, PermuteAttrs{{0, 2, 3, 1}, "NCHW", "NHWC"});
  EXPECT_EQ(nhwc.shape, (Shape{1, 1, 2, 2}));
  EXPECT_EQ(nhwc.values, (std::vector<float>{1, 3, 2, 4}));
}

TEST(GraphOps, ReshapeExpandDimsSqueezeKeepValues) {
  HostTensor x = T({2, 3}, {1, 2, 3, 4, 5, 6});
  HostTensor r = RunOneOp(OpKind::kReshape, {x}, ReshapeAttrs{{3, 2}});
  EXPECT_EQ(r.shape, (Shape{3, 2}));
  EXPECT_EQ(r.values, x.values);
  EXPECT_EQ(RunOneOp(OpKind::kExpandDims, {x}, AxisAttrs{1}).shape, (Shape{2, 1, 3}));
  HostTensor u = T({1, 3, 1}, {7, 8, 9});
  EXPECT_EQ(RunOneOp(OpKind::kSqueeze, {u}, SqueezeAttrs{{2}}).shape, (Shape{1, 3}));
  EXPECT_EQ(RunOneOp(OpKind::kSqueeze, {u}, SqueezeAttrs{}).shape, (Shape{3}));
}

TEST(GraphOps, TileRepeatsEachAxis) {
  HostTensor x = T({2, 2}, {1, 2, 3, 4});
  HostTensor t = RunOneOp(OpKind::kTile, {x}, TileAttrs{{2, 3}});
  EXPECT_EQ(t.shape, (Shape{4, 6}));
  EXPECT_EQ(t.values, (std::vector<float>{1, 2, 1, 2, 1, 2, 3, 4, 3, 4, 3, 4,  //
                                          1, 2, 1, 2, 1, 2, 3, 4, 3, 4, 3, 4}));
}

TEST(GraphOps, SumReducesTheListedAxes) {
  HostTensor x = T({2, 3, 2}, {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12});
  HostTensor s = RunOneOp(OpKind::kSum, {x}, SumAttrs{{1}, false});
  EXPECT_EQ(s.shape, (Shape{2, 2}));
  EXPECT_EQ(s.values, (std::vector<float>{9, 12, 27, 30}));
  HostTensor k = RunOneOp(OpKind::kSum, {x}, SumAttrs{{0, 2}, true});
  EXPECT_EQ(k.shape, (Shape{1, 3, 1}));
  EXPECT_EQ(k.values, (std::vector<float>{1 + 2 + 7 + 8, 3 + 4 + 9 + 10, 5 + 6 + 11 + 12}));
}

TEST(GraphOps, StridedSliceTakesEveryStepthElementFromBeginToEnd) {
  HostTensor x = T({3, 5}, {0, 1, 2, 3, 4, 10, 11, 12, 13, 14, 20, 21, 22, 23, 24});
  HostTensor s = RunOneOp(OpKind::kStridedSlice, {x}, StridedSliceAttrs{{1, 0}, {3, 5}, {1, 2}});
  EXPECT_EQ(s.shape, (Shape{2, 3}));
  EXPECT_EQ(s.values, (std::vector<float>{10, 12, 14, 20, 22, 24}));
  EXPECT_EQ(RunOneOp(OpKind::kStridedSlice, {x}, StridedSliceAttrs{{0, 1}, {3, 4}, {2, 2}}).values,
            (std::vector<float>{1, 3, 21, 23}));
}

TEST(GraphOps, PadSurroundsWithZeros) {
  HostTensor x = T({1, 2}, {5, 6});
  HostTensor p = RunOneOp(OpKind::kPad, {x}, PadAttrs{{1, 0}, {0, 2}});
  EXPECT_EQ(p.shape, (Shape{2, 4}));
  EXPECT_EQ(p.values, (std::vector<float>{0, 0, 0, 0, 5, 6, 0, 0}));
}

TEST(GraphOps, ConcatenateJoinsAlongTheAxis) {
  HostTensor a = T({2, 1}, {1, 2}), b = T({2, 2}, {3, 4, 5, 6});
  HostTensor c = RunOneOp(OpKind::kConcatenate, {a, b}, AxisAttrs{1});
  EXPECT_EQ(c.shape, (Shape{2, 3}));
  EXPECT_EQ(c.values, (std::vector<float>{1, 3, 4, 2, 5, 6}));
}

TEST(GraphOps, AddBroadcastsLikeNumpy) {
  HostTensor a = T({2, 3}, {1, 2, 3, 4, 5, 6}), row = T({3}, {10, 20, 30});
  EXPECT_EQ(RunOneOp(OpKind::kAdd, {a, row}).values, (std::vector<float>{11, 22, 33, 14, 25, 36}));
  HostTensor col = T({2, 1}, {100, 200}), r2 = T({1, 3}, {1, 2, 3});
  HostTensor o = RunOneOp(OpKind::kAdd, {col, r2});
  EXPECT_EQ(o.shape, (Shape{2, 3}));
  EXPECT_EQ(o.values, (std::vector<float>{101, 102, 103, 201, 202, 203}));
}

TEST(GraphOps, ConvFamilyOnAOneDimensionalExample) {
  ConvAttrs a;
  a.rank = 1;
  // y[i] = x[i] + 2·x[i+1]
  HostTensor x = T({1, 1, 4}, {1, 2, 3, 4}), w = T({1, 1, 2}, {1, 2});
  EXPECT_EQ(RunOneOp(OpKind::kConv, {x, w}, a).values, (std::vector<float>{5, 8, 11}));
  // Transposed: scatters x[i]·w[k] to i + k.
  ConvAttrs t = a;
  t.weight_layout = WeightLayout::kIO;
  EXPECT_EQ(RunOneOp(OpKind::kConvTranspose, {T({1, 1, 2}, {1, 10}), w}, t).values,
            (std::vector<float>{1, 12, 20}));
  // dw[k] = Σ_i x[i + k]·dy[i]
  a.kernel = {2, 1, 1};
  EXPECT_EQ(RunOneOp(OpKind::kConvBackwardWeight, {x, T({1, 1, 3}, {1, 0, 1})}, a).values,
            (std::vector<float>{1 + 3, 2 + 4}));
}

// ---- interpreter robustness ----

TEST(GraphInterpret, UnboundOrMisshapenVarsAndMalformedGraphsAreInvalid) {
  ConvProblem p;
  p.in_channels = 2;
  p.out_channels = 2;
  p.input = {3, 3, 1};
  Graph g = ForwardGraph(p);
  ASSERT_TRUE(InferShapes(g).ok());
  HostTensor x = T({1, 2, 3, 3}, std::vector<float>(18, 1.0f));
  EXPECT_EQ(Interpret(g, {{"x", x}}).status().code(), StatusCode::kInvalid);
  HostTensor w_wrong = T({2, 2, 1}, std::vector<float>(4, 1.0f));
  Status st = Interpret(g, {{"x", x}, {"w", w_wrong}}).status();
  EXPECT_EQ(st.code(), StatusCode::kInvalid);
  EXPECT_NE(st.message().find("var %w expects shape [2, 2, 1, 1]"), std::string::npos)
      << st.message();
  // Stale shapes (InferShapes not rerun after an edit) and dangling operands.
  Graph stale = g;
  std::get<ConvAttrs>(stale.node(2).attrs).pad_begin = {1, 1, 0};
  HostTensor w = T({2, 2, 1, 1}, {1, 0, 0, 1});
  EXPECT_EQ(Interpret(stale, {{"x", x}, {"w", w}}).status().code(), StatusCode::kInvalid);
  Graph dangling = g;
  dangling.node(2).inputs = {0, 7};
  EXPECT_EQ(Interpret(dangling, {{"x", x}, {"w", w}}).status().code(), StatusCode::kInvalid);
  Graph no_output = g;
  no_output.outputs = {9};
  EXPECT_EQ(Interpret(no_output, {{"x", x}, {"w", w}}).status().code(), StatusCode::kInvalid);
  Result<std::vector<HostTensor>> ok = Interpret(g, {{"x", x}, {"w", w}});
  ASSERT_TRUE(ok.ok()) << ok.status().message();
  EXPECT_EQ(ok.value()[0].values, x.values);  // the identity 1×1 kernel
}

TEST(GraphInterpret, EvaluateNodeComputesOneNodeFromGivenValues) {
  Graph g = OneOp(OpKind::kAdd, {{2}, {2}});
  ASSERT_TRUE(InferShapes(g).ok());
  HostTensor a = T({2}, {1, 2}), b = T({2}, {3, 4});
  Result<HostTensor> r = EvaluateNode(g, 2, {&a, &b});
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->values, (std::vector<float>{4, 6}));
  EXPECT_FALSE(EvaluateNode(g, 2, {&a}).ok());
  EXPECT_FALSE(EvaluateNode(g, 0, {}).ok());  // a var has no value of its own
}

// ---- graph utilities ----

TEST(GraphUtilities, RemoveDeadNodesKeepsWhatOutputsNeedAndRenumbers) {
  Graph g;
  const int a = g.AddVar("a", {2});
  const int dead = g.AddOp(OpKind::kAdd, {a, a});
  g.AddConst("c", T({2}, {1, 1}));
  const int y = g.AddOp(OpKind::kAdd, {a, 2});
  g.AddOp(OpKind::kAdd, {dead, y});
  g.outputs = {y};
  EXPECT_EQ(g.CountOps(OpKind::kAdd), 1);
  RemoveDeadNodes(g);
  ASSERT_EQ(g.nodes.size(), 3u);
  EXPECT_EQ(g.outputs, (std::vector<int>{2}));
  EXPECT_EQ(g.node(2).inputs, (std::vector<int>{0, 1}));
  EXPECT_EQ(g.node(1).op, OpKind::kConst);
  EXPECT_TRUE(InferShapes(g).ok());
}

TEST(GraphUtilities, LayoutTextsAreUpperCaseLayoutNames) {
  EXPECT_EQ(DataLayoutText(DataLayout::kChannelsLast, 2), "NHWC");
  EXPECT_EQ(DataLayoutText(DataLayout::kChannelsFirst, 1), "NCW");
  EXPECT_EQ(WeightLayoutText(WeightLayout::kSpatialIO, 3), "DHWIO");
  EXPECT_EQ(WeightLayoutText(WeightLayout::kIO, 2), "IOHW");
}

// ---- the printer ----

TEST(GraphPrinter, GoldenTextOfASmallGraph) {
  ConvProblem p;
  p.in_channels = 4;
  p.out_channels = 8;
  p.groups = 2;
  p.input = {9, 9, 1};
  p.kernel = {3, 3, 1};
  p.stride = {2, 2, 1};
  p.pad_begin = {1, 1, 0};
  p.pad_end = {1, 1, 0};
  Graph g = ForwardGraph(p);
  const int c = g.AddConst("shift", T({8, 1, 1}, std::vector<float>(8, 0.5f)));
  g.outputs = {g.AddOp(OpKind::kAdd, {g.outputs[0], c})};
  const int nhwc =
      g.AddOp(OpKind::kLayoutTransform, {g.outputs[0]}, PermuteAttrs{{0, 2, 3, 1}, "NCHW", "NHWC"});
  g.outputs.push_back(g.AddOp(OpKind::kSum, {nhwc}, SumAttrs{{1, 2}, true}));
  ASSERT_TRUE(InferShapes(g).ok());
  EXPECT_EQ(
      GraphText(g),
      "fn (%x: Tensor[(1, 4, 9, 9)], %w: Tensor[(8, 2, 3, 3)]) {\n"
      "  %2 = conv(%x, %w, groups=2, strides=[2, 2], padding=[1, 1, 1, 1], dilation=[1, 1], "
      "data_layout=\"NCHW\", kernel_layout=\"OIHW\") /* ty=Tensor[(1, 8, 5, 5)] */\n"
      "  %3 = meta[const][shift] /* ty=Tensor[(8, 1, 1)] */\n"
      "  %4 = add(%2, %3) /* ty=Tensor[(1, 8, 5, 5)] */\n"
      "  %5 = layout_transform(%4, src_layout=\"NCHW\", dst_layout=\"NHWC\", axes=[0, 2, 3, 1]) "
      "/* ty=Tensor[(1, 5, 5, 8)] */\n"
      "  %6 = sum(%5, axis=[1, 2], keepdims=True) /* ty=Tensor[(1, 1, 1, 8)] */\n"
      "  (%4, %6)\n"
      "}\n");
}

TEST(GraphPrinter, TransposedAndBackwardWeightPrintTheirOwnAttributes) {
  ConvProblem p;
  p.transposed = true;
  p.rank = 1;
  p.in_channels = 2;
  p.out_channels = 3;
  p.input = {4, 1, 1};
  p.kernel = {3, 1, 1};
  p.stride = {2, 1, 1};
  p.output_padding = {1, 0, 0};
  p.weight_layout = WeightLayout::kIO;
  p.bias = true;
  Graph g = ForwardGraph(p);
  ASSERT_TRUE(InferShapes(g).ok());
  const std::string text = GraphText(g);
  EXPECT_NE(text.find("%b: Tensor[(3)]"), std::string::npos) << text;
  EXPECT_NE(
      text.find("conv_transpose(%x, %w, %b, groups=1, strides=[2], padding=[0, 0], "
                "dilation=[1], output_padding=[1], data_layout=\"NCW\", kernel_layout=\"IOW\")"),
      std::string::npos)
      << text;
  Graph w = OneOp(OpKind::kConvBackwardWeight, {{1, 2, 5}, {1, 3, 3}}, [] {
    ConvAttrs a;
    a.rank = 1;
    a.kernel = {3, 1, 1};
    return a;
  }());
  ASSERT_TRUE(InferShapes(w).ok()) << InferError(w);
  EXPECT_NE(
      GraphText(w).find("conv_backward_weight(%a, %b, groups=1, kernel_size=[3], strides=[1]"),
      std::string::npos)
      << GraphText(w);
}

}  // namespace
}  // namespace convparity
