// The TorchScript adapter (adapters/torchscript): LibTorch's freeze, optimize_for_inference and
// optimizeForMobile rewrites of a convolution module, made by name through the registry as a
// campaign's worker makes them. Each agrees with the oracle on fixed problems it supports, in exact
// and random fills, and names the operator the rewrite put in the graph; what a rewrite leaves
// untouched is declined with a reason. Skipped when the adapter was not built.
#include <gtest/gtest.h>

#include <memory>
#include <ostream>
#include <string>

#include "core/descriptor.h"
#include "harness/engine/check_case.h"
#include "harness/suts/adapter_suts.h"
#include "harness/suts/sut_registry.h"

namespace convparity {
namespace {

bool TorchScriptBuilt() {
  for (const AdapterSutInfo& a : AdapterSuts())
    if (a.name == "torchscript") return AdapterBuilt(a);
  return false;
}

struct RewriteCase {
  const char* sut;
  const char* descriptor;  // with its direction
  // Agreeing cases: a piece of the implementation the run must name; declined ones: of the reason.
  const char* expected;
};
void PrintTo(const RewriteCase& c, std::ostream* os) { *os << c.sut << " " << c.descriptor; }

std::string CaseName(const testing::TestParamInfo<RewriteCase>& info) {
  std::string name = std::string(info.param.sut) + "_" + std::to_string(info.index);
  for (char& ch : name)
    if (!isalnum(static_cast<unsigned char>(ch))) ch = '_';
  return name;
}

ConvCase CaseOf(const RewriteCase& r, Fill fill) {
  Result<ParsedDescriptor> parsed = ParseDescriptor(r.descriptor);
  EXPECT_TRUE(parsed.ok()) << r.descriptor;
  ConvCase c;
  c.problem = parsed.ok() ? parsed->problem : ConvProblem{};
  c.direction = parsed.ok() ? parsed->direction.value_or(Direction::kForward) : Direction::kForward;
  c.sut = r.sut;
  c.fill = fill;
  c.seed = 11;
  return c;
}

std::unique_ptr<Sut> Make(const std::string& name) {
  Result<std::unique_ptr<Sut>> sut = MakeSut(name);
  EXPECT_TRUE(sut.ok()) << name << ": " << sut.status().message();
  return sut.ok() ? std::move(sut).value() : nullptr;
}

class TorchScriptAgrees : public testing::TestWithParam<RewriteCase> {};

TEST_P(TorchScriptAgrees, WithTheOracleAndRunsTheRewrittenOperator) {
  if (!TorchScriptBuilt()) GTEST_SKIP() << "torchscript is not built here";
  const RewriteCase& r = GetParam();
  std::unique_ptr<Sut> sut = Make(r.sut);
  ASSERT_NE(sut, nullptr);
  EXPECT_EQ(sut->name(), r.sut);
  for (Fill fill : {Fill::kExact, Fill::kUniform, Fill::kWide}) {
    const CaseOutcome out = CheckCase(CaseOf(r, fill), *sut);
    EXPECT_EQ(out.verdict, Verdict::kPassed)
        << r.descriptor << ", " << FillName(fill) << " fill: " << VerdictName(out.verdict) << ": "
        << out.reason;
    EXPECT_NE(out.notes.implementation.find(r.expected), std::string::npos)
        << "expected '" << r.expected << "' in: " << out.notes.implementation;
    EXPECT_FALSE(out.notes.inexact);
  }
}

// One problem per form each rewrite turns into its own operator.
const RewriteCase kSupported[] = {
    {"torchscript", "fwd:2d_mb2_ic3_oc4_i7x7_k3x3_b", "aten::conv2d (freeze, batch norm folded)"},
    {"torchscript", "fwd:1d_g2_ic4_oc6_i9_k3_s2_d2_b", "aten::conv1d (freeze, batch norm folded)"},
    {"torchscript", "fwd:3d_ic2_oc3_i5x5x5_k3x3x3_p1_b", "aten::conv3d"},
    {"torchscript", "fwd:2d_ic3_oc4_i9x9_k3x3_s2x2_pb1x0_pe0x2_d2x2_nhwc_b", "aten::conv2d"},
    {"torchscript", "fwd:t2d_g2_ic4_oc6_i5x5_k3x3_s2_p1_op1_b", "aten::conv_transpose2d (freeze"},
    {"torchscript", "fwd:t3d_ic2_oc2_i3x3x3_k2x2x2_s2_b", "aten::conv_transpose3d"},
    {"torchscript", "fwd:t2d_ic2_oc3_i5x5_k3x3_s2_pb2x0_pe0x1_nhwc", "aten::conv_transpose2d"},
    {"torchscript#inference", "fwd:2d_mb2_ic3_oc4_i7x7_k3x3_b", "prim::mkldnn_convolution"},
    {"torchscript#inference", "fwd:2d_g4_ic4_oc8_i7x7_k3x3_s2_p1_nhwc", "prim::mkldnn_convolution"},
    {"torchscript#inference", "fwd:2d_g2_ic4_oc6_i9x9_k3x3_pb1x0_pe0x2_d2x2_b",
     "prim::mkldnn_convolution"},
    {"torchscript#inference", "fwd:3d_ic2_oc4_i5x5x5_k3x3x3_s2_b", "prim::mkldnn_convolution"},
    {"torchscript#mobile", "fwd:2d_mb2_ic3_oc4_i7x7_k3x3_b", "prepacked::conv2d_clamp_run"},
    {"torchscript#mobile", "fwd:1d_ic3_oc5_i9_k3_s2_d2", "prepacked::conv2d_clamp_run"},
    {"torchscript#mobile", "fwd:2d_g4_ic4_oc8_i7x7_k3x3_p1_nhwc_b", "prepacked::conv2d_clamp_run"},
    {"torchscript#mobile", "fwd:t2d_g2_ic4_oc6_i5x5_k3x3_s2_p1_op1_b",
     "prepacked::conv2d_transpose_clamp_run"},
    {"torchscript#mobile", "fwd:t2d_ic2_oc3_i6x5_k3x3_s2_pb1x0_pe0x2_op1x1",
     "prepacked::conv2d_transpose"},
};
INSTANTIATE_TEST_SUITE_P(TorchScriptAdapter, TorchScriptAgrees, testing::ValuesIn(kSupported),
                         CaseName);

class TorchScriptDeclines : public testing::TestWithParam<RewriteCase> {};

TEST_P(TorchScriptDeclines, WithAReason) {
  if (!TorchScriptBuilt()) GTEST_SKIP() << "torchscript is not built here";
  const RewriteCase& r = GetParam();
  std::unique_ptr<Sut> sut = Make(r.sut);
  ASSERT_NE(sut, nullptr);
  const CaseOutcome out = CheckCase(CaseOf(r, Fill::kExact), *sut);
  EXPECT_EQ(out.verdict, Verdict::kSkipped) << r.descriptor << ": " << out.reason;
  EXPECT_NE(out.reason.find(r.expected), std::string::npos)
      << "expected '" << r.expected << "' in: " << out.reason;
}

const RewriteCase kDeclined[] = {
    {"torchscript#inference", "fwd:1d_ic3_oc4_i9_k3",
     "optimize_for_inference left no prim::mkldnn_convolution in the graph (it keeps "
     "aten::conv1d)"},
    {"torchscript#inference", "fwd:t2d_ic2_oc2_i5x5_k3x3_s2",
     "left no prim::mkldnn_convolution in the graph (it keeps aten::conv_transpose2d)"},
    {"torchscript#mobile", "fwd:3d_ic2_oc2_i4x4x4_k3x3x3",
     "optimizeForMobile left no prepacked::conv2d_clamp_run in the graph (it keeps aten::conv3d)"},
    {"torchscript", "bwd_data:2d_ic2_oc2_i5x5_k3x3", "does not implement bwd_data"},
    {"torchscript#mobile", "fwd:t1d_ic2_oc3_i6_k3_s2_op1",
     "left no prepacked::conv2d_transpose_clamp_run in the graph (it keeps "
     "aten::conv_transpose1d)"},
};
INSTANTIATE_TEST_SUITE_P(TorchScriptAdapter, TorchScriptDeclines, testing::ValuesIn(kDeclined),
                         CaseName);

}  // namespace
}  // namespace convparity
