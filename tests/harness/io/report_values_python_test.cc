// A report's PyTorch snippet that carries the case's values (harness/io/report_values.h,
// reports/python_snippet.h) reproduces the oracle's result exactly under the python3-torch of the
// machine, and prints the SUT's wrong values beside PyTorch's. Runs python3 once over every snippet
// (importing torch takes seconds): ctest's report_snippet_values entry sets
// CONVPARITY_PYTHON_SNIPPETS=1; without it the test is skipped.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "core/descriptor.h"
#include "core/quote.h"
#include "harness/io/report_values.h"
#include "reports/python_snippet.h"

namespace convparity {
namespace {

namespace fs = std::filesystem;

// stdout and stderr of `command`, and its exit code.
std::pair<int, std::string> Shell(const std::string& command) {
  std::string output;
  FILE* pipe = popen((command + " 2>&1").c_str(), "r");
  if (!pipe) return {-1, ""};
  char buf[4096];
  size_t n;
  while ((n = fread(buf, 1, sizeof buf, pipe)) > 0) output.append(buf, n);
  const int status = pclose(pipe);
  return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, output};
}

// $CONVPARITY_PYTHON, python3, then Debian's /usr/bin/python3: the first that imports torch.
std::optional<std::string> PythonWithTorch() {
  std::vector<std::string> candidates;
  if (const char* env = std::getenv("CONVPARITY_PYTHON")) candidates.push_back(env);
  candidates.push_back("python3");
  candidates.push_back("/usr/bin/python3");
  for (const std::string& python : candidates)
    if (Shell(ShellSingleQuoted(python) + " -c 'import torch'").first == 0) return python;
  return std::nullopt;
}

ConvCase Case(const std::string& descriptor, Fill fill = Fill::kExact,
              const GraphForm* form = &ConvForm()) {
  Result<ParsedDescriptor> parsed = ParseDescriptor(descriptor);
  EXPECT_TRUE(parsed.ok() && parsed->direction) << descriptor;
  ConvCase c;
  c.problem = parsed->problem;
  c.direction = *parsed->direction;
  c.sut = "onednn";
  c.fill = fill;
  c.seed = 7;
  c.graph = form;
  return c;
}

// A SUT that got one element wrong: the snippet must print its value beside PyTorch's.
Judgement OneWrongElement(const ConvCase& c, const SnippetValues& values) {
  Judgement j;
  j.elements = static_cast<int64_t>(values.expected.size());
  j.mismatches = 1;
  ElementReport e;
  for (int64_t extent : ResultShape(c.problem, c.direction)) e.index.push_back(extent - 1);
  e.expected = values.expected.back();
  e.got = values.expected.back() + 1;
  j.first = j.worst = e;
  return j;
}

TEST(ReportSnippetValues, ReproduceTheOracleExactlyUnderPythonTorch) {
  if (!std::getenv("CONVPARITY_PYTHON_SNIPPETS"))
    GTEST_SKIP() << "importing torch takes seconds: ctest runs this as report_snippet_values "
                    "(or set CONVPARITY_PYTHON_SNIPPETS=1)";
  const std::optional<std::string> python = PythonWithTorch();
  if (!python) GTEST_SKIP() << "torch is not importable (apt-get install python3-torch)";

  // The findings' shapes (onednn-1's 1-D backward-weights, onednn-2's 3-D one, onednn-3's
  // asymmetric backward-data, tfjs-1's) and every form the snippet writes: transposed, asymmetric
  // padding, channels-last, another weight layout, a bias, groups, a chain, and a random fill.
  std::vector<ConvCase> cases = {
      Case("bwd_weight:1d_ic1_oc1_i41_k3_s2_p15_d2"),
      Case("bwd_weight:3d_ic2_oc2_i3x2x2_k2x1x1_pb2x0x0_pe0x0x0"),
      Case("bwd_data:2d_ic1_oc1_i6x6_k3x3_pb1x1_pe0x1"),
      Case("fwd:3d_ic1_oc1_i2x1x1_k1x1x3_s2x1x1_p0x0x1"),
      Case("fwd:2d_g2_ic4_oc6_i5x4_k3x2_s2x1_pb1x0_pe0x1_d1x2_nhwc_hwio_b"),
      Case("bwd_data:t2d_g2_ic4_oc2_i4x3_k3x2_s2x3_pb2x0_pe0x1_d1x2_op1x2_b"),
      Case("bwd_weight:t1d_g3_ic3_oc6_i5_k4_s3_op2"),
      Case("fwd:t3d_ic2_oc2_i2x3x2_k2x2x1_s2x1x1_op1x0x0_ndhwc"),
      Case("fwd:2d_ic2_oc2_i5x5_k3x3_p1", Fill::kExact, &ChainForm()),
      Case("bwd_weight:1d_ic2_oc3_i7_k3_s2_b", Fill::kExact, &ChainForm()),
      Case("fwd:2d_ic3_oc2_i6x5_k3x3_s2_p1_b", Fill::kUniform),
  };
  const fs::path dir =
      fs::temp_directory_path() / ("convparity_snippet_values_" + std::to_string(getpid()));
  fs::create_directories(dir);
  std::string command = ShellSingleQuoted(*python) + " -c " + ShellSingleQuoted(R"(
import contextlib, io, sys
for path in sys.argv[1:]:
    out = io.StringIO()
    try:
        with contextlib.redirect_stdout(out):
            exec(compile(open(path).read(), path, "exec"), {"__name__": "__main__"})
        print(path + ": " + " | ".join(out.getvalue().strip().split("\n")))
    except Exception as e:
        print(path + ": ERROR " + type(e).__name__ + ": " + " ".join(str(e).split()))
)");
  std::map<std::string, std::pair<const ConvCase*, std::string>> snippets;  // file → case, text
  for (size_t i = 0; i < cases.size(); ++i) {
    const ConvCase& c = cases[i];
    const std::optional<SnippetValues> values = SnippetValuesOf(c);
    ASSERT_TRUE(values) << CaseDescriptor(c.problem, c.direction);
    const Judgement judged = OneWrongElement(c, *values);
    const std::string py = PythonSnippet(c, &*values, &judged);
    ASSERT_NE(py.find("expected = tensor("), std::string::npos) << py;
    const std::string file = (dir / ("snippet" + std::to_string(i) + ".py")).string();
    std::ofstream(file) << py;
    snippets[file] = {&c, py};
    command += " " + ShellSingleQuoted(file);
  }
  const auto [code, output] = Shell(command);
  fs::remove_all(dir);
  ASSERT_EQ(code, 0) << output;
  std::istringstream lines(output);
  size_t seen = 0;
  for (std::string line; std::getline(lines, line);) {
    const size_t colon = line.find(": ");
    auto it = snippets.find(line.substr(0, colon));
    if (it == snippets.end()) continue;  // e.g. a warning torch printed
    ++seen;
    const ConvCase& c = *it->second.first;
    const std::string result = c.direction == Direction::kForward        ? "y"
                               : c.direction == Direction::kBackwardData ? "dx"
                                                                         : "dw";
    const std::string said = line.substr(colon + 2);
    // Every value the oracle computed, bit for bit (also for the random fill: the same ATen
    // float64 convolution, one thread or several, sums in the same order here).
    EXPECT_EQ(said.rfind(result + " equals convparity's reference | ", 0), 0u)
        << CaseDescriptor(c.problem, c.direction) << ": " << said << "\n"
        << it->second.second;
    // The SUT's wrong value, beside PyTorch's, at the last element.
    EXPECT_NE(said.find(", the SUT "), std::string::npos) << said;
  }
  EXPECT_EQ(seen, cases.size()) << output;
}

TEST(ReportSnippetValues, NoneOverTheLimitOrForACaseTheOracleDoesNotAnswer) {
  ConvCase big = Case("fwd:2d_ic16_oc16_i32x32_k3x3_p1");
  ASSERT_GT(SnippetValueCount(big), kSnippetValueLimit);
  EXPECT_FALSE(SnippetValuesOf(big));
  EXPECT_NE(PythonSnippet(big).find("over the 4096 a snippet"), std::string::npos);
  ConvCase invalid = Case("fwd:2d_ic2_oc2_i5x5_k3x3");
  invalid.problem.kernel[0] = 9;  // larger than the input: no convolution
  EXPECT_FALSE(SnippetValuesOf(invalid));
  ConvCase small = Case("bwd_data:1d_ic1_oc1_i5_k3");
  const std::optional<SnippetValues> values = SnippetValuesOf(small);
  ASSERT_TRUE(values);
  EXPECT_EQ(values->expected.size(), 5u);
  EXPECT_EQ(values->inputs.Get(kGradOutputVar).values.size(), 3u);
  EXPECT_TRUE(values->inputs.Get(kInputVar).values.empty());  // bwd_data does not read x
}

}  // namespace
}  // namespace convparity
