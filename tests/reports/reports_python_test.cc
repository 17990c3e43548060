// Tests that run python3 on what reports/ writes: cases, reports and summaries built from
// RapidCheck-generated problems validate against reports/schema/ (and the case schema agrees with
// the C++ reader), JUnit XML parses, and the PyTorch snippets run under torch with the right result
// shape. Each check runs one python3 process over many files, because starting Python (and
// importing torch) is the slow part.
#include <gtest/gtest.h>
#include <rapidcheck.h>
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

#include "core/conv_case.h"
#include "core/descriptor.h"
#include "core/features.h"
#include "core/quote.h"
#include "generators/problem_gen.h"
#include "harness/engine/summary_counts.h"
#include "reports/json_values.h"
#include "reports/junit_xml.h"
#include "reports/python_snippet.h"
#include "reports/report_json.h"
#include "reports/summary_json.h"

namespace convparity {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

// ---- Running python3 ---------------------------------------------------------------------------

struct ShellRun {
  int code = -1;
  std::string output;  // stdout and stderr
};

ShellRun Shell(const std::string& command) {
  ShellRun run;
  FILE* pipe = popen((command + " 2>&1").c_str(), "r");
  if (!pipe) return run;
  char buf[4096];
  size_t n;
  while ((n = fread(buf, 1, sizeof buf, pipe)) > 0) run.output.append(buf, n);
  const int status = pclose(pipe);
  run.code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return run;
}

std::string Quote(const std::string& s) { return ShellSingleQuoted(s); }

// The first Python that can import `module`: $CONVPARITY_PYTHON, python3 on the PATH, then Debian's
// /usr/bin/python3 (a PATH that leads to a pyenv or venv Python does not see apt's packages).
std::optional<std::string> PythonWith(const std::string& module) {
  std::vector<std::string> candidates;
  if (const char* env = std::getenv("CONVPARITY_PYTHON")) candidates.push_back(env);
  candidates.push_back("python3");
  candidates.push_back("/usr/bin/python3");
  for (const std::string& python : candidates)
    if (Shell(Quote(python) + " -c " + Quote("import " + module)).code == 0) return python;
  return std::nullopt;
}

// A missing Python module skips a test, which ctest shows (each of these tests is its own ctest
// entry with a skip regex, tests/CMakeLists.txt), except under CI=true: there the module must be
// installed (scripts/setup.sh does it), and its absence fails.
bool UnderCi() {
  const char* ci = std::getenv("CI");
  return ci != nullptr && std::string(ci) == "true";
}
#define CONVPARITY_SKIP_OR_FAIL_UNDER_CI(message) \
  do {                                            \
    if (UnderCi()) GTEST_FAIL() << message;       \
    GTEST_SKIP() << message;                      \
  } while (0)

class TempDir {
 public:
  TempDir() {
    static int counter = 0;
    path_ = fs::temp_directory_path() /
            ("convparity_reports_" + std::to_string(getpid()) + "_" + std::to_string(counter++));
    fs::create_directories(path_);
  }
  ~TempDir() {
    std::error_code ignored;
    fs::remove_all(path_, ignored);
  }
  std::string Write(const std::string& name, const std::string& text) const {
    const fs::path p = path_ / name;
    std::ofstream(p, std::ios::binary) << text;
    return p.string();
  }

