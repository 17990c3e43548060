// benchdnn descriptors: known lines give the expected problems (benchdnn's defaults, deduction,
// 0-based dilation, deconv as transposed), lines benchdnn or ConvProblem cannot take are skipped
// with reasons, malformed ones are errors naming file:line and the token, and the short form that
// --match searches is printed as benchdnn prints it.
#include "harness/io/benchdnn_descriptor.h"

#include <gtest/gtest.h>

#include "core/descriptor.h"
#include "tests/harness/io/benchdnn_test_support.h"

namespace convparity {
namespace {

using benchdnn_test::Import;

BenchdnnProblem ParseOne(const std::string& line, bool deconv) {
  const BenchdnnImport r = Import(line, deconv);
  EXPECT_EQ(r.tally.SkippedTotal(), 0)
      << (r.tally.skipped.empty() ? "" : r.tally.skipped.begin()->second.what);
  EXPECT_EQ(r.problems.size(), 1u) << line;
  return r.problems.size() == 1 ? r.problems.front() : BenchdnnProblem{};
}

// The one reason `line` is skipped for ("" when it is not).
std::string SkipReason(const std::string& line, bool deconv = false) {
  const BenchdnnImport r = Import(line, deconv);
  EXPECT_TRUE(r.problems.empty()) << line;
  if (r.tally.skipped.size() != 1) return "";
  const TallyEntry& e = r.tally.skipped.begin()->second;
  return r.tally.skipped.begin()->first + " | " + e.where + ": " + e.what;
}

// Unused trailing dimensions keep ConvProblem's defaults: 1 for sizes, 0 for paddings.
Dims D(int64_t a, int64_t b = 1, int64_t c = 1) { return {a, b, c}; }
Dims P(int64_t a, int64_t b = 0, int64_t c = 0) { return {a, b, c}; }

TEST(BenchdnnDescriptor, ResnetLineWithDefaultsIsA2dConvolution) {
  const BenchdnnProblem b =
      ParseOne("mb50ic64ih56oc256oh56kh1ph0n\"resnet_50:res2a_branch1*4\"", false);
  ConvProblem want;
  want.rank = 2, want.batch = 50, want.in_channels = 64, want.out_channels = 256, want.bias = true;
  want.input = D(56, 56), want.kernel = D(1, 1);
  EXPECT_EQ(b.problem, want) << ProblemDescriptor(b.problem);
  EXPECT_EQ(b.name, "resnet_50:res2a_branch1*4");
  EXPECT_EQ(b.line, 1);
  EXPECT_FALSE(b.direction.has_value());  // no --dir: the writer's directions
}

TEST(BenchdnnDescriptor, DeconvLineIsTransposedWithItsOwnChannels) {
  const BenchdnnProblem b = ParseOne("g2mb256oc96oh27ic256ih27kh5ph2n\"alexnet:deconv2\"", true);
  const ConvProblem& p = b.problem;
  EXPECT_TRUE(p.transposed);
  EXPECT_EQ(p.groups, 2);
  EXPECT_EQ(p.batch, 256);
  EXPECT_EQ(p.in_channels, 256);  // the deconvolution's own input
  EXPECT_EQ(p.out_channels, 96);
  EXPECT_EQ(p.weight_layout, WeightLayout::kIO);
  EXPECT_EQ(p.pad_begin, P(2, 2));
  EXPECT_EQ(p.pad_end, P(2, 2));
  EXPECT_EQ(p.output(), D(27, 27));
}

TEST(BenchdnnDescriptor, DeconvOutputBeyondThePaddingBecomesOutputPaddingWhenLegal) {
  // (3−1)·2 + 3 − 1 = 6 with padding 1 on both sides; 7 needs end padding −1 → output_padding 1.
  const ConvProblem p = ParseOne("ic4oc4ih3oh7kh3sh2ph1", true).problem;
  EXPECT_EQ(p.pad_begin, P(1, 1));
  EXPECT_EQ(p.pad_end, P(0, 0));
  EXPECT_EQ(p.output_padding, P(1, 1));
  EXPECT_EQ(p.output(), D(7, 7));
  // 9 would need output_padding 3 ≥ stride 2: unsupported, skipped with the reason.
  const std::string why = SkipReason("ic4oc4ih3oh9kh3sh2ph1", true);
  EXPECT_NE(why.find("expressible: "), std::string::npos) << why;
  EXPECT_NE(why.find("t:1: 'ic4oc4ih3oh9kh3sh2ph1': oh9 needs output_padding 3"), std::string::npos)
      << why;
}

TEST(BenchdnnDescriptor, ThreeDimensionalLinesGiveEachAxisOrCopyDepthIntoACube) {
  const ConvProblem p =
      ParseOne("ic16oc16_ih13kh3ph1_iw50kw3pw1_id10kd3pd1_n\"3d_conv_pad:1\"", false).problem;
  EXPECT_EQ(p.rank, 3);
  EXPECT_EQ(p.input, D(10, 13, 50));
  EXPECT_EQ(p.output(), D(10, 13, 50));
  EXPECT_EQ(p.batch, 2);  // benchdnn's default
  const ConvProblem cube = ParseOne("g2_ic32oc32_id17kd2_n\"3d_gconv\"", false).problem;
  EXPECT_EQ(cube.rank, 3);
  EXPECT_EQ(cube.groups, 2);
  EXPECT_EQ(cube.input, D(17, 17, 17));
  EXPECT_EQ(cube.kernel, D(2, 2, 2));
  EXPECT_EQ(cube.output(), D(16, 16, 16));
}

TEST(BenchdnnDescriptor, OneDimensionalLineUsesW) {
  const ConvProblem p = ParseOne("g1mb50ic256iw56oc512ow28kw1sw2pw0n\"conv1d:3\"", false).problem;
  EXPECT_EQ(p.rank, 1);
  EXPECT_EQ(p.input[0], 56);
  EXPECT_EQ(p.stride[0], 2);
  // (28−1)·2 − 56 + 1 = −1: the last input row is never read; padding 0 says the same.
  EXPECT_EQ(p.pad_end[0], 0);
  EXPECT_EQ(p.output()[0], 28);
}

TEST(BenchdnnDescriptor, DilationIsZeroBasedInBenchdnn) {
  const ConvProblem p = ParseOne("mb20ic4ih8oc6oh3kh3sh2ph1dh1n\"dilated_conv:1\"", false).problem;
  EXPECT_EQ(p.dilation, D(2, 2));  // dh1 = one gap = PyTorch dilation 2; w copies h
  EXPECT_EQ(p.output(), D(3, 3));
  EXPECT_EQ(ParseOne("ic1oc1ih5kh3dh0", false).problem.dilation, D(1, 1));
}

TEST(BenchdnnDescriptor, ExplicitOutputSizesGiveAsymmetricEndPadding) {
  const ConvProblem p = ParseOne("mb1ic16oc16_ih16kh3ph1oh16_iw16kw3pw1ow15", false).problem;
  EXPECT_EQ(p.pad_begin, P(1, 1));
  EXPECT_EQ(p.pad_end, P(1, 0));
  EXPECT_EQ(p.output(), D(16, 15));
  const ConvProblem wide = ParseOne("ic16oc16_iw1kw3ow100pw100", false).problem;
  EXPECT_EQ(wide.pad_end[0], 1);
  // No padding given: deduced as ⌊((16−1)·2 − 33 + 2) / 2⌋ truncated toward zero = 0.
  const ConvProblem deduced = ParseOne("mb2ic16ih33oc16oh16kh2sh2", false).problem;
  EXPECT_EQ(deduced.pad_begin, P(0, 0));
  EXPECT_EQ(deduced.output(), D(16, 16));
}

TEST(BenchdnnDescriptor, LinesBenchdnnRejectsAreSkippedWithReasons) {
  for (const char* line : {"oc4ih5kh3", "ic4oc4ih5", "ic4oc4kh3", "g0ic4oc4ih5kh3", "ic4oc4ih2kh5",
                           "ic4oc4id5kd3ih5kh3", "ic4oc4ih5kh3sh0", "ic4oc4n\"nospatial\""}) {
    const std::string why = SkipReason(line);
    EXPECT_EQ(why.rfind("descriptor: ", 0), 0u) << line << ": " << why;
    std::printf("  skipped: %s\n", why.c_str());
  }
  // Legal for benchdnn, but no convolution (channels not divisible by the groups, a batch of 0) or
  // padding we cannot express.
  for (const char* line : {"ic3oc4g2ih5kh3", "ic4oc4ih8oh2kh3ph0", "mb0ic4oc4ih5kh3"}) {
    const std::string why = SkipReason(line);
    EXPECT_EQ(why.rfind("expressible: ", 0), 0u) << line << ": " << why;
    std::printf("  skipped: %s\n", why.c_str());
  }
}

TEST(BenchdnnDescriptor, ValuesOver2To30AreSkippedNotErrors) {
  // oneDNN's shapes_large_conv: legal benchdnn, beyond anything we run.
  for (const char* line : {"mb1ic1oc1iw4294967311kw3", "ic4oc4ih99999999999999999999999kh3"}) {
    const std::string why = SkipReason(line);
    EXPECT_EQ(why.rfind("size: a value over 2^30 | t:1: ", 0), 0u) << why;
  }
  EXPECT_EQ(Import("ic4oc4ih1073741824kh3").tally.skipped.count("size: a value over 2^30"), 0u);
}

TEST(BenchdnnDescriptor, MalformedTextIsAnErrorNamingLineAndToken) {
  struct Bad {
    const char* text;
    const char* says;
  } cases[] = {{"ic4oc4ih5kh3\nih5kh3qq7", "t:2: descriptor 'ih5kh3qq7': unknown entry at 'qq7'"},
               {"ic4oc4ih", "expected a number after 'ih'"},
               {"ic4oc4ih-5kh3", "expected a number after 'ih'"},
               {"_ic4oc4ih5kh3", "unexpected '_' at '_ic4"},
               {"ic4__oc4ih5kh3", "unexpected '_' at '_oc4"},
               {"ic4oc4ih5kh3#x", "unknown entry at '#x'"},  // '#' starts a comment only as a token
               {"ic4\xff", "unknown entry at '\\xff'"}};
  for (const Bad& bad : cases) {
    const std::string error = benchdnn_test::ImportError(bad.text);
    EXPECT_NE(error.find(bad.says), std::string::npos) << bad.text << ": " << error;
  }
  EXPECT_EQ(ParseOne("ic4_oc4_ih5_kh3_", false).problem.kernel, D(3, 3));
  // A name runs to the end of the token, quotes or not: benchdnn has no quoting.
  EXPECT_EQ(ParseOne("ic4oc4ih5kh3n\"open", false).name, "\"open");
}

TEST(BenchdnnDescriptor, ShortFormIsPrintedAsBenchdnnPrintsIt) {
  auto form = [](const std::string& token, bool deconv = false, int64_t mb = 0) {
    Result<BenchdnnDesc> d = LexBenchdnnDesc(token, "t");
    EXPECT_TRUE(d.ok());
    BenchdnnDesc desc = *d;
    EXPECT_EQ(DeduceBenchdnnDesc(desc, deconv), "");
    return BenchdnnShortForm(desc, mb);
  };
  // A square: h only; output and padding deduced; defaults (mb2, stride 1, dilation 0) omitted.
  EXPECT_EQ(form("ic4ih5oc4kh3"), "ic4ih5oc4oh3kh3ph0");
  EXPECT_EQ(form("g1mb50ic3ih224iw224oc64oh112ow112kh7kw7sh2sw2ph3pw3n\"resnet_50:conv1\""),
            "g1mb50ic3ih224oc64oh112kh7sh2ph3n\"resnet_50:conv1\"");
  EXPECT_EQ(form("ic4ih5iw6oc4kh3kw3dh1"), "ic4ih5iw6oc4oh1ow4kh3kw3ph0pw0dh1dw0");
  EXPECT_EQ(form("ic4iw9oc4kw3sw2"), "ic4iw9oc4ow4kw3sw2pw0");
  EXPECT_EQ(form("ic2id4oc2kd3pd1"), "ic2id4oc2od4kd3pd1");  // a cube: d only
  EXPECT_EQ(form("ic2id4ih5iw5oc2kd3kh3kw3"), "ic2id4ih5iw5oc2od2oh3ow3kd3kh3kw3pd0ph0pw0");
  EXPECT_EQ(form("ic4ih3oc4kh3sh2", true), "ic4ih3oc4oh7kh3sh2ph0");     // deconv's output
  EXPECT_EQ(form("ic4ih5oc4kh3", false, 16), "mb16ic4ih5oc4oh3kh3ph0");  // --mb replaces mb
  EXPECT_EQ(form("mb2ic4ih5oc4kh3", false, 0), "ic4ih5oc4oh3kh3ph0");
}

}  // namespace
}  // namespace convparity
