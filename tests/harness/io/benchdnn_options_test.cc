// benchdnn's driver options as the import honours them: comma lists run as products, --reset,
// --dir (directions and bias), --dt / --cfg / --bia-dt, --mb, --alg, --match, the memory formats
// (--stag / --wtag / --dtag / --strides), options counted once as not changing the convolution,
// and malformed ones as errors.
#include <gtest/gtest.h>

#include <map>
#include <set>

#include "core/descriptor.h"
#include "harness/io/benchdnn_layouts.h"
#include "harness/io/benchdnn_settings.h"
#include "tests/harness/io/benchdnn_test_support.h"

namespace convparity {
namespace {

using benchdnn_test::DataDir;
using benchdnn_test::Import;
using benchdnn_test::ImportError;

// Each imported problem as "direction descriptor" (the case's own descriptor, layouts and bias
// included), in import order.
std::vector<std::string> Cases(const BenchdnnImport& r) {
  std::vector<std::string> out;
  for (const BenchdnnProblem& b : r.problems)
    out.push_back(
        (b.direction ? DirectionName(*b.direction) : std::string("any")) + " " +
        ProblemDescriptor(b.problem) +
        (b.algorithm != Algorithm::kDirect ? std::string(" ") + AlgorithmName(b.algorithm) : ""));
  return out;
}

std::map<std::string, int64_t> Skipped(const BenchdnnImport& r) {
  std::map<std::string, int64_t> out;
  for (const auto& [reason, e] : r.tally.skipped) out[reason] = e.count;
  return out;
}

TEST(BenchdnnOptions, CommaListsRunAsProducts) {
  Result<BenchdnnImport> r = ImportBenchdnnFile((DataDir() / "conv/test_products").string());
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(Cases(*r), (std::vector<std::string>{"fwd 2d_ic4_oc4_i5x5_k3x3",  // mb1
                                                 "fwd 2d_mb3_ic4_oc4_i5x5_k3x3",
                                                 "bwd_weight 2d_ic4_oc4_i5x5_k3x3",
                                                 "bwd_weight 2d_mb3_ic4_oc4_i5x5_k3x3"}));
  EXPECT_EQ(r->tally.read, 4);
  ASSERT_EQ(r->problems.size(), 4u);
  EXPECT_EQ(r->problems[1].options, "--dir=FWD_D --mb=3");
  EXPECT_EQ(r->problems[1].Repro(), "--conv --dir=FWD_D --mb=3 ic4ih5oc4kh3n\"products\"");
}

TEST(BenchdnnOptions, DirectionsAndTheirBias) {
  const std::string p = " ic4ih5oc4kh3\n";
  EXPECT_EQ(
      Cases(Import("--dir=FWD_B" + p + "--dir=fwd_d" + p + "--dir=FWD_I" + p)),
      (std::vector<std::string>{"fwd 2d_mb2_ic4_oc4_i5x5_k3x3_b", "fwd 2d_mb2_ic4_oc4_i5x5_k3x3",
                                "fwd 2d_mb2_ic4_oc4_i5x5_k3x3"}));
  EXPECT_EQ(Cases(Import("--dir=BWD_D" + p + "--dir=BWD_W" + p + "--dir=BWD_WB" + p +
                         "--dir=BWD_DW" + p)),
            (std::vector<std::string>{
                "bwd_data 2d_mb2_ic4_oc4_i5x5_k3x3", "bwd_weight 2d_mb2_ic4_oc4_i5x5_k3x3",
                "bwd_weight 2d_mb2_ic4_oc4_i5x5_k3x3_b", "bwd_data 2d_mb2_ic4_oc4_i5x5_k3x3",
                "bwd_weight 2d_mb2_ic4_oc4_i5x5_k3x3"}));
  // --bia-dt=f32 gives FWD_D / FWD_I / BWD_W a bias; another bias type is skipped.
  const BenchdnnImport bias =
      Import("--bia-dt=f32 --dir=FWD_I,BWD_W,BWD_D" + p + "--bia-dt=bf16 --dir=FWD_D,FWD_B" + p);
  EXPECT_EQ(Cases(bias),
            (std::vector<std::string>{
                "fwd 2d_mb2_ic4_oc4_i5x5_k3x3_b", "bwd_weight 2d_mb2_ic4_oc4_i5x5_k3x3_b",
                "bwd_data 2d_mb2_ic4_oc4_i5x5_k3x3", "fwd 2d_mb2_ic4_oc4_i5x5_k3x3_b"}));
  EXPECT_EQ(Skipped(bias), (std::map<std::string, int64_t>{{"data type: bias bf16", 1}}));
  // Without --dir: a bias and the writer's directions, as before --dir was honoured.
  const BenchdnnImport none = Import(p);
  ASSERT_EQ(none.problems.size(), 1u);
  EXPECT_FALSE(none.problems[0].direction.has_value());
  EXPECT_TRUE(none.problems[0].problem.bias);
  // Directions not asked for are skipped and counted.
  ImportOptions only_forward;
  only_forward.directions = {Direction::kForward};
  const BenchdnnImport asked = Import("--dir=FWD_B,BWD_D,BWD_DW" + p, false, only_forward);
  EXPECT_EQ(Cases(asked), (std::vector<std::string>{"fwd 2d_mb2_ic4_oc4_i5x5_k3x3_b"}));
  EXPECT_EQ(Skipped(asked),
            (std::map<std::string, int64_t>{{"direction: BWD_DW not asked for", 1},
                                            {"direction: BWD_D not asked for", 1}}));
}

TEST(BenchdnnOptions, OnlyF32DataTypesAreImportedAndTheOthersCountedPerType) {
  const BenchdnnImport r = Import(
      "--dt=f32,bf16,f32:f32:f32,u8:s8:u8,f32:bf16:f32 ic4ih5oc4kh3 ic2ih5oc2kh3\n"
      "--cfg=f32,u8s8s8 ic4ih5oc4kh3\n");
  EXPECT_EQ(r.problems.size(), 5u);  // f32 and f32:f32:f32 twice, the f32 --cfg once
  EXPECT_EQ(r.tally.read, 12);
  EXPECT_EQ(Skipped(r), (std::map<std::string, int64_t>{{"data type: bf16", 2},
                                                        {"data type: u8:s8:u8", 2},
                                                        {"data type: f32:bf16:f32", 2},
                                                        {"data type: u8:s8:s8", 1}}));
  EXPECT_EQ(r.tally.imported + r.tally.SkippedTotal(), r.tally.read);
}

TEST(BenchdnnOptions, MbAlgAndResetChangeTheProblemsThatFollow) {
  const BenchdnnImport r = Import(
      "--mb=16 --alg=WINO ic4ih5oc4kh3\n--alg=auto --mb=0 mb3ic4ih5oc4kh3\n--reset ic4ih5oc4kh3\n");
  EXPECT_EQ(Cases(r), (std::vector<std::string>{"any 2d_mb16_ic4_oc4_i5x5_k3x3_b winograd",
                                                "any 2d_mb3_ic4_oc4_i5x5_k3x3_b auto",
                                                "any 2d_mb2_ic4_oc4_i5x5_k3x3_b"}));
}

TEST(BenchdnnOptions, MatchFiltersOnTheReproducerLineAsBenchdnnPrintsIt) {
  // A POSIX basic regular expression searched in "--conv [options] <short form>".
  const BenchdnnImport r = Import(
      "--match=.*kh3[^0-9].* ic4ih5oc4kh3 ic4ih5oc4kh1 ic4ih5iw6oc4kh3kw3 ic4ih40oc4kh31\n"
      "--match=fc6 ic4ih5oc4kh1n\"ssd:fc6\" ic4ih5oc4kh1n\"ssd:fc7\"\n"
      "--dir=BWD_D --match=^--conv.--dir=BWD_D.ic4ih5 ic4ih5oc4kh1\n"
      "--match= ic4ih5oc4kh1\n");
  std::vector<std::string> kept;
  for (const BenchdnnProblem& b : r.problems) kept.push_back(b.descriptor);
  EXPECT_EQ(kept,
            (std::vector<std::string>{"ic4ih5oc4kh3", "ic4ih5iw6oc4kh3kw3",
                                      "ic4ih5oc4kh1n\"ssd:fc6\"", "ic4ih5oc4kh1", "ic4ih5oc4kh1"}));
  EXPECT_EQ(r.tally.skipped.at("--match: not matched by .*kh3[^0-9].*").count, 2);
  EXPECT_EQ(r.tally.skipped.at("--match: not matched by fc6").count, 1);
  EXPECT_NE(ImportError("--match=\\(a\\)\\1 ic4ih5oc4kh3").find("back-references"),
            std::string::npos);
  EXPECT_NE(ImportError("--match=a\\{100\\}\\{100\\} ic4ih5oc4kh3").find("repetition"),
            std::string::npos);
  EXPECT_NE(ImportError("--match=a\\{1 ic4ih5oc4kh3").find("t:1: --match='a\\{1': "),
            std::string::npos)
      << ImportError("--match=a\\{1 ic4ih5oc4kh3");
}

TEST(BenchdnnOptions, OptionsThatDoNotChangeTheConvolutionAreCountedOncePerOption) {
  Result<BenchdnnImport> r = ImportBenchdnnFile((DataDir() / "conv/test_options").string());
  ASSERT_TRUE(r.ok()) << r.status().message();
  std::map<std::string, int64_t> ignored;
  for (const auto& [option, e] : r->tally.ignored) ignored[option] = e.count;
  EXPECT_EQ(ignored, (std::map<std::string, int64_t>{{"--allow-enum-tags-only", 1},
                                                     {"--attr-post-ops", 1},
                                                     {"--attr-scales", 1},
                                                     {"--skip-impl", 1},
                                                     {"--verbose", 1}}));
  const TallyEntry& post_ops = r->tally.ignored.at("--attr-post-ops");
  EXPECT_NE(post_ops.where.find("test_options:3"), std::string::npos) << post_ops.where;
  EXPECT_EQ(post_ops.what, "post-ops act on the result (a fused depthwise convolution too)");
  EXPECT_EQ(Cases(*r),
            (std::vector<std::string>{
                "fwd 2d_mb2_ic4_oc4_i5x5_k3x3_b", "any 2d_mb2_ic4_oc4_i5x5_k3x3_nhwc_hwio_b",
                "any 2d_mb2_ic4_oc4_i5x5_k3x3_b", "any 2d_mb2_ic4_oc4_i5x5_k3x3_nhwc_b",
                "any 2d_mb2_ic4_oc4_i5x5_k3x3_b winograd", "any 2d_mb2_ic4_oc4_i5x5_k1x1_b"}));
  EXPECT_EQ(Skipped(*r),
            (std::map<std::string, int64_t>{{"data type: bf16", 1},
                                            {"layout: blocked source tag aBx16b", 1},
                                            {"--match: not matched by .*kh1[^0-9].*", 1}}));
}

TEST(BenchdnnOptions, MalformedOrUnknownOptionsAreErrorsNamingFileAndLine) {
  struct Bad {
    const char* text;
    const char* says;
  } cases[] = {
      {"ic4ih5oc4kh3\n--no-such-option=1", "t:2: unknown option '--no-such-option=1'"},
      {"--dir", "t:1: unknown option '--dir'"},
      {"--dir=SIDEWAYS", "t:1: --dir='SIDEWAYS': unknown direction 'SIDEWAYS'"},
      {"--dir=FWD_B,", "--dir='FWD_B,': an empty value in the list"},
      {"--dt=f32:f32", "expected one type or three"},
      {"--dt=f32::f32", "expected one type or three"},
      {"--cfg=f33", "unknown configuration 'f33'"},
      {"--alg=fft", "unknown algorithm 'fft'"},
      {"--mb=-1", "minibatch '-1'"},
      {"--mb=2000000000", "minibatch '2000000000'"},
      {"--stag=a-b", "malformed format tag 'a-b'"},
      {"--strides=1x2", "expected SRC:WEI:DST"},
      {"--strides=1xx2::", "expected SRC:WEI:DST"},
      {"-x", "options start with '--'"},
      {"--batch=", "t:1: --batch= names no file"},
  };
  for (const Bad& bad : cases) {
    const std::string error = ImportError(bad.text);
    EXPECT_NE(error.find(bad.says), std::string::npos) << bad.text << ": " << error;
  }
  std::string long_list = "--dt=f32";
  for (int i = 0; i < 1000; ++i) long_list += ",f32";
  EXPECT_NE(ImportError(long_list).find("more than 1000 values"), std::string::npos);
}

// The layouts a run's formats give for a 2-D problem (g given or not).
std::string Layouts(const std::string& options, bool transposed = false, bool grouped = false) {
  BenchdnnSettings settings;
  for (size_t begin = 0; begin < options.size();) {
    size_t end = options.find(' ', begin);
    if (end == std::string::npos) end = options.size();
    EXPECT_TRUE(settings.Apply(options.substr(begin, end - begin)).ok()) << options;
    begin = end + 1;
  }
  ConvProblem p;
  p.rank = 2, p.batch = 2, p.in_channels = 4, p.out_channels = 6, p.groups = grouped ? 2 : 1;
  p.input = {5, 7, 1}, p.kernel = {3, 2, 1}, p.transposed = transposed;
  std::string out;
  settings.ForEachRun([&](const BenchdnnRun& run) {
    const BenchdnnLayouts l = LayoutsFor(run, p, grouped);
    if (!out.empty()) out += " | ";
    if (!l.reason.empty()) {
      out += l.reason;
      return;
    }
    for (DataLayout d : l.data) out += DataLayoutName(d, 2) + " ";
    out += WeightLayoutName(l.weight, 2);
  });
  return out;
}

TEST(BenchdnnOptions, FormatTagsAndStridesBecomeLayouts) {
  EXPECT_EQ(Layouts(""), "nchw oihw");
  EXPECT_EQ(Layouts("", true), "nchw iohw");
  EXPECT_EQ(Layouts("--stag=any"), "nchw nhwc oihw");  // `any`: the library's choice, both
  EXPECT_EQ(Layouts("--stag=axb,abx,acdb,nhwc,abcd --dtag=any"),
            "nhwc oihw | nchw oihw | nhwc oihw | nhwc oihw | nchw oihw");
  EXPECT_EQ(Layouts("--stag=axb --dtag=abx"),
            "the source and destination formats differ (axb, abx): one data layout only");
  EXPECT_EQ(Layouts("--dtag=axb"), "nhwc oihw");
  EXPECT_EQ(Layouts("--stag=aBx16b,acbd,abcde,nChw8c,undef"),
            "blocked source tag aBx16b | source tag acbd is an order we cannot express "
            "(channels-first or -last only) | source tag abcde does not fit a 4-axis tensor | "
            "blocked source tag nChw8c | source tag undef (no memory)");
  // Weights: a = O, b = I (the operator's own), x the kernel; with g given, a = G, b = O, c = I.
  EXPECT_EQ(Layouts("--wtag=abx,bax,xba,axb,oihw,hwio,ohwi,iohw"),
            "nchw oihw | nchw iohw | nchw hwio | nchw ohwi | nchw oihw | nchw hwio | nchw ohwi | "
            "nchw iohw");
  EXPECT_EQ(Layouts("--wtag=abx,xba,bax", true), "nchw oihw | nchw hwio | nchw iohw");
  // x stands for the letters after the last one named: xcab without groups is dcab (W H O I).
  EXPECT_EQ(Layouts("--wtag=xcab"),
            "weights tag xcab is an order we cannot express (oi…, io…, …io, o…i)");
  EXPECT_EQ(Layouts("--wtag=abx,xcab,goihw,abxc,cabx,xba", false, true),
            "nchw oihw | nchw hwio | nchw oihw | nchw ohwi | nchw iohw | "
            "weights tag xba is an order we cannot express (oi…, io…, …io, o…i)");
  EXPECT_EQ(Layouts("--wtag=acbx,bacx,xacb,bxac", true, true),
            "nchw iohw | nchw oihw | nchw hwio | nchw ohwi");
  EXPECT_EQ(Layouts("--wtag=oihw", false, true), "weights tag oihw does not fit a 5-axis tensor");
  EXPECT_EQ(Layouts("--wtag=goihw"), "weights tag goihw does not name this problem's axes");
  // Strides: dense channels-first or -last data, dense weights; padded memory is declined.
  // Source (2, 4, 5, 7), destination (2, 6, 3, 6), weights (6, 4, 3, 2).
  EXPECT_EQ(Layouts("--strides=140x1x28x4::108x1x36x6"), "nhwc oihw");
  EXPECT_EQ(Layouts("--strides=140x35x7x1::"), "nchw oihw");
  EXPECT_EQ(Layouts("--strides=:1x6x48x24:"), "nchw hwio");
  EXPECT_EQ(Layouts("--strides=9600x1x480x48::"),
            "source strides 9600x1x480x48 are not dense in a layout we have (padded memory)");
  EXPECT_EQ(Layouts("--strides=140x1x28x4::108x18x6x1"),
            "the source and destination formats differ (140x1x28x4, 108x18x6x1): one data "
            "layout only");
  EXPECT_EQ(Layouts("--stag=axb --strides=140x1x28x4::"), "source has both a tag and strides");
  EXPECT_EQ(Layouts("--strides=1x2x3::"), "source strides 1x2x3 do not fit a 4-axis tensor");
}

}  // namespace
}  // namespace convparity
