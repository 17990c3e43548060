// The frontends (SUTs that read the models convparity writes): every spelling of a few
// convolutions and chains that each reads right agrees exactly with the oracle, what the format
// cannot write or the stack refuses is skipped with the reason, and what OpenCV 4.6 and
// TensorFlow.js 4.22 read wrong is failed or a shape mismatch. Skipped where the adapter is not
// built or installed here.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <memory>
#include <string>
#include <vector>

#include "core/descriptor.h"
#include "harness/engine/campaign_cases.h"
#include "harness/engine/check_case.h"
#include "harness/exec/exec_adapters.h"
#include "harness/suts/adapter_suts.h"
#include "harness/suts/sut_registry.h"

namespace convparity {
namespace {

// The SUT, or null when it is not built or installed here.
std::unique_ptr<Sut> MakeOrNull(const std::string& name) {
  for (const AdapterSutInfo& a : AdapterSuts())
    if (a.name == name && !AdapterBuilt(a)) return nullptr;
  if (const ExecAdapter* a = FindExecAdapter(name); a && !AdapterUnavailableReason(*a).empty())
    return nullptr;
  Result<std::unique_ptr<Sut>> sut = MakeSut(name);
  EXPECT_TRUE(sut.ok()) << sut.status().message();
  return sut.ok() ? std::move(sut).value() : nullptr;
}

struct SpelledCase {
  const char* descriptor;
  const char* spelling;
  Verdict verdict;
  const char* reason = "";  // a piece of the reason a skip must give
  const char* form = "conv";
};

CaseOutcome Check(Sut& sut, const SpelledCase& s, Fill fill) {
  const std::string sut_name = sut.name();
  ConvCase c;
  const ParsedDescriptor parsed = *ParseDescriptor(s.descriptor);
  c.problem = parsed.problem;
  c.direction = parsed.direction.value_or(Direction::kForward);
  c.sut = sut_name;
  c.spelling = *ParseSpellingText(s.spelling);
  c.graph = FindGraphForm(s.form);
  c.fill = fill;
  c.seed = 11;
  EXPECT_TRUE(CheckSpelling(c.spelling, c.problem).ok()) << s.descriptor << " " << s.spelling;
  return CheckCase(c, sut);
}

// Channels-last data and an HWIO weight reach OpenCV as Transposes around the Conv and of the
// weight constant, which its importer must fold.
constexpr const char* kPlain2d = "fwd:2d_mb2_g2_ic4_oc6_i7x6_k3x3_s2x1_p1_d1x2_b";
constexpr const char* kLayouts2d = "fwd:2d_ic3_oc4_i6x6_k3x3_p1_nhwc_hwio_b";
constexpr const char* kDepthwise = "fwd:2d_g3_ic3_oc6_i6x6_k3x3_p1_b";
constexpr const char* kDeconv = "fwd:t2d_ic2_oc3_i4x5_k3x3_s2_p1_op1_b";

const SpelledCase kAgrees[] = {
    {kPlain2d, "", Verdict::kPassed},
    {kPlain2d, "pads=pad_op", Verdict::kPassed},
    {kPlain2d, "bias=add", Verdict::kPassed},
    {kPlain2d, "norm=identity_batch_norm", Verdict::kPassed},
    {kPlain2d, "weight=transposed", Verdict::kPassed},
    {kPlain2d, "pads=pad_op,bias=add,norm=identity_batch_norm", Verdict::kPassed},
    // An even total padding: SAME_UPPER and SAME_LOWER give the same pads.
    {"fwd:2d_ic2_oc3_i5x5_k3x3_p1_b", "pads=same_upper", Verdict::kPassed},
    {"fwd:2d_ic2_oc3_i5x5_k3x3_p1_b", "pads=same_lower", Verdict::kPassed},
    {"fwd:2d_ic2_oc3_i5x5_k3x3_s2", "pads=valid", Verdict::kPassed},
    // An odd total padding, the extra at the end: SAME_UPPER written as SAME_LOWER fails here.
    {"fwd:2d_ic1_oc2_i4x5_k2x2_pe1x1_b", "pads=same_upper", Verdict::kPassed},
    {kLayouts2d, "", Verdict::kPassed},
    {kLayouts2d, "weight=transposed", Verdict::kPassed},
    {kLayouts2d, "data_format=transposes,bias=add", Verdict::kPassed},
    {kDepthwise, "depthwise=multiplier", Verdict::kPassed},
    {kDeconv, "", Verdict::kPassed},
    {kDeconv, "weight=transposed,norm=identity_batch_norm", Verdict::kPassed},
    {"fwd:3d_ic2_oc2_i4x4x4_k2x2x2_p1_b", "bias=add", Verdict::kPassed},
    {"fwd:2d_ic2_oc4_i6x6_k3x3_p1_b", "pads=pad_op,bias=add", Verdict::kPassed, "", "chain"},
};

// Every case agrees exactly with the oracle, in exact and random fill.
void ExpectAgreementOn(const std::string& name, const std::vector<SpelledCase>& cases) {
  std::unique_ptr<Sut> sut = MakeOrNull(name);
  if (!sut) GTEST_SKIP() << name << " is not built here";
  for (const SpelledCase& s : cases)
    for (Fill fill : {Fill::kExact, Fill::kUniform}) {
      const CaseOutcome out = Check(*sut, s, fill);
      EXPECT_EQ(out.verdict, s.verdict)
          << name << ": " << s.descriptor << " spelled " << s.spelling << " as a " << s.form << ", "
          << FillName(fill) << ": " << out.reason;
    }
}

// Each case's verdict, and the reason a skip gives.
template <size_t N>
void ExpectVerdicts(const std::string& name, const SpelledCase (&cases)[N]) {
  std::unique_ptr<Sut> sut = MakeOrNull(name);
  if (!sut) GTEST_SKIP() << name << " is not built here";
  for (const SpelledCase& s : cases) {
    const CaseOutcome out = Check(*sut, s, Fill::kExact);
    EXPECT_EQ(out.verdict, s.verdict)
        << s.descriptor << " spelled " << s.spelling << ": " << out.reason;
    EXPECT_NE(out.reason.find(s.reason), std::string::npos) << out.reason;
  }
}

// The ONNX cases every ONNX frontend reads right, and `more`.
template <size_t N>
void ExpectAgreement(const std::string& name, const SpelledCase (&more)[N]) {
  std::vector<SpelledCase> all(std::begin(kAgrees), std::end(kAgrees));
  all.insert(all.end(), std::begin(more), std::end(more));
  ExpectAgreementOn(name, all);
}

// What OpenCV 4.6 reads wrong and ONNX Runtime right.
const SpelledCase kOnnxRuntimeAgrees[] = {
    {"fwd:2d_ic1_oc2_i4x5_k2x2_pb1x1_b", "pads=same_lower", Verdict::kPassed},
    {kDeconv, "output_size=output_shape", Verdict::kPassed},
    {"fwd:1d_ic2_oc3_i7_k3_pe1_b", "", Verdict::kPassed},
};

const SpelledCase kNothingMore[] = {{kPlain2d, "", Verdict::kPassed}};

TEST(OpenCvDnn, AgreesExactlyOnTheSpellingsItReadsRight) {
  ExpectAgreement("opencv-dnn", kNothingMore);
}
TEST(OnnxRuntimeFrontends, OptimizingAgreesExactlyOnEverySpelling) {
  ExpectAgreement("onnxruntime-opt", kOnnxRuntimeAgrees);
}
TEST(OnnxRuntimeFrontends, WebAgreesExactlyOnEverySpelling) {
  ExpectAgreement("onnxruntime-web", kOnnxRuntimeAgrees);
}
// Without graph optimizations, the weights as the model's inputs.
TEST(OnnxRuntimeFrontends, DisabledAgreesExactlyOnEverySpelling) {
  ExpectAgreement("onnxruntime", kOnnxRuntimeAgrees);
}

TEST(OnnxRuntimeFrontends, DisabledSkipsWhatItCannotRunWithAReason) {
  const SpelledCase cases[] = {
      {kPlain2d, "bias=fused", Verdict::kSkipped, "ONNX has no convolution fused with its bias"},
      {"bwd_data:2d_ic2_oc3_i5x5_k3x3", "", Verdict::kSkipped, "forward direction only"},
      // Inside PyTorch's output_padding < max(stride, dilation), outside ONNX Runtime's.
      {"fwd:t1d_ic1_oc1_i3_k2_s1_d2_op1", "", Verdict::kSkipped, "output_padding < stride only"},
  };
  ExpectVerdicts("onnxruntime", cases);
}

// One session serves every case of one model: the weights are the model's inputs, so cases that
// differ in their values only send the same model. The adapter logs each session it makes.
TEST(OnnxRuntimeFrontends, DisabledReusesOneSessionPerModel) {
  char path[] = "/tmp/convparity_sessions_XXXXXX";
  const int fd = mkstemp(path);
  ASSERT_GE(fd, 0);
  close(fd);
  setenv("CONVPARITY_SESSION_LOG", path, 1);
  std::unique_ptr<Sut> sut = MakeOrNull("onnxruntime");
  unsetenv("CONVPARITY_SESSION_LOG");
  if (!sut) GTEST_SKIP() << "onnxruntime is not built here";
  const SpelledCase plain{kPlain2d, "", Verdict::kPassed};
  const SpelledCase added{kPlain2d, "bias=add", Verdict::kPassed};
  for (const SpelledCase& s : {plain, plain, added, plain, added})
    for (Fill fill : {Fill::kExact, Fill::kUniform}) {
      const CaseOutcome out = Check(*sut, s, fill);
      EXPECT_EQ(out.verdict, Verdict::kPassed) << s.spelling << ": " << out.reason;
    }
  sut.reset();  // ends the child
  std::ifstream log(path);
  int sessions = 0;
  for (std::string line; std::getline(log, line);) ++sessions;
  std::remove(path);
  EXPECT_EQ(sessions, 2) << "one per model: the plain one and the one with a bias Add";
}

// onnxruntime-opt says which ops its optimizer left: the identity BatchNormalization and the
// bias Add folded into the convolution, its Pad into the convolution's pads.
TEST(OnnxRuntimeFrontends, OptimizingSaysWhichOpsItsOptimizerLeft) {
  std::unique_ptr<Sut> sut = MakeOrNull("onnxruntime-opt");
  if (!sut) GTEST_SKIP() << "onnxruntime-opt is not built here";
  const CaseOutcome out =
      Check(*sut, {kPlain2d, "pads=pad_op,bias=add,norm=identity_batch_norm", Verdict::kPassed},
            Fill::kExact);
  ASSERT_EQ(out.verdict, Verdict::kPassed) << out.reason;
  const std::string& ran = out.notes.implementation;
  EXPECT_NE(ran.find("Conv"), std::string::npos) << ran;
  for (const char* folded : {"BatchNormalization", "Add", "Pad"})
    EXPECT_EQ(ran.find(folded), std::string::npos) << folded << " is left: " << ran;
}

const SpelledCase kOthers[] = {
    // What ONNX cannot write.
    {kPlain2d, "bias=fused", Verdict::kSkipped, "ONNX has no convolution fused with its bias"},
    {"bwd_data:2d_ic2_oc3_i5x5_k3x3", "", Verdict::kSkipped, "forward direction only"},
    // What OpenCV 4.6 refuses, in its own words.
    {"fwd:t3d_ic2_oc2_i3x3x3_k2x2x2", "", Verdict::kSkipped, "OpenCV:"},
    // What it reads wrong: a SAME_LOWER's odd padding put at the end; the
    // output shape of output_shape (and its output_padding) and a 1-D convolution's end padding
    // ignored, which gives results of other shapes.
    {"fwd:2d_ic1_oc2_i4x5_k2x2_pb1x1_b", "pads=same_lower", Verdict::kFailed},
    {kDeconv, "output_size=output_shape", Verdict::kShapeMismatch},
    {"fwd:1d_ic2_oc3_i7_k3_pe1_b", "", Verdict::kShapeMismatch},
};

TEST(OpenCvDnn, SkipsWhatItCannotReadWithAReasonAndFailsWhatItReadsWrong) {
  ExpectVerdicts("opencv-dnn", kOthers);
}

// TensorFlow graphs: channels-last problems (TensorFlow's own layouts), every spelling TensorFlow
// writes, the directions tfjs-converter maps.
constexpr const char* kNhwc = "fwd:2d_mb2_ic3_oc4_i7x6_k3x3_s2x1_p1_nhwc_hwio_b";
constexpr const char* kNhwcDepthwise = "fwd:2d_g3_ic3_oc6_i6x6_k3x3_p1_nhwc_b";
const SpelledCase kTfjsAgrees[] = {
    {kNhwc, "", Verdict::kPassed},
    {kNhwc, "pads=pad_op", Verdict::kPassed},
    {kNhwc, "bias=add", Verdict::kPassed},
    {kNhwc, "bias=fused", Verdict::kPassed},
    {kNhwc, "norm=identity_batch_norm", Verdict::kPassed},
    {kNhwc, "weight=transposed,bias=fused", Verdict::kPassed},
    {kNhwcDepthwise, "depthwise=multiplier", Verdict::kPassed},
    {kNhwcDepthwise, "depthwise=multiplier,bias=fused", Verdict::kPassed},
    {"fwd:2d_ic2_oc3_i5x5_k3x3_p1_nhwc_b", "pads=same_upper", Verdict::kPassed},
    // An odd total padding, the extra at the end: TensorFlow's SAME.
    {"fwd:2d_ic1_oc2_i4x5_k2x2_pe1x1_nhwc_b", "pads=same_upper", Verdict::kPassed},
    {"fwd:2d_ic2_oc3_i5x5_k3x3_s2_nhwc", "pads=valid", Verdict::kPassed},
    // Channels-first data through Transposes around TensorFlow's NHWC op.
    {"fwd:2d_ic2_oc3_i5x6_k3x3_s2x1_p1_b", "data_format=transposes", Verdict::kPassed},
    {"fwd:1d_ic2_oc3_i7_k3_pe1_nwc_b", "", Verdict::kPassed},
    {"fwd:3d_ic2_oc2_i4x4x4_k2x2x2_ndhwc_b", "", Verdict::kPassed},
    {"fwd:t2d_ic2_oc3_i4x5_k3x3_s2_p1_op1_nhwc", "", Verdict::kPassed},
    {"bwd_data:2d_ic2_oc3_i5x5_k3x3_s2_p1_nhwc", "", Verdict::kPassed},
    {"fwd:2d_ic2_oc4_i6x6_k3x3_p1_nhwc_b", "pads=pad_op,bias=add", Verdict::kPassed, "", "chain"},
};

TEST(TfjsGraph, CpuAgreesExactlyOnTheSpellingsItReadsRight) {
  ExpectAgreementOn("tfjs-graph-cpu", {std::begin(kTfjsAgrees), std::end(kTfjsAgrees)});
}
TEST(TfjsGraph, WasmAgreesExactlyOnTheSpellingsItReadsRight) {
  ExpectAgreementOn("tfjs-graph-wasm", {std::begin(kTfjsAgrees), std::end(kTfjsAgrees)});
}

const SpelledCase kTfjsOthers[] = {
    // What TensorFlow cannot write.
    {"fwd:2d_ic2_oc2_i4x4_k2x2_pb1x1_nhwc", "pads=same_lower", Verdict::kSkipped, "SAME_LOWER"},
    // What tfjs-converter refuses, in its words: ops it does not map, groups.
    {"bwd_weight:2d_ic2_oc3_i5x5_k3x3_nhwc", "", Verdict::kSkipped, "Conv2DBackpropFilter"},
    {"fwd:2d_g2_ic4_oc4_i5x5_k3x3_nhwc", "", Verdict::kSkipped, "depth of input"},
    // What it reads wrong: Conv2D's strides read at NHWC's positions whatever the data_format
    // (a result of another shape), and Conv2DBackpropInput's dilations ignored.
    {"fwd:2d_ic1_oc1_i1x3_k1x1_s1x2", "", Verdict::kShapeMismatch},
    {"fwd:t2d_ic1_oc1_i3x3_k2x2_d2x2_nhwc", "", Verdict::kFailed},
};

TEST(TfjsGraph, SkipsWhatItCannotReadWithAReasonAndFailsWhatItReadsWrong) {
  ExpectVerdicts("tfjs-graph-cpu", kTfjsOthers);
}

// A campaign of one frontend draws its cases as its format writes them: the directions and
// spelling values the format writes, and (every SUT reading a model) no case the writer declines,
// but for the few whose redraws all land on one. Returns how many of `n` cases were spelled.
int ExpectCampaignDrawsWhatTheFormatWrites(const std::string& sut, const std::string& format,
                                           int n) {
  CampaignOptions o;
  o.suts = {sut};
  Result<CampaignSpace> space = MakeCampaignSpace(o, o.suts);
  EXPECT_TRUE(space.ok()) << space.status().message();
  if (!space.ok()) return 0;
  const ModelFormat* f = FindModelFormat(format);
  int spelled = 0, unwritten = 0;
  for (int64_t i = 0; i < n; ++i) {
    const ConvCase c = DrawCase(o, *space, i).Case();
    EXPECT_TRUE(std::count(f->directions.begin(), f->directions.end(), c.direction))
        << DirectionName(c.direction);
    EXPECT_TRUE(SpellingMask::AllBut(f->unwritten).Allows(c.spelling)) << SpellingText(c.spelling);
    EXPECT_TRUE(CheckSpelling(c.spelling, c.problem).ok());
    spelled += c.spelling.plain() ? 0 : 1;
    unwritten += FormatWrites(*f, c.problem, *c.graph, c.direction, c.spelling).ok() ? 0 : 1;
  }
  EXPECT_LE(unwritten, n / 100) << "cases " << format << " does not write";
  // Beside a SUT that reads buffers nothing is drawn again, but the spellings are still the
  // format's.
  o.suts.push_back("direct");
  space = MakeCampaignSpace(o, o.suts);
  EXPECT_TRUE(space.ok()) << space.status().message();
  for (int64_t i = 0; space.ok() && i < n; ++i) {
    const ConvCase c = DrawCase(o, *space, i).Case();
    EXPECT_TRUE(SpellingMask::AllBut(f->unwritten).Allows(c.spelling)) << SpellingText(c.spelling);
  }
  return spelled;
}

TEST(OpenCvDnn, ACampaignDrawsForwardCasesInTheSpellingsOnnxWrites) {
  if (!MakeOrNull("opencv-dnn")) GTEST_SKIP() << "opencv-dnn is not built here";
  EXPECT_GT(ExpectCampaignDrawsWhatTheFormatWrites("opencv-dnn", "onnx", 400), 200);
}

TEST(TfjsGraph, ACampaignDrawsOnlyWhatTensorFlowWrites) {
  if (!MakeOrNull("tfjs-graph-cpu")) GTEST_SKIP() << "tfjs-graph-cpu is not installed here";
  EXPECT_GT(ExpectCampaignDrawsWhatTheFormatWrites("tfjs-graph-cpu", "tfjs-graph", 400), 200);
}

TEST(OpenCvDnn, RunsAsAPluginByPathToo) {
  if (!MakeOrNull("opencv-dnn")) GTEST_SKIP() << "opencv-dnn is not built here";
  Result<std::unique_ptr<Sut>> sut =
      MakeSut("plugin:" + AdapterDirectory() + "/libconvparity_opencv_dnn.so");
  ASSERT_TRUE(sut.ok()) << sut.status().message();
  const CaseOutcome out = Check(**sut, {kPlain2d, "pads=pad_op", Verdict::kPassed}, Fill::kExact);
  EXPECT_EQ(out.verdict, Verdict::kPassed) << out.reason;
}

}  // namespace
}  // namespace convparity
