// benchdnn's batch language: tokens, comments, continuations, --batch includes (relative, nested,
// a cycle, a missing file, limits), and one option state across includes, on our own small batch
// files (tests/data/benchdnn/README.md).
#include "harness/io/benchdnn_batch.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <fstream>
#include <map>

#include "tests/harness/io/benchdnn_test_support.h"

namespace convparity {
namespace {

using benchdnn_test::DataDir;
namespace fs = std::filesystem;

std::vector<std::string> Texts(const std::string& batch) {
  Result<std::vector<BatchToken>> r = TokenizeBatch(batch, "t");
  EXPECT_TRUE(r.ok()) << r.status().message();
  std::vector<std::string> texts;
  if (r.ok())
    for (const BatchToken& t : *r) texts.push_back(t.text + "@" + std::to_string(t.line));
  return texts;
}

TEST(BenchdnnBatch, TokensCommentsAndContinuationsAsBenchdnnSplitsThem) {
  EXPECT_EQ(Texts("# a comment kh9\n\n--dir=BWD_D ic2 ic3 # trailing ic9\r\n\tic4\n"),
            (std::vector<std::string>{"--dir=BWD_D@3", "ic2@3", "ic3@3", "ic4@4"}));
  // '\' glues the next token on, without a space, across lines and comments.
  EXPECT_EQ(Texts("--attr-post-ops=, \\\n  sum:0.5, \\\n# note\n  relu\nic4"),
            (std::vector<std::string>{"--attr-post-ops=,sum:0.5,relu@1", "ic4@5"}));
  EXPECT_EQ(Texts("--dir=FWD_B,\\\nBWD_D ic4"),
            (std::vector<std::string>{"--dir=FWD_B,BWD_D@1", "ic4@2"}));
  // '#' starts a comment only at the start of a token.
  EXPECT_EQ(Texts("ic4#x ic5"), (std::vector<std::string>{"ic4#x@1", "ic5@1"}));
  EXPECT_EQ(Texts("ic4 \\"), (std::vector<std::string>{"ic4@1"}));  // nothing left to glue
  for (const char* bad : {"\\\nic4", "\\ ic4", "# c\n\\\nic4"}) {
    Result<std::vector<BatchToken>> r = TokenizeBatch(bad, "t");
    ASSERT_FALSE(r.ok()) << bad;
    EXPECT_NE(r.status().message().find("line continuation '\\' with nothing before it"),
              std::string::npos)
        << r.status().message();
  }
}

// The names and where they came from, in import order.
std::vector<std::string> Origins(const BenchdnnImport& r) {
  std::vector<std::string> out;
  for (const BenchdnnProblem& b : r.problems) {
    std::string via;
    for (const std::string& v : b.via) via += " < " + fs::path(v).filename().string();
    out.push_back(b.name + " @" + fs::path(b.source).filename().string() + ":" +
                  std::to_string(b.line) + via + " [" + b.options + "]");
  }
  return out;
}

BenchdnnImport ImportData(const std::string& file) {
  Result<BenchdnnImport> r = ImportBenchdnnFile((DataDir() / file).string());
  EXPECT_TRUE(r.ok()) << r.status().message();
  return r.ok() ? r.value() : BenchdnnImport{};
}

TEST(BenchdnnBatch, NestedIncludesAreReadInPlaceRelativeToTheIncludingFile) {
  const BenchdnnImport r = ImportData("conv/test_nested");
  EXPECT_EQ(
      Origins(r),
      (std::vector<std::string>{
          "more:1x1 @shapes_more:1 < test_nested:3 [--dir=BWD_D]",
          "small:2d @shapes_small:2 < test_nested:3 < shapes_more:2 [--dir=BWD_D]",
          "small:1d_grouped @shapes_small:3 < test_nested:3 < shapes_more:2 "
          "[--dir=BWD_D]",
          "small:3d @shapes_small:4 < test_nested:3 < shapes_more:2 [--dir=BWD_D]",
          // What the included file set stays set; --reset clears it.
          "nested:after @test_nested:5 [--dir=BWD_D --mb=1]", "nested:reset @test_nested:7 []"}));
  ASSERT_EQ(r.problems.size(), 6u);
  EXPECT_EQ(r.problems[0].direction, Direction::kBackwardData);
  EXPECT_FALSE(r.problems[0].problem.bias);  // backward-data has none
  EXPECT_EQ(r.problems[4].problem.batch, 1);
  EXPECT_FALSE(r.problems[5].direction.has_value());
  EXPECT_EQ(r.problems[5].problem.batch, 2);
  EXPECT_EQ(r.tally.read, 6);
  EXPECT_EQ(r.tally.imported, 6);
}

TEST(BenchdnnBatch, TheDriverOfTheTopFileReadsItsIncludes) {
  // deconv/test_deconv includes conv/shapes_small: benchdnn runs one driver, deconv here.
  const BenchdnnImport r = ImportData("deconv/test_deconv");
  ASSERT_FALSE(r.problems.empty());
  for (const BenchdnnProblem& b : r.problems) {
    EXPECT_TRUE(b.problem.transposed) << b.name;
    EXPECT_EQ(b.Repro().rfind("--deconv --dir=", 0), 0u) << b.Repro();
  }
  EXPECT_EQ(r.tally.read, 6);  // three descriptors, two directions
}

TEST(BenchdnnBatch, ACycleAndAMissingFileAreErrorsNamingTheIncludingLine) {
  Result<BenchdnnImport> cycle = ImportBenchdnnFile((DataDir() / "conv/test_cycle_a").string());
  ASSERT_FALSE(cycle.ok());
  EXPECT_EQ(cycle.status().code(), StatusCode::kInvalid);
  EXPECT_NE(cycle.status().message().find("test_cycle_b:2: --batch=test_cycle_a: including"),
            std::string::npos)
      << cycle.status().message();
  EXPECT_NE(cycle.status().message().find("again makes a cycle"), std::string::npos);
  Result<BenchdnnImport> missing = ImportBenchdnnFile((DataDir() / "conv/test_missing").string());
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(missing.status().message().find("test_missing:2: --batch=no_such_file: "),
            std::string::npos)
      << missing.status().message();
  EXPECT_NE(missing.status().message().find("no_such_file: no such file"), std::string::npos);
  Result<BenchdnnImport> top = ImportBenchdnnFile((DataDir() / "conv/no_such_file").string());
  ASSERT_FALSE(top.ok());
  EXPECT_NE(top.status().message().find("no_such_file: no such file"), std::string::npos);
  Result<BenchdnnImport> folder = ImportBenchdnnFile((DataDir() / "conv").string());
  ASSERT_FALSE(folder.ok());
  EXPECT_NE(folder.status().message().find("not a file"), std::string::npos);
}

// A folder of batch files written for one test, removed after it.
class TempBatches {
 public:
  TempBatches() : dir_(fs::temp_directory_path() / ("benchdnn_batch_" + std::to_string(getpid()))) {
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  ~TempBatches() { fs::remove_all(dir_); }
  std::string Write(const std::string& name, const std::string& text) {
    std::ofstream(dir_ / name) << text;
    return (dir_ / name).string();
  }

 private:
  fs::path dir_;
};

TEST(BenchdnnBatch, DeepNestingAndRepeatedIncludesAreBounded) {
  TempBatches files;
  // A chain of 40 files: deeper than the limit of 32.
  for (int i = 0; i < 40; ++i)
    files.Write("chain" + std::to_string(i), "--batch=chain" + std::to_string(i + 1) + "\n");
  files.Write("chain40", "ic4ih5oc4kh3\n");
  Result<BenchdnnImport> deep = ImportBenchdnnFile(files.Write("top", "--batch=chain0\n"));
  ASSERT_FALSE(deep.ok());
  EXPECT_EQ(deep.status().code(), StatusCode::kLimit);
  EXPECT_NE(deep.status().message().find("nests deeper than 32 files"), std::string::npos)
      << deep.status().message();
  // Each level includes the next 100 times: 100^4 descriptors if read in full.
  std::string fan;
  for (int i = 0; i < 100; ++i) fan += "--batch=fan_next\n";
  for (const char* level : {"fan0", "fan1", "fan2", "fan3"}) {
    std::string text = fan;
    const std::string next =
        level == std::string("fan3") ? "leaf" : std::string("fan") + char(level[3] + 1);
    for (size_t at; (at = text.find("fan_next")) != std::string::npos;) text.replace(at, 8, next);
    files.Write(level, text);
  }
  files.Write("leaf", "ic4ih5oc4kh3 --dt=bf16 ic4ih5oc4kh3\n");
  ImportOptions options;
  options.limits.max_includes = 2000;  // the default, 10^5, takes a second or two to reach
  Result<BenchdnnImport> wide = ImportBenchdnnFile(files.Write("wide", "--batch=fan0\n"), options);
  ASSERT_FALSE(wide.ok());
  EXPECT_EQ(wide.status().code(), StatusCode::kLimit) << wide.status().message();
  EXPECT_NE(wide.status().message().find("more than 2000 --batch includes"), std::string::npos)
      << wide.status().message();
  options = {};
  options.max_runs = 5000;
  wide = ImportBenchdnnFile(files.Write("wide", "--batch=fan0\n"), options);
  ASSERT_FALSE(wide.ok());
  EXPECT_NE(wide.status().message().find("more than 5000 benchdnn problems"), std::string::npos)
      << wide.status().message();
  // Repeated includes that stay under the limits are fine (oneDNN's deconv files include set_all
  // twenty times).
  Result<BenchdnnImport> twice =
      ImportBenchdnnFile(files.Write("twice", "--batch=leaf\n--batch=leaf\n"));
  ASSERT_TRUE(twice.ok()) << twice.status().message();
  EXPECT_EQ(twice->tally.read, 4);
  EXPECT_EQ(twice->tally.imported, 1);  // the state is one: the second leaf starts with bf16 set
}

}  // namespace
}  // namespace convparity
