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
#include "tests/harness/io/benchdnn_test_support.h"

namespace convparity {
namespace {

namespace fs = std::filesystem;
using benchdnn_test::SharedDir;

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
  ImportTally tally;
  for (const fs::path& file : BenchdnnFiles()) {
    Result<BenchdnnImport> r = ImportBenchdnnFile(file.string());
    EXPECT_TRUE(r.ok()) << r.status().message();
    if (!r.ok()) continue;
    // Every line with content holds one descriptor, imported or skipped, and nothing is ignored.
    EXPECT_EQ(r->tally.read, static_cast<int64_t>(ContentLines(*ReadFile(file.string())).size()))
        << file;
    EXPECT_EQ(r->tally.read, r->tally.imported + r->tally.SkippedTotal()) << file;
    EXPECT_TRUE(r->tally.ignored.empty()) << file;
    std::set<int> lines;
    for (const BenchdnnProblem& b : r->problems) EXPECT_TRUE(lines.insert(b.line).second) << file;
    tally.Merge(r->tally);
    if (print)
      std::printf("  %-40s %3zu imported, %lld skipped\n",
                  (file.parent_path().filename() / file.filename()).c_str(), r->problems.size(),
                  static_cast<long long>(r->tally.SkippedTotal()));
    all.insert(all.end(), r->problems.begin(), r->problems.end());
  }
  if (print) {
    std::printf("benchdnn import: %zu problems imported, %lld lines skipped\n", all.size(),
                static_cast<long long>(tally.SkippedTotal()));
    for (const auto& [reason, e] : tally.skipped)
      std::printf("  %4lld × %s\n", static_cast<long long>(e.count), reason.c_str());
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
  seeds.push_back(*ReadFile((benchdnn_test::DataDir() / "conv/test_options").string()));
  seeds.push_back(
      "--reset --dir=FWD_B,BWD_D --dt=f32,bf16 --mb=1,\\\n  2 --stag=any,axb --wtag=xba "
      "--alg=wino --strides=140x1x28x4:: --match=.*kh3.* --attr-post-ops=relu ic4ih5oc4kh3\n");
  Prng rng(20261122);
  const std::string alphabet = "gmbicoidhwkspdn_\"#0123456789 \n-\xff\x00\\=,:";
  ImportOptions options;
  options.limits.max_depth = 1;  // no includes: random text names no files to read
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
    options.deconv = rng.Below(2) == 1;
    Result<BenchdnnImport> r = ParseBenchdnnText(text, "fuzz", options);
    if (!r.ok()) {
      ++errors;
      EXPECT_EQ(r.status().message().rfind("fuzz:", 0), 0u) << r.status().message();
      EXPECT_EQ(r.status().message().find('\n'), std::string::npos) << r.status().message();
      continue;
    }
    ++ok;
    EXPECT_EQ(r->tally.read, r->tally.imported + r->tally.SkippedTotal());
    for (const BenchdnnProblem& b : r->problems) {
      ASSERT_TRUE(Validate(b.problem).ok()) << b.descriptor;
      ExpectCharacterKept(b.problem, ScaleDown(b.problem, {1, 4, 5000}), {1, 4, 5000});
    }
  }
  std::printf("  hostile text: %d parsed, %d errors\n", ok, errors);
  EXPECT_GT(ok, 300);
  EXPECT_GT(errors, 300);
  // Size limits are checked before anything is kept.
  EXPECT_EQ(ParseBenchdnnText(std::string((16 << 20) + 1, '\n')).status().code(),
            StatusCode::kLimit);
  std::string mbs = "1", dts = "f32", tags = "any";
  for (int i = 2; i <= 1000; ++i) mbs += "," + std::to_string(i), dts += ",f32", tags += ",any";
  Result<BenchdnnImport> product =
      ParseBenchdnnText("--mb=" + mbs + " --dt=" + dts + " --stag=" + tags + " ic4ih5oc4kh3");
  ASSERT_FALSE(product.ok());
  EXPECT_EQ(product.status().code(), StatusCode::kLimit);  // 10^9 runs, refused before any
  EXPECT_NE(product.status().message().find("benchdnn problems in all"), std::string::npos);
  ImportOptions few;
  few.max_problems = 1000;
  std::string many;
  for (int i = 0; i < 1001; ++i) many += "ic4ih5oc4kh3\n";
  EXPECT_EQ(ParseBenchdnnText(many, "t", few).status().code(), StatusCode::kLimit);
}

TEST(BenchdnnImport, WritesOneCaseFilePerProblemDirectionAndFillWithItsOrigin) {
  ImportOptions options;
  options.deconv = false;
  Result<BenchdnnImport> r = ParseBenchdnnText(
      "ic4oc4ih5kh3n\"a\"\nmb1g2ic2oc2iw3kw3sw2n\"b\"\n--dir=BWD_D --alg=wino ic4oc4ih5kh3n\"c\"\n",
      "list/conv/f", options);
  ASSERT_TRUE(r.ok()) << r.status().message();
  const fs::path dir =
      fs::temp_directory_path() / ("benchdnn_import_test_" + std::to_string(::getpid()));
  fs::remove_all(dir);
  std::vector<BenchdnnProblem> problems = r->problems;
  problems.push_back(problems.front());  // the same case twice: one file
  Result<WrittenCases> n =
      WriteImportedCases(problems, {Direction::kForward, Direction::kBackwardWeight},
                         {Fill::kExact, Fill::kUniform}, "direct", dir.string(), 7);
  ASSERT_TRUE(n.ok()) << n.status().message();
  EXPECT_EQ(n->written, 2 * 2 + 2 * 2 + 1 * 2 + 2 * 2);  // "c" has its own direction
  EXPECT_EQ(n->distinct, 10);
  std::map<std::string, std::string> origins;  // note → origin
  int files = 0;
  for (const auto& entry : fs::directory_iterator(dir)) {
    Result<ConvCase> c = ParseCaseText(*ReadFile(entry.path().string()));
    ASSERT_TRUE(c.ok()) << c.status().message();
    EXPECT_EQ(c->sut, "direct");
    EXPECT_EQ(c->seed, 7u);
    origins[c->note] = OriginToJson(c->origin).dump();
    if (c->note[0] == 'c') {
      EXPECT_EQ(c->direction, Direction::kBackwardData);
      EXPECT_EQ(c->algorithm, Algorithm::kWinograd);
    } else {
      EXPECT_EQ(c->algorithm, Algorithm::kDirect);
    }
    ++files;
  }
  EXPECT_EQ(files, 10);
  EXPECT_EQ(
      origins,
      (std::map<std::string, std::string>{
          {"a (list/conv/f:1)",
           R"({"file":"list/conv/f","format":"benchdnn","line":1,"name":"a","repro":"--conv ic4oc4ih5kh3n\"a\""})"},
          {"b (list/conv/f:2)",
           R"({"file":"list/conv/f","format":"benchdnn","line":2,"name":"b","repro":"--conv mb1g2ic2oc2iw3kw3sw2n\"b\""})"},
          {"c (list/conv/f:3)",
           R"({"file":"list/conv/f","format":"benchdnn","line":3,"name":"c","repro":"--conv --dir=BWD_D --alg=wino ic4oc4ih5kh3n\"c\""})"}}));
  fs::remove_all(dir);
}

// The cases of a folder, keyed by what makes them the same problem: descriptor (direction
// included), fill, SUT, seed, and the note with its path cut to benchdnn/….
std::set<std::string> CaseKeys(const fs::path& dir) {
  std::set<std::string> keys;
  for (const auto& entry : fs::directory_iterator(dir)) {
    Result<ConvCase> c = ParseCaseText(*ReadFile(entry.path().string()));
    EXPECT_TRUE(c.ok()) << entry.path() << ": " << c.status().message();
    if (!c.ok()) continue;
    std::string note = c->note;
    const size_t at = note.rfind("benchdnn/");  // a folder above may be named like it too
    if (at != std::string::npos) note = note.substr(0, note.rfind('(', at) + 1) + note.substr(at);
    keys.insert(CaseDescriptor(c->problem, c->direction) + " " + FillName(c->fill) + " " + c->sut +
                " " + std::to_string(c->seed) + " " + note);
  }
  return keys;
}

// corpus/regression/benchdnn/ was written by the reader before it honoured the batch language
// (scripts/make_regression_corpus.sh); the shared lists hold no options, so today's reader must
// write the same cases, apart from the origin they now carry.
TEST(BenchdnnImport, SharedListsImportToTheSameCasesAsTheRegressionCorpusHolds) {
  const fs::path corpus = benchdnn_test::SourceDir() / "corpus/regression/benchdnn";
  ASSERT_TRUE(fs::is_directory(corpus)) << corpus;
  const fs::path dir = fs::temp_directory_path() / ("benchdnn_same_" + std::to_string(::getpid()));
  fs::remove_all(dir);
  ImportOptions options;
  options.scale = {2, 6, 20000};  // make_regression_corpus.sh's flags
  std::vector<BenchdnnProblem> problems;
  for (const fs::path& file : BenchdnnFiles()) {
    Result<BenchdnnImport> r = ImportBenchdnnFile(file.string(), options);
    ASSERT_TRUE(r.ok()) << r.status().message();
    problems.insert(problems.end(), r->problems.begin(), r->problems.end());
  }
  Result<WrittenCases> n = WriteImportedCases(
      problems, AllDirections(), {Fill::kExact, Fill::kUniform}, "direct", dir.string(), 1);
  ASSERT_TRUE(n.ok()) << n.status().message();
  const std::set<std::string> now = CaseKeys(dir), before = CaseKeys(corpus);
  std::printf("  %zu cases now, %zu in corpus/regression/benchdnn\n", now.size(), before.size());
  EXPECT_GT(before.size(), 4000u);
  EXPECT_EQ(now, before);
  fs::remove_all(dir);
}

}  // namespace
}  // namespace convparity
