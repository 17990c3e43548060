// benchdnn import: known lines give the expected problems; every line of every shared problem list
// imports to a valid problem whose output sizes are the ones benchdnn states, or is skipped with a
// reason; ScaleDown keeps validity and character; hostile text gives errors, never crashes.
#include "harness/io/benchdnn_import.h"

#include <gtest/gtest.h>
#include <rapidcheck.h>
#include <rapidcheck/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <regex>
#include <set>

#include "core/descriptor.h"
#include "core/prng.h"
#include "generators/problem_gen.h"
#include "harness/io/files.h"

namespace convparity {
namespace {

namespace fs = std::filesystem;

// ctest sets CONVPARITY_SHARED; a test binary run by hand finds the folder beside the sources.
fs::path SharedDir() {
  if (const char* env = std::getenv("CONVPARITY_SHARED")) return env;
  return fs::path(__FILE__).parent_path() / "../../../shared";
}

std::vector<fs::path> BenchdnnFiles() {
  std::vector<fs::path> files;
  for (const char* kind : {"conv", "deconv"}) {
    const fs::path dir = SharedDir() / "benchdnn" / kind;
    if (!fs::is_directory(dir)) continue;
    for (const auto& entry : fs::directory_iterator(dir))
      if (entry.is_regular_file()) files.push_back(entry.path());
  }
  std::sort(files.begin(), files.end());
  return files;
}

BenchdnnProblem ParseOne(const std::string& line, bool deconv) {
  std::vector<std::string> skipped;
  Result<std::vector<BenchdnnProblem>> r = ParseBenchdnnText(line, deconv, &skipped);
  EXPECT_TRUE(r.ok()) << r.status().message();
  EXPECT_TRUE(skipped.empty()) << skipped.front();
  EXPECT_EQ(r.ok() ? r->size() : 0u, 1u) << line;
  return r.ok() && r->size() == 1 ? r->front() : BenchdnnProblem{};
}

// Unused trailing dimensions keep ConvProblem's defaults: 1 for sizes, 0 for paddings.
Dims D(int64_t a, int64_t b = 1, int64_t c = 1) { return {a, b, c}; }
Dims P(int64_t a, int64_t b = 0, int64_t c = 0) { return {a, b, c}; }

TEST(BenchdnnImport, ResnetLineWithDefaultsIsA2dConvolution) {
  const BenchdnnProblem b =
      ParseOne("mb50ic64ih56oc256oh56kh1ph0n\"resnet_50:res2a_branch1*4\"", false);
  ConvProblem want;
  want.rank = 2, want.batch = 50, want.in_channels = 64, want.out_channels = 256, want.bias = true;
  want.input = D(56, 56), want.kernel = D(1, 1);
  EXPECT_EQ(b.problem, want) << ProblemDescriptor(b.problem);
  EXPECT_EQ(b.name, "resnet_50:res2a_branch1*4");
  EXPECT_EQ(b.line, 1);
}

TEST(BenchdnnImport, DeconvLineIsTransposedWithItsOwnChannels) {
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

TEST(BenchdnnImport, DeconvOutputBeyondThePaddingBecomesOutputPaddingWhenLegal) {
  // (3−1)·2 + 3 − 1 = 6 with padding 1 on both sides; 7 needs end padding −1 → output_padding 1.
  const ConvProblem p = ParseOne("ic4oc4ih3oh7kh3sh2ph1", true).problem;
  EXPECT_EQ(p.pad_begin, P(1, 1));
  EXPECT_EQ(p.pad_end, P(0, 0));
  EXPECT_EQ(p.output_padding, P(1, 1));
  EXPECT_EQ(p.output(), D(7, 7));
  // 9 would need output_padding 3 ≥ stride 2: unsupported, skipped with the reason.
  std::vector<std::string> skipped;
  Result<std::vector<BenchdnnProblem>> r =
      ParseBenchdnnText("ic4oc4ih3oh9kh3sh2ph1\n", true, &skipped, "x/deconv/f");
  ASSERT_TRUE(r.ok());
  EXPECT_TRUE(r->empty());
  ASSERT_EQ(skipped.size(), 1u);
  EXPECT_NE(skipped[0].find("x/deconv/f:1:"), std::string::npos) << skipped[0];
  EXPECT_NE(skipped[0].find("output_padding 3"), std::string::npos) << skipped[0];
}

TEST(BenchdnnImport, ThreeDimensionalLinesGiveEachAxisOrCopyDepthIntoACube) {
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

TEST(BenchdnnImport, OneDimensionalLineUsesW) {
  const ConvProblem p = ParseOne("g1mb50ic256iw56oc512ow28kw1sw2pw0n\"conv1d:3\"", false).problem;
  EXPECT_EQ(p.rank, 1);
  EXPECT_EQ(p.input[0], 56);
  EXPECT_EQ(p.stride[0], 2);
  // (28−1)·2 − 56 + 1 = −1: the last input row is never read; padding 0 says the same.
  EXPECT_EQ(p.pad_end[0], 0);
  EXPECT_EQ(p.output()[0], 28);
}

TEST(BenchdnnImport, DilationIsZeroBasedInBenchdnn) {
  const ConvProblem p = ParseOne("mb20ic4ih8oc6oh3kh3sh2ph1dh1n\"dilated_conv:1\"", false).problem;
  EXPECT_EQ(p.dilation, D(2, 2));  // dh1 = one gap = PyTorch dilation 2; w copies h
  EXPECT_EQ(p.output(), D(3, 3));
  EXPECT_EQ(ParseOne("ic1oc1ih5kh3dh0", false).problem.dilation, D(1, 1));
}

TEST(BenchdnnImport, ExplicitOutputSizesGiveAsymmetricEndPadding) {
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

TEST(BenchdnnImport, OptionsCommentsAndSeveralProblemsPerLine) {
  std::vector<std::string> skipped;
  const std::string text =
      "# a comment\n\n--dir=BWD_D ic2oc2ih4kh3 ic3oc3iw5kw2 # trailing comment kh9\r\n"
      "  ic4oc4id3kd1\n";
  Result<std::vector<BenchdnnProblem>> r = ParseBenchdnnText(text, false, &skipped, "f");
  ASSERT_TRUE(r.ok()) << r.status().message();
  ASSERT_EQ(r->size(), 3u);
  EXPECT_EQ((*r)[0].line, 3);
  EXPECT_EQ((*r)[1].problem.rank, 1);
  EXPECT_EQ((*r)[2].line, 4);
  ASSERT_EQ(skipped.size(), 1u);
  EXPECT_EQ(skipped[0].rfind("f:3: option '--dir=BWD_D'", 0), 0u) << skipped[0];
}

TEST(BenchdnnImport, LinesBenchdnnRejectsAreSkippedWithReasons) {
  for (const char* line : {"oc4ih5kh3", "ic4oc4ih5", "ic4oc4kh3", "g0ic4oc4ih5kh3", "ic4oc4ih2kh5",
                           "ic4oc4id5kd3ih5kh3", "ic3oc4g2ih5kh3", "ic4oc4ih5kh3sh0",
                           "ic4oc4n\"no spatial\"", "ic4oc4ih8oh2kh3ph0"}) {
    std::vector<std::string> skipped;
    Result<std::vector<BenchdnnProblem>> r = ParseBenchdnnText(line, false, &skipped);
    ASSERT_TRUE(r.ok()) << line << ": " << r.status().message();
    EXPECT_TRUE(r->empty()) << line;
    ASSERT_EQ(skipped.size(), 1u) << line;
    std::printf("  skipped: %s\n", skipped[0].c_str());
  }
}

TEST(BenchdnnImport, MalformedTextIsAnErrorNamingLineAndToken) {
  struct Bad {
    const char* text;
    const char* says;
  } cases[] = {{"ic4oc4\nih5kh3qq7", "<text>:2: descriptor 'ih5kh3qq7': unknown entry at 'qq7'"},
               {"ic4oc4ih", "expected a number after 'ih'"},
               {"ic4oc4ih-5kh3", "expected a number after 'ih'"},
               {"ic4oc4ih1073741825kh3", "the value of 'ih' is over 2^30"},
               {"ic4oc4ih99999999999999999999999kh3", "over 2^30"},
               {"ic4oc4ih5kh3n\"open", "unterminated quote"},
               {"ic4\xff", "unknown entry at '\\xff'"}};
  for (const Bad& bad : cases) {
    Result<std::vector<BenchdnnProblem>> r = ParseBenchdnnText(bad.text, false, nullptr);
    ASSERT_FALSE(r.ok()) << bad.text;
    EXPECT_EQ(r.status().code(), StatusCode::kInvalid);
    EXPECT_NE(r.status().message().find(bad.says), std::string::npos) << r.status().message();
  }
  EXPECT_TRUE(ParseBenchdnnText("ic4oc4ih1073741824kh3", false, nullptr).ok());  // 2^30 itself
}

TEST(BenchdnnImport, DeconvIsToldByItsDirectory) {
  EXPECT_TRUE(IsBenchdnnDeconvPath("/work/shared/benchdnn/deconv/shapes_2d"));
  EXPECT_TRUE(IsBenchdnnDeconvPath("deconv/x"));
  EXPECT_FALSE(IsBenchdnnDeconvPath("/work/shared/benchdnn/conv/shapes_deconv"));
  EXPECT_FALSE(IsBenchdnnDeconvPath("deconv"));
  EXPECT_FALSE(IsBenchdnnDeconvPath("/a/deconvolutions/x"));
}

// The descriptor's own output sizes, read independently of the parser: o<axis><n> before the name.
std::map<char, int64_t> StatedOutputs(const std::string& descriptor) {
  const std::string sizes = descriptor.substr(0, descriptor.find('n'));
  std::map<char, int64_t> out;
  static const std::regex kOutput("o([dhw])([0-9]+)");
  for (std::sregex_iterator it(sizes.begin(), sizes.end(), kOutput), end; it != end; ++it)
    out[(*it)[1].str()[0]] = std::stoll((*it)[2].str());
  return out;
}

// The axes a descriptor names any size of.
std::set<char> MentionedAxes(const std::string& descriptor) {
  const std::string sizes = descriptor.substr(0, descriptor.find('n'));
  std::set<char> axes;
  static const std::regex kKey("[ioksp]([dhw])[0-9]|d([dhw])[0-9]");
  for (std::sregex_iterator it(sizes.begin(), sizes.end(), kKey), end; it != end; ++it)
    axes.insert((*it)[1].matched ? (*it)[1].str()[0] : (*it)[2].str()[0]);
  return axes;
}

// Lines with a problem: not blank and not only a comment.
std::set<int> ContentLines(const std::string& text) {
  std::set<int> lines;
  int n = 0;
  for (size_t begin = 0; begin < text.size();) {
    const size_t end = std::min(text.find('\n', begin), text.size());
    std::string line = text.substr(begin, end - begin);
    line = line.substr(0, line.find('#'));
    ++n;
    if (line.find_first_not_of(" \t\r") != std::string::npos) lines.insert(n);
    begin = end + 1;
  }
  return lines;
}

std::vector<BenchdnnProblem> ImportAll(bool print) {
  std::vector<BenchdnnProblem> all;
  std::map<std::string, int> reasons;
  size_t skipped_total = 0;
  for (const fs::path& file : BenchdnnFiles()) {
    std::vector<std::string> skipped;
    Result<std::vector<BenchdnnProblem>> r = ImportBenchdnnFile(file.string(), &skipped);
    EXPECT_TRUE(r.ok()) << r.status().message();
    if (!r.ok()) continue;
    // Every line with content is imported or skipped.
    std::set<int> accounted;
    for (const BenchdnnProblem& b : *r) accounted.insert(b.line);
    for (const std::string& s : skipped) {
      accounted.insert(std::stoi(s.substr(file.string().size() + 1)));  // "file:line: …"
      // "file:line: 'token': reason" → the reason, numbers dropped, for the tally.
      const size_t reason = s.find("': ");
      ++reasons[reason == std::string::npos
                    ? "option ignored"
                    : std::regex_replace(s.substr(reason + 3), std::regex("[0-9]+"), "N")];
    }
    EXPECT_EQ(accounted, ContentLines(*ReadFile(file.string()))) << file;
    skipped_total += skipped.size();
    if (print)
      std::printf("  %-40s %3zu imported, %zu skipped\n",
                  (file.parent_path().filename() / file.filename()).c_str(), r->size(),
                  skipped.size());
    all.insert(all.end(), r->begin(), r->end());
  }
  if (print) {
    std::printf("benchdnn import: %zu problems imported, %zu lines skipped\n", all.size(),
                skipped_total);
    for (const auto& [reason, n] : reasons) std::printf("  %4d × %s\n", n, reason.c_str());
  }
  return all;
}

TEST(BenchdnnImport, EverySharedLineImportsValidlyWithItsStatedOutputOrIsSkipped) {
  const std::vector<BenchdnnProblem> all = ImportAll(/*print=*/true);
  ASSERT_GT(all.size(), 600u) << "shared benchdnn lists not found under " << SharedDir();
  int transposed = 0, asymmetric = 0, output_padding = 0;
  for (const BenchdnnProblem& b : all) {
    const ConvProblem& p = b.problem;
    ASSERT_TRUE(Validate(p).ok()) << b.source << ":" << b.line << ": " << Validate(p).message();
    EXPECT_EQ(p.transposed, b.source.find("/deconv/") != std::string::npos);
    const Dims out = p.output();
    const char* axes = p.rank == 3 ? "dhw" : p.rank == 2 ? "hw" : "w";
    const std::map<char, int64_t> stated = StatedOutputs(b.descriptor);
    const std::set<char> mentioned = MentionedAxes(b.descriptor);
    for (int j = 0; j < p.rank; ++j) {
      auto it = stated.find(axes[j]);
      if (p.rank == 2 && j == 1 && !mentioned.count('w')) it = stated.find('h');  // w copies h
      if (p.rank == 3 && j > 0 && !mentioned.count('h') && !mentioned.count('w'))
        it = stated.find('d');  // a cube
      if (it != stated.end()) {
        EXPECT_EQ(out[j], it->second) << b.source << ":" << b.line << " " << axes[j];
      }
      asymmetric += p.pad_begin[j] != p.pad_end[j];
      output_padding += p.output_padding[j] > 0;
    }
    transposed += p.transposed;
  }
  std::printf("  %d transposed, %d asymmetric axes, %d axes with output_padding\n", transposed,
              asymmetric, output_padding);
  EXPECT_GT(transposed, 100);
  EXPECT_GT(asymmetric, 10);
}

// The character ScaleDown promises to keep (benchdnn_import.h).
void ExpectCharacterKept(const ConvProblem& o, const ConvProblem& s, const ScaleOptions& opt) {
  const std::string what = ProblemDescriptor(o) + " → " + ProblemDescriptor(s);
  ASSERT_TRUE(Validate(s).ok()) << what << ": " << Validate(s).message();
  ConvProblem same = s;  // everything but batch, channels, groups and input sizes is unchanged
  same.batch = o.batch, same.in_channels = o.in_channels, same.out_channels = o.out_channels;
  same.groups = o.groups, same.input = o.input;
  EXPECT_EQ(same, o) << what;
  EXPECT_LE(s.batch, o.batch) << what;
  EXPECT_LE(s.in_channels, o.in_channels) << what;
  EXPECT_LE(s.out_channels, o.out_channels) << what;
  if (opt.max_batch > 0) {
    EXPECT_LE(s.batch, opt.max_batch) << what;
  }
  EXPECT_EQ(s.groups > 1, o.groups > 1) << what;
  EXPECT_EQ(s.depthwise(), o.depthwise()) << what;
  const int64_t a0 = o.in_channels / o.groups, b0 = o.out_channels / o.groups;
  const int64_t a = s.in_channels / s.groups, b = s.out_channels / s.groups;
  EXPECT_EQ(a == 1, a0 == 1) << what;
  EXPECT_EQ(b == 1, b0 == 1) << what;
  EXPECT_EQ((a > b) - (a < b), (a0 > b0) - (a0 < b0)) << what;
  const Dims out0 = o.output(), out = s.output();
  for (int j = 0; j < o.rank; ++j) {
    EXPECT_LE(s.input[j], o.input[j]) << what;
    if (!o.transposed) {
      EXPECT_EQ(s.input[j] % o.stride[j], o.input[j] % o.stride[j]) << what;
    }
    if (out0[j] == 1) {
      EXPECT_EQ(out[j], 1) << what;
    }
  }
  // A budget is met, or nothing more can be shrunk.
  if (opt.max_macs > 0 && s.macs() > opt.max_macs) {
    EXPECT_EQ(ScaleDown(s, opt), s) << what;
  }
}

TEST(BenchdnnImport, ScaleDownKeepsValidityAndCharacterOfEveryImportedProblem) {
  const std::vector<BenchdnnProblem> all = ImportAll(/*print=*/false);
  const ScaleOptions options[] = {{2, 16, 200000}, {1, 8, 20000}, {0, 0, 200000},
                                  {4, 0, 0},       {0, 5, 0},     {1, 1, 1}};
  for (const ScaleOptions& opt : options) {
    int over_budget = 0;
    for (const BenchdnnProblem& b : all) {
      const ConvProblem s = ScaleDown(b.problem, opt);
      ExpectCharacterKept(b.problem, s, opt);
      over_budget += opt.max_macs > 0 && s.macs() > opt.max_macs;
      EXPECT_EQ(ScaleDown(s, opt), s) << "not idempotent: " << ProblemDescriptor(b.problem);
    }
    std::printf("  ScaleDown(mb %lld, spatial %lld, macs %lld): %d of %zu over the MAC budget\n",
                static_cast<long long>(opt.max_batch), static_cast<long long>(opt.max_spatial),
                static_cast<long long>(opt.max_macs), over_budget, all.size());
    if (opt.max_macs >= 20000) {
      EXPECT_LT(over_budget, 10);
    }
  }
}

RC_GTEST_PROP(BenchdnnImport, ScaleDownKeepsValidityAndCharacterOfGeneratedProblems, ()) {
  ProblemSpace space;
  space.max_macs = 2000000;
  const ConvProblem p = *GenProblem(space);
  ScaleOptions opt;
  opt.max_batch = *rc::gen::inRange<int64_t>(0, 4);
  opt.max_spatial = *rc::gen::inRange<int64_t>(0, 12);
  opt.max_macs = *rc::gen::element<int64_t>(0, 1, 500, 20000);
  ExpectCharacterKept(p, ScaleDown(p, opt), opt);
  RC_ASSERT(!::testing::Test::HasFailure());
}

TEST(BenchdnnImport, HostileTextGivesErrorsOrValidProblemsNeverACrash) {
  std::vector<std::string> seeds;
  for (const fs::path& file : BenchdnnFiles()) seeds.push_back(*ReadFile(file.string()));
  seeds.push_back("ic4oc4ih5kh3 mb1g2ic2oc2iw3kw3sw2dw1pw1ow3 ic1oc1id2kd2ih3kh1iw3kw2\n");
  Prng rng(20261122);
  const std::string alphabet = "gmbicoidhwkspdn_\"#0123456789 \n-\xff\x00";
  int ok = 0, errors = 0;
  for (int round = 0; round < 3000; ++round) {
    std::string text;
    switch (round % 4) {
      case 0:  // random bytes
        for (int i = rng.Between(0, 200); i > 0; --i) text += static_cast<char>(rng.Below(256));
        break;
      case 1:  // the format's own letters, shuffled
        for (int i = rng.Between(0, 200); i > 0; --i) text += alphabet[rng.Below(alphabet.size())];
        break;
      case 2: {  // a real list cut at a random byte (truncated tokens)
        const std::string& s = seeds[rng.Below(seeds.size())];
        text = s.substr(0, rng.Below(s.size() + 1));
        break;
      }
      default: {  // a real list with bytes changed and digits multiplied (huge numbers)
        text = seeds[rng.Below(seeds.size())];
        for (int i = rng.Between(1, 8); i > 0 && !text.empty(); --i) {
          const size_t at = rng.Below(text.size());
          if (rng.Below(2))
            text[at] = static_cast<char>(rng.Below(256));
          else
            text.insert(at,
                        std::string(rng.Between(1, 25), static_cast<char>('0' + rng.Below(10))));
        }
      }
    }
    const bool deconv = rng.Below(2) == 1;
    std::vector<std::string> skipped;
    Result<std::vector<BenchdnnProblem>> r = ParseBenchdnnText(text, deconv, &skipped, "fuzz");
    if (!r.ok()) {
      ++errors;
      EXPECT_EQ(r.status().message().rfind("fuzz:", 0), 0u) << r.status().message();
      continue;
    }
    ++ok;
    for (const BenchdnnProblem& b : *r) {
      ASSERT_TRUE(Validate(b.problem).ok()) << b.descriptor;
      ExpectCharacterKept(b.problem, ScaleDown(b.problem, {1, 4, 5000}), {1, 4, 5000});
    }
  }
  std::printf("  hostile text: %d parsed, %d errors\n", ok, errors);
  EXPECT_GT(ok, 300);
  EXPECT_GT(errors, 300);
  // Size limits are checked before anything is kept.
  EXPECT_EQ(ParseBenchdnnText(std::string((16 << 20) + 1, '\n'), false, nullptr).status().code(),
            StatusCode::kLimit);
  std::string many;
  for (int i = 0; i < 100001; ++i) many += "--x\n";
  EXPECT_EQ(ParseBenchdnnText(many, false, nullptr).status().code(), StatusCode::kLimit);
}

TEST(BenchdnnImport, WritesOneCaseFilePerProblemDirectionAndFill) {
  std::vector<std::string> skipped;
  Result<std::vector<BenchdnnProblem>> r = ParseBenchdnnText(
      "ic4oc4ih5kh3n\"a\"\nmb1g2ic2oc2iw3kw3sw2n\"b\"\n", false, &skipped, "list/conv/f");
  ASSERT_TRUE(r.ok());
  const fs::path dir =
      fs::temp_directory_path() / ("benchdnn_import_test_" + std::to_string(::getpid()));
  fs::remove_all(dir);
  Result<int> n = WriteImportedCases(*r, {Direction::kForward, Direction::kBackwardWeight},
                                     {Fill::kExact, Fill::kUniform}, "direct", dir.string(), 7);
  ASSERT_TRUE(n.ok()) << n.status().message();
  EXPECT_EQ(*n, 8);
  std::set<std::string> notes;
  int files = 0;
  for (const auto& entry : fs::directory_iterator(dir)) {
    Result<ConvCase> c = ParseCaseText(*ReadFile(entry.path().string()));
    ASSERT_TRUE(c.ok()) << c.status().message();
    EXPECT_EQ(c->sut, "direct");
    EXPECT_EQ(c->seed, 7u);
    notes.insert(c->note);
    ++files;
  }
  EXPECT_EQ(files, 8);
  EXPECT_EQ(notes, (std::set<std::string>{"a (list/conv/f:1)", "b (list/conv/f:2)"}));
  fs::remove_all(dir);
}

}  // namespace
}  // namespace convparity