 private:
  fs::path path_;
};

const std::string kSchemaDir = std::string(CONVPARITY_SOURCE_DIR) + "/reports/schema";

// Runs validate.py on `files`; returns the files it reported as invalid, each with its message.
std::map<std::string, std::string> Invalid(const std::string& python, const std::string& schema,
                                           const std::vector<std::string>& files, int* code) {
  std::string command = Quote(python) + " " + Quote(kSchemaDir + "/validate.py") + " " +
                        Quote(kSchemaDir + "/" + schema);
  for (const std::string& f : files) command += " " + Quote(f);
  const ShellRun run = Shell(command);
  *code = run.code;
  std::map<std::string, std::string> invalid;
  std::istringstream lines(run.output);
  for (std::string line; std::getline(lines, line);) {
    const size_t colon = line.find(": ");
    invalid[line.substr(0, colon)] = colon == std::string::npos ? "" : line.substr(colon + 2);
  }
  return invalid;
}

// ---- Generated findings and summaries -----------------------------------------------------------

template <typename T>
std::vector<T> Sample(const rc::Gen<T>& gen, int n, uint64_t seed) {
  rc::Random random(seed);
  std::vector<T> out;
  for (int i = 0; i < n; ++i) out.push_back(gen(random.split(), rc::kNominalSize).value());
  return out;
}

rc::Gen<std::string> GenText() {
  return rc::gen::oneOf(rc::gen::string<std::string>(),
                        rc::gen::element<std::string>("", "µ-kernel ✓", "tab\tnew\nline",
                                                      "quote \" and \\ backslash", "\x01\x7f"));
}

rc::Gen<ConvCase> GenCase() {
  return rc::gen::exec([] {
    ConvCase c;
    c.problem = *GenProblem();
    c.direction = *rc::gen::elementOf(AllDirections());
    c.sut = *rc::gen::element<std::string>("direct", "known-bug:tvm-7912", "torch-f32",
                                           "plugin:/opt/my libs/libconv.so", "transform:legalize");
    c.fill = *rc::gen::element(Fill::kExact, Fill::kUniform, Fill::kPositive, Fill::kWide);
    c.seed = *rc::gen::arbitrary<uint64_t>();
    c.expect = *rc::gen::element(Verdict::kPassed, Verdict::kFailed, Verdict::kUnwritten,
                                 Verdict::kCrashed, Verdict::kBrokenPromise, Verdict::kSkipped);
    if (*rc::gen::inRange(0, 3) == 0) c.note = *GenText();
    if (*rc::gen::inRange(0, 4) == 0) c.graph = &ChainForm();
    if (*rc::gen::inRange(0, 6) == 0)
      c.transform = TransformGraph{{"legalize", "fold"}, "%0 = conv(%x, %w)"};
    return c;
  });
}

rc::Gen<double> GenReal() {
  return rc::gen::weightedOneOf<double>(
      {{4, rc::gen::map(rc::gen::inRange(-1000000, 1000000), [](int v) { return v / 1024.0; })},
       {1, rc::gen::element(0.0, INFINITY, -INFINITY, NAN, 1e-300, 3.4e38)}});
}

std::optional<ElementReport> DrawElement(const Shape& shape) {
  if (*rc::gen::inRange(0, 4) == 0) return std::nullopt;
  ElementReport e;
  for (int64_t extent : shape) e.index.push_back(*rc::gen::inRange<int64_t>(0, extent));
  e.expected = *GenReal();
  e.got = *GenReal();
  e.error = std::fabs(*GenReal());
  e.bound = std::fabs(*GenReal());
  return e;
}

CaseOutcome DrawOutcome(const ConvCase& c, bool discrepancy) {
  CaseOutcome o;
  o.verdict = discrepancy
                  ? *rc::gen::element(Verdict::kFailed, Verdict::kShapeMismatch,
                                      Verdict::kUnwritten, Verdict::kCrashed, Verdict::kHung)
                  : static_cast<Verdict>(*rc::gen::inRange(0, 9));
  o.reason = *GenText();
  Judgement& j = o.judgement;
  const Shape shape = c.direction == Direction::kForward        ? c.problem.output_shape()
                      : c.direction == Direction::kBackwardData ? c.problem.input_shape()
                                                                : c.problem.weight_shape();
  j.elements = NumElements(shape);
  j.mismatches = *rc::gen::inRange<int64_t>(0, j.elements + 1);
  j.unwritten = *rc::gen::inRange<int64_t>(0, j.mismatches + 1);
  j.max_abs_error = std::fabs(*GenReal());
  j.max_bound_use = std::fabs(*GenReal());
  j.max_rel_error = std::fabs(*GenReal());
  j.zero_share = *rc::gen::inRange(0, 101) / 100.0;
  if (o.verdict == Verdict::kFailed)
    j.symptom = *rc::gen::element(Symptom::kNone, Symptom::kPrecision, Symptom::kWrong);
  j.first = DrawElement(shape);
  j.worst = DrawElement(shape);
  o.timing = {*rc::gen::inRange(0, 100) / 1e3, *rc::gen::inRange(0, 100) / 1e3,
              *rc::gen::inRange(0, 100) / 1e3, *rc::gen::inRange(0, 100) / 1e3};
  if (*rc::gen::inRange(0, 3) == 0) o.notes = RunNotes{*GenText(), *rc::gen::arbitrary<bool>()};
  return o;
}

rc::Gen<Finding> GenFinding() {
  return rc::gen::exec([] {
    Finding f;
    f.original = *GenCase();
    f.minimized = *GenCase();
    f.original_outcome = DrawOutcome(f.original, true);
    f.outcome = DrawOutcome(f.minimized, true);
    const int steps = *rc::gen::inRange(0, 4);
    for (int i = 0; i < steps; ++i) f.shrink_steps.push_back(ProblemDescriptor(*GenProblem()));
    if (*rc::gen::arbitrary<bool>())
      f.bucket = BucketSignature(f.minimized, f.outcome.verdict, f.outcome.judgement.symptom);
    return f;
  });
}

rc::Gen<CampaignSummary> GenSummary() {
  return rc::gen::exec([] {
    CampaignSummary s;
    s.options.seed = *rc::gen::arbitrary<uint64_t>();
    s.options.shard_count = *rc::gen::inRange(1, 9);
    s.options.shard_index = *rc::gen::inRange(0, s.options.shard_count);
    s.options.jobs = s.workers = *rc::gen::inRange(1, 65);
    s.options.time_budget_seconds = *rc::gen::element(0.0, 60.0, INFINITY);
    s.options.suts = {"direct", "known-bug:tvm-7912"};
    s.options.directions = {"fwd", "bwd_weight"};
    s.options.fills = {"exact", "wide"};
    s.options.dims = {1, 2, 3};
    s.options.max_macs = 200000;
    s.start_time = std::chrono::system_clock::now();
    s.elapsed_seconds = *rc::gen::element(0.0, 0.001, 61.5);
    s.end_time =
        s.start_time + std::chrono::milliseconds(static_cast<int64_t>(s.elapsed_seconds * 1e3));
    const int n = *rc::gen::inRange(0, 30);
    for (int i = 0; i < n; ++i) {
      const ConvCase c = *GenCase();
      const CaseOutcome o = DrawOutcome(c, false);
      CountCase(&s, c, o, *rc::gen::arbitrary<bool>());
      if (IsDiscrepancy(o.verdict)) {
        Finding f;
        f.minimized = c;
        f.outcome = o;
        CountFinding(&s, BucketSignature(c, o.verdict, o.judgement.symptom), c, o.verdict,
                     o.judgement.symptom, ReportFileName(f), i, i * 0.5);
      }
    }
    s.time.generate = *rc::gen::inRange(0, 1000) / 1e3;
    return s;
  });
}

const ToolInfo kTool{"0.1.0", "1.13.1", "cpu"};

// ---- Schema validation --------------------------------------------------------------------------

// Case files the C++ reader accepts, and mutations it rejects: the case schema must agree.
std::vector<std::pair<std::string, json>> CaseVariants() {
  ConvCase base;
  base.problem =
      ParseDescriptor("t2d_g2_ic4_oc6_i9x9_k3x3_s2x2_p1x1_d2x2_op1x0_nhwc_hwio_b")->problem;
  base.direction = Direction::kBackwardWeight;
  base.seed = 18446744073709551615ull;
  const json j = CaseToJson(base);
  auto with = [&](const std::string& path, const json& v) {
    json m = j;
    m[json::json_pointer(path)] = v;
    return m;
  };
  auto without = [&](const std::string& path) {
    return j.patch(json{{{"op", "remove"}, {"path", path}}});
  };
  return {
      {"ok_full", j},
      {"ok_seed_string", with("/seed", "18446744073709551615")},
      {"ok_descriptor_only", without("/problem")},
      {"ok_problem_only", without("/descriptor")},
      {"ok_minimal_problem", json{{"schema", "convparity.case/1"},
                                  {"problem",
                                   {{"rank", 1},
                                    {"in_channels", 2},
                                    {"out_channels", 2},
                                    {"input", {5}},
                                    {"kernel", {3}}}}}},
      {"bad_unknown_field", with("/colour", "red")},
      {"bad_schema", with("/schema", "convparity.case/2")},
      {"bad_direction", with("/direction", "backward")},
      {"bad_fill", with("/fill", "random")},
      {"bad_empty_sut", with("/sut", "")},
      {"bad_negative_seed", with("/seed", -1)},
      {"bad_rank", with("/problem/rank", 4)},
      {"bad_dims_length", with("/problem/stride", {2, 2, 2})},
      {"bad_dims_type", with("/problem/kernel", {3, "3"})},
      {"bad_layout_of_other_rank", with("/problem/data_layout", "ndhwc")},
      {"bad_dtype", with("/problem/dtype", "f16")},
      {"bad_problem_field", with("/problem/padding", {1, 1})},
      {"bad_missing_kernel", without("/problem/kernel")},
      {"bad_neither", without("/problem").patch(json{{{"op", "remove"}, {"path", "/descriptor"}}})},
      {"bad_transform", with("/transform", "legalize")},
  };
}

TEST(ReportsSchemas, EveryEmittedFileValidatesAndTheCaseSchemaAgreesWithTheReader) {
  const std::optional<std::string> python = PythonWith("jsonschema");
  if (!python)
    CONVPARITY_SKIP_OR_FAIL_UNDER_CI(
        "python3-jsonschema is not installed (apt-get install python3-jsonschema; "
        "scripts/setup.sh does it): the JSON Schemas were not checked");
  TempDir dir;
  std::vector<std::string> cases, reports, summaries;
  std::map<std::string, std::string> bad_cases;      // file → variant
  std::map<std::string, std::string> variant_files;  // variant → file
  const std::vector<Finding> findings = Sample(GenFinding(), 40, 20261122);
  for (size_t i = 0; i < findings.size(); ++i) {
    const Finding& f = findings[i];
    const std::string case_file = "case" + std::to_string(i) + ".json";
    cases.push_back(dir.Write(case_file, JsonFileText(CaseToJson(f.minimized))));
    cases.push_back(
        dir.Write("orig" + std::to_string(i) + ".json", JsonFileText(CaseToJson(f.original))));
    reports.push_back(
        dir.Write(ReportFileName(f), ReportJson(f, kTool, i % 3 ? case_file : "").dump(2)));
  }
  for (const auto& [name, variant] : CaseVariants()) {
    const std::string file = dir.Write(name + ".json", variant.dump());
    cases.push_back(file);
    variant_files[name] = file;
    const bool reader_accepts = CaseFromJson(variant).ok();
    EXPECT_EQ(reader_accepts, name.rfind("ok_", 0) == 0) << name << ": " << variant.dump();
    if (!reader_accepts) bad_cases[file] = name;
  }
  std::vector<CampaignSummary> parts = Sample(GenSummary(), 8, 7);
  for (size_t i = 0; i < parts.size(); ++i)
    summaries.push_back(
        dir.Write("summary" + std::to_string(i) + ".json", SummaryJson(parts[i], kTool).dump(2)));
  CampaignSummary merged = parts[0];
  for (size_t i = 1; i < parts.size(); ++i) MergeSummary(&merged, parts[i]);
  summaries.push_back(dir.Write("merged.json", SummaryJson(merged, kTool).dump()));

  // Negative controls: the validator must see what is wrong, and say where.
  json report = ReportJson(findings[0], kTool, "x.json");
  report["metrics"]["max_abs_error"] = "Infinity";
  const std::string bad_report = dir.Write("bad_report.json", report.dump());
  reports.push_back(bad_report);
  const std::string nan_report = dir.Write("nan_report.json", "{\"schema\": NaN}");
  reports.push_back(nan_report);
  report = ReportJson(findings[0], kTool, "x.json");
  report["original"]["run"] = {{"implementation", "jit:avx2"}, {"inexact", 1}};
  const std::string bad_run = dir.Write("bad_run.json", report.dump());
  reports.push_back(bad_run);
  json summary = SummaryJson(merged, kTool);
  summary["coverage"]["tags"].erase("rank1");
  const std::string bad_summary = dir.Write("bad_summary.json", summary.dump());
  summaries.push_back(bad_summary);

  int code = 0;
  std::map<std::string, std::string> invalid = Invalid(*python, "case.schema.json", cases, &code);
  EXPECT_EQ(code, 1);
  for (const auto& [file, message] : invalid)
    EXPECT_TRUE(bad_cases.count(file))
        << "schema rejects what the reader accepts: " << file << ": " << message;
  for (const auto& [file, name] : bad_cases)
    EXPECT_TRUE(invalid.count(file)) << "schema accepts what the reader rejects: " << name;
  const std::string dims_message = invalid[variant_files["bad_dims_length"]];
  EXPECT_EQ(dims_message.rfind("$.problem.stride: ", 0), 0u) << dims_message;

  invalid = Invalid(*python, "report.schema.json", reports, &code);
  EXPECT_EQ(code, 1);
  EXPECT_EQ(invalid.size(), 3u) << testing::PrintToString(invalid);
  EXPECT_EQ(invalid[bad_report].rfind("$.metrics.max_abs_error: ", 0), 0u) << invalid[bad_report];
  EXPECT_EQ(invalid[bad_run].rfind("$.original.run.inexact: ", 0), 0u) << invalid[bad_run];
  EXPECT_NE(invalid[nan_report].find("not valid JSON"), std::string::npos) << invalid[nan_report];

  invalid = Invalid(*python, "summary.schema.json", summaries, &code);
  EXPECT_EQ(code, 1);
  EXPECT_EQ(invalid.size(), 1u) << testing::PrintToString(invalid);
  EXPECT_EQ(invalid[bad_summary].rfind("$.coverage.tags: ", 0), 0u) << invalid[bad_summary];

  // JUnit XML with hostile text parses with a standard XML parser.
  std::vector<JUnitCase> junit;
  for (const Finding& f : findings)
    junit.push_back({f.minimized.sut, CaseDescriptor(f.minimized.problem, f.minimized.direction),
                     0.01, JUnitCase::kFailed, f.outcome.reason + "\x01\xff",
                     ReportJson(f, kTool, "").dump(2)});
  junit.push_back({"s", "skipped \x1b]0;", 0, JUnitCase::kSkipped, "no 3-D", ""});
  const std::string xml = dir.Write("junit.xml", JUnitXml(junit, "convparity ✓ <check>", 1.0));
  const ShellRun parsed = Shell(Quote(*python) + " -c " +
                                Quote("import sys, xml.etree.ElementTree as E\n"
                                      "root = E.parse(sys.argv[1]).getroot()\n"
                                      "print(root.tag, len(root.findall('.//testcase')), "
                                      "len(root.findall('.//failure')))") +
                                " " + Quote(xml));
  EXPECT_EQ(parsed.code, 0) << parsed.output;
  EXPECT_EQ(parsed.output, "testsuites " + std::to_string(junit.size()) + " " +
                               std::to_string(findings.size()) + "\n");
}

// ---- The PyTorch snippets
// -------------------------------------------------------------------------

TEST(ReportsPythonSnippets, RunUnderTorchAndGiveTheExpectedShape) {
  if (!std::getenv("CONVPARITY_PYTHON_SNIPPETS"))
    GTEST_SKIP() << "importing torch takes seconds: ctest runs this as reports_python_snippets "
                    "(or set CONVPARITY_PYTHON_SNIPPETS=1)";
  const std::optional<std::string> python = PythonWith("torch");
  if (!python)
    CONVPARITY_SKIP_OR_FAIL_UNDER_CI("torch is not importable (apt-get install python3-torch)");

  std::vector<ConvCase> cases;
  for (const char* d :
       {"1d_ic2_oc2_i9_k3_s2_d2_nwc", "2d_g2_mb2_ic4_oc6_i9x8_k3x2_s2x1_p1x0_d2x1",
        "2d_ic3_oc5_i7x6_k3x3_pb1x0_pe0x2_nhwc_b", "3d_g2_ic4_oc2_i4_k2_pb1_pe0_b",
        "t1d_g3_ic3_oc6_i5_k4_s3_op2", "t2d_ic2_oc4_i5_k3_s2_p1_op1_nhwc",
        "t2d_g2_ic4_oc2_i4x3_k3x2_s2x3_pb2x0_pe0x1_d1x2_op1x2_b",
        "t3d_g2_ic4_oc6_i3x4x5_k3x2x7_s2x1x3_pb1x0x2_pe0x1x1_d1x2x1_op1x0x2_ndhwc_dhwio_b"}) {
    for (Direction dir : AllDirections())
      for (const GraphForm* form : {&ConvForm(), &ChainForm()}) {
        ConvCase c;
        c.problem = ParseDescriptor(d)->problem;
        ASSERT_TRUE(Validate(c.problem).ok()) << d;
        c.direction = dir;
        c.graph = form;
        cases.push_back(c);
      }
  }
  for (const ConvCase& c : Sample(GenCase(), 30, 42)) cases.push_back(c);

  TempDir dir;
  std::string command = Quote(*python) + " -c " + Quote(R"(import contextlib, io, sys
for path in sys.argv[1:]:
    out = io.StringIO()
    try:
        with contextlib.redirect_stdout(out):
            exec(compile(open(path).read(), path, "exec"), {"__name__": "__main__"})
        print(path + ": " + out.getvalue().strip())
    except Exception as e:
        print(path + ": ERROR " + type(e).__name__ + ": " + " ".join(str(e).split()))
)");
  std::map<std::string, std::pair<const ConvCase*, std::string>> expected;
  for (size_t i = 0; i < cases.size(); ++i) {
    const ConvCase& c = cases[i];
    const std::string py = PythonSnippet(c);
    const Shape shape = c.direction == Direction::kForward        ? c.problem.output_shape()
                        : c.direction == Direction::kBackwardData ? c.problem.input_shape()
                                                                  : c.problem.weight_shape();
    std::string text = "torch.Size([";
    for (size_t k = 0; k < shape.size(); ++k) text += (k ? ", " : "") + std::to_string(shape[k]);
    const std::string file = dir.Write("snippet" + std::to_string(i) + ".py", py);
    expected[file] = {&c, text + "])"};
    command += " " + Quote(file);
  }
  const ShellRun run = Shell(command);
  ASSERT_EQ(run.code, 0) << run.output;
  std::istringstream lines(run.output);
  size_t seen = 0;
  for (std::string line; std::getline(lines, line);) {
    const size_t colon = line.find(": ");
    auto it = expected.find(line.substr(0, colon));
    if (it == expected.end()) continue;  // e.g. a warning torch printed
    ++seen;
    EXPECT_EQ(line.substr(colon + 2), it->second.second)
        << CaseDescriptor(it->second.first->problem, it->second.first->direction) << "\n"
        << PythonSnippet(*it->second.first);
  }
  EXPECT_EQ(seen, cases.size()) << run.output;
}

}  // namespace
}  // namespace convparity
