// Reports, summaries and JUnit XML built from synthetic findings: every field INTERFACES.md lists
// is there, non-finite numbers and hostile text survive, the PyTorch snippet says the right thing.
// (reports_python_test.cc runs the schemas and the snippets through python3.)
#include <gtest/gtest.h>

#include <chrono>
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "core/descriptor.h"
#include "core/features.h"
#include "harness/engine/summary_counts.h"
#include "reports/json_values.h"
#include "reports/junit_xml.h"
#include "reports/python_snippet.h"
#include "reports/report_json.h"
#include "reports/summary_json.h"
#include "reports/utf8.h"

namespace convparity {
namespace {

using nlohmann::json;

constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

ConvProblem P(const std::string& descriptor) {
  Result<ParsedDescriptor> d = ParseDescriptor(descriptor);
  EXPECT_TRUE(d.ok()) << d.status().message();
  EXPECT_TRUE(Validate(d->problem).ok()) << descriptor << ": " << Validate(d->problem).message();
  return d->problem;
}

ConvCase Case(const std::string& descriptor, Direction d, const std::string& sut = "direct") {
  ConvCase c;
  c.problem = P(descriptor);
  c.direction = d;
  c.sut = sut;
  c.fill = Fill::kUniform;
  c.seed = 12345678901234567890ull;  // above 2^63: must stay exact
  return c;
}

// A transposed 3-D problem with asymmetric padding, output_padding, groups, dilation, bias and
// channels-last data: every part of the snippet and the metrics is exercised at once.
constexpr const char* kT3d =
    "t3d_g2_ic4_oc6_i3x4x5_k3x2x7_s2x1x3_pb1x0x2_pe0x1x1_d1x2x1_op1x0x2_ndhwc_dhwio_b";

Finding MakeFinding() {
  Finding f;
  f.original =
      Case("t3d_g2_mb3_ic8_oc6_i5x6x7_k3x2x7_s2x1x3_pb1x0x2_pe0x1x1_d1x2x1_op1x0x2_ndhwc_b",
           Direction::kBackwardData, "known-bug:tvm-5758");
  f.minimized = Case(kT3d, Direction::kBackwardData, "known-bug:tvm-5758");
  f.original_outcome.verdict = Verdict::kFailed;
  f.original_outcome.reason = "41 of 3360 elements differ";
  f.original_outcome.judgement.elements = 3360;
  f.original_outcome.judgement.mismatches = 41;
  f.outcome.verdict = Verdict::kFailed;
  f.outcome.reason = "3 of 120 elements differ; worst bound use inf";
  Judgement& j = f.outcome.judgement;
  j.verdict = Verdict::kFailed;
  j.elements = 120;
  j.mismatches = 3;
  j.max_abs_error = kInf;
  j.max_bound_use = kInf;
  j.max_rel_error = 1.7e-2;
  j.zero_share = 0.25;
  j.first = ElementReport{{0, 1, 2, 0, 3}, 1.5, 2.5, 1.0, 1e-6};
  j.worst = ElementReport{{0, 3, 1, 2, 4}, -0.25, kNaN, kInf, 0.0};
  f.shrink_steps = {ProblemDescriptor(f.original.problem),
                    CaseDescriptor(f.minimized.problem, f.minimized.direction)};
  f.bucket = BucketSignature(f.minimized, f.outcome.verdict, f.outcome.judgement.symptom);
  return f;
}

const ToolInfo kTool{"0.1.0", "1.13.1", "cpu (native, no oneDNN)"};

void ExpectKeys(const json& j, const std::vector<std::string>& keys, const std::string& where) {
  ASSERT_TRUE(j.is_object()) << where;
  for (const std::string& k : keys) EXPECT_TRUE(j.contains(k)) << where << " lacks " << k;
  EXPECT_EQ(j.size(), keys.size()) << where << ": " << j.dump();
}

TEST(ReportJson, HoldsEveryFieldOfInterfacesMd) {
  const Finding f = MakeFinding();
  const json r = ReportJson(f, kTool, "corpus/ab12cd34.json");
  ExpectKeys(r,
             {"schema", "tool", "sut", "direction", "verdict", "reason", "bucket", "descriptor",
              "case", "metrics", "original", "shrink_steps", "repro", "python"},
             "report");
  EXPECT_EQ(r["schema"], "convparity.report/1");
  EXPECT_EQ(r["tool"], (json{{"name", "convparity"},
                             {"version", "0.1.0"},
                             {"libtorch_version", "1.13.1"},
                             {"oracle_backend", "cpu (native, no oneDNN)"}}));
  EXPECT_EQ(r["sut"], "known-bug:tvm-5758");
  EXPECT_EQ(r["direction"], "bwd_data");
  EXPECT_EQ(r["verdict"], "failed");
  EXPECT_EQ(r["reason"], f.outcome.reason);
  EXPECT_EQ(r["bucket"], f.bucket);
  EXPECT_EQ(r["case"], CaseToJson(f.minimized));
  EXPECT_EQ(r["case"]["seed"].get<uint64_t>(), 12345678901234567890ull);
  EXPECT_EQ(r["original"]["case"], CaseToJson(f.original));
  EXPECT_EQ(r["original"]["verdict"], "failed");
  EXPECT_EQ(r["original"]["metrics"]["mismatches"], 41);
  EXPECT_EQ(r["shrink_steps"], json(f.shrink_steps));

  const json& m = r["metrics"];
  ExpectKeys(m,
             {"tensor", "axes", "shape", "elements", "mismatches", "mismatch_share", "unwritten",
              "max_abs_error", "max_bound_use", "max_rel_error", "zero_share", "first", "worst"},
             "metrics");
  EXPECT_EQ(m["tensor"], "grad_input");
  EXPECT_EQ(m["axes"], (json{"n", "c", "d", "h", "w"}));
  EXPECT_EQ(m["shape"], (json{1, 4, 3, 4, 5}));
  EXPECT_EQ(m["elements"], 120);
  EXPECT_DOUBLE_EQ(m["mismatch_share"].get<double>(), 3.0 / 120);
  EXPECT_DOUBLE_EQ(m["max_rel_error"].get<double>(), 1.7e-2);
  ExpectKeys(m["first"], {"index", "expected", "got", "error", "bound"}, "first");
  EXPECT_EQ(m["first"]["index"], (json{0, 1, 2, 0, 3}));
  EXPECT_EQ(m["first"]["got"], 2.5);
  EXPECT_EQ(m["worst"]["expected"], -0.25);

  const json& repro = r["repro"];
  EXPECT_EQ(repro["case_file"], "corpus/ab12cd34.json");
  EXPECT_EQ(repro["command"], "convparity repro corpus/ab12cd34.json");
  EXPECT_EQ(repro["descriptor_command"],
            "convparity repro 'bwd_data:" + std::string(kT3d) +
                "' --sut known-bug:tvm-5758 --fill uniform --seed 12345678901234567890");
  EXPECT_NE(r["python"].get<std::string>().find("F.conv_transpose3d("), std::string::npos);
}

TEST(ReportJson, RunNotesAppearOnlyWhenTheSutSaidSomething) {
  Finding f = MakeFinding();
  EXPECT_FALSE(ReportJson(f, kTool, "").contains("run"));
  EXPECT_FALSE(ReportJson(f, kTool, "")["original"].contains("run"));
  f.outcome.notes = RunNotes{"jit_wino_4x3:avx512_core", true};
  f.original_outcome.notes = RunNotes{"gemm:jit", false};
  const json r = ReportJson(f, kTool, "");
  EXPECT_EQ(r["run"], (json{{"implementation", "jit_wino_4x3:avx512_core"}, {"inexact", true}}));
  EXPECT_EQ(r["original"]["run"], (json{{"implementation", "gemm:jit"}, {"inexact", false}}));
}

TEST(ReportJson, NonFiniteNumbersAreStringsSoTheTextIsJson) {
  const json r = ReportJson(MakeFinding(), kTool, "c.json");
  const json& m = r["metrics"];
  EXPECT_EQ(m["max_abs_error"], "inf");
  EXPECT_EQ(m["max_bound_use"], "inf");
  EXPECT_EQ(m["worst"]["got"], "nan");
  EXPECT_EQ(m["worst"]["error"], "inf");
  EXPECT_EQ(m["worst"]["bound"], 0.0);
  EXPECT_EQ(RealToJson(-kInf), "-inf");
  const std::string text = r.dump(2);
  EXPECT_EQ(text.find("NaN"), std::string::npos);
  EXPECT_EQ(text.find("Infinity"), std::string::npos);
  EXPECT_EQ(json::parse(text), r);
}

TEST(ReportJson, NoElementsGiveNullCoordinatesAndAZeroShare) {
  Finding f = MakeFinding();
  f.outcome = CaseOutcome{};
  f.outcome.verdict = Verdict::kCrashed;
  f.outcome.reason = "signal 11 (SIGSEGV)";
  const json m = ReportJson(f, kTool, "c.json")["metrics"];
  EXPECT_TRUE(m["first"].is_null());
  EXPECT_TRUE(m["worst"].is_null());
  EXPECT_EQ(m["mismatch_share"], 0.0);
}

TEST(ReportJson, HostileTextStaysValidUtf8AndUnicodeSurvives) {
  Finding f = MakeFinding();
  f.outcome.reason = "bad \xff\xfe bytes, a \x01 control, a tab\t, and µ-ops ✓";
  f.minimized.sut = "plugin:/tmp/lib \xc3(.so";  // a truncated sequence
  f.minimized.note = "line one\nline two";
  const json r = ReportJson(f, kTool, "");
  const std::string text = r.dump();  // throws on invalid UTF-8
  const std::string reason = r["reason"];
  EXPECT_NE(reason.find("\xef\xbf\xbd\xef\xbf\xbd bytes"), std::string::npos) << reason;
  EXPECT_NE(reason.find("µ-ops ✓"), std::string::npos);
  EXPECT_EQ(r["case"]["note"], "line one\nline two");
  EXPECT_EQ(json::parse(text)["sut"], "plugin:/tmp/lib \xef\xbf\xbd(.so");
  // Without a case file the command falls back to the descriptor form, shell-quoted.
  EXPECT_EQ(r["repro"]["case_file"], nullptr);
  EXPECT_EQ(r["repro"]["command"], r["repro"]["descriptor_command"]);
  const std::string python = r["python"];
  EXPECT_EQ(python.find('\xc3'), std::string::npos) << "free text in the snippet is ASCII";
}

TEST(ReportJson, TransformCasesHaveNoDescriptorCommand) {
  Finding f = MakeFinding();
  f.minimized.transform = TransformGraph{{"legalize"}, "%0 = conv2d(%x, %w)"};
  const json r = ReportJson(f, kTool, "t.json");
  EXPECT_TRUE(r["repro"]["descriptor_command"].is_null());
  EXPECT_EQ(r["case"]["transform"],
            (json{{"graph", "%0 = conv2d(%x, %w)"}, {"pipeline", {"legalize"}}}));
}

TEST(ReportJson, CasesAskingForAnAlgorithmHaveNoDescriptorCommandAndKeepTheirOrigin) {
  Finding f = MakeFinding();
  f.minimized.algorithm = Algorithm::kWinograd;
  f.minimized.origin = {"benchdnn", "inputs/conv/shapes_basic", 13, "x", "", {}};
  const json r = ReportJson(f, kTool, "t.json");
  EXPECT_TRUE(r["repro"]["descriptor_command"].is_null());  // a descriptor carries no algorithm
  EXPECT_EQ(r["case"]["algorithm"], "winograd");
  EXPECT_EQ(r["case"]["origin"]["line"], 13);
}

TEST(ReportJson, EmptyBucketIsComputedFromTheMinimizedCase) {
  Finding f = MakeFinding();
  f.bucket.clear();
  EXPECT_EQ(ReportJson(f, kTool, "c.json")["bucket"],
            BucketSignature(f.minimized, f.outcome.verdict, f.outcome.judgement.symptom));
}

TEST(DescriptorReproCommand, QuotesWhatTheShellWouldSplit) {
  ConvCase c = Case("2d_ic4_oc4_i9_k3", Direction::kForward, "plugin:/opt/my libs/it's.so");
  c.fill = Fill::kExact;
  c.seed = 7;
  EXPECT_EQ(DescriptorReproCommand(c),
            "convparity repro 'fwd:2d_ic4_oc4_i9x9_k3x3' --sut 'plugin:/opt/my libs/it'\\''s.so' "
            "--fill exact --seed 7");
}

TEST(ReportFileName, IsSafeStableAndDistinctForBucketsThatSpellTheSame) {
  Finding a = MakeFinding();
  const std::string name = ReportFileName(a);
  EXPECT_EQ(name, ReportFileName(MakeFinding()));
  for (char c : name)
    EXPECT_TRUE(std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '-' || c == '_')
        << name;
  EXPECT_EQ(name.rfind("known-bug-tvm-5758_bwd_data_failed_t3d.grouped.stridegt1", 0), 0u) << name;
  EXPECT_EQ(name.substr(name.size() - 5), ".json");

  Finding b = a, c = a;
  b.bucket = "x/y";
  c.bucket = "x_y";
  EXPECT_NE(ReportFileName(b), ReportFileName(c));
  Finding hidden = a;
  hidden.bucket = "../../etc/passwd";
  EXPECT_NE(ReportFileName(hidden)[0], '.');
  EXPECT_EQ(ReportFileName(hidden).find('/'), std::string::npos);
  Finding huge = a;
  huge.bucket = std::string(5000, 'a');
  EXPECT_LE(ReportFileName(huge).size(), 200u);
}

// ---- The PyTorch snippet
// --------------------------------------------------------------------------

std::string Snippet(const std::string& descriptor, Direction d) {
  return PythonSnippet(Case(descriptor, d));
}

void ExpectHas(const std::string& text, const std::string& part) {
  EXPECT_NE(text.find(part), std::string::npos) << "missing: " << part << "\nin:\n" << text;
}

TEST(PythonSnippet, ForwardSymmetricPassesPaddingToTheCall) {
  const std::string py = Snippet("2d_g2_mb2_ic4_oc6_i9x8_k3x2_s2x1_p1x0_d2x1", Direction::kForward);
  ExpectHas(py, "import torch.nn.functional as F");
  ExpectHas(py, "x = torch.randn(2, 4, 9, 8, dtype=torch.float64)");
  ExpectHas(py, "w = torch.randn(6, 2, 3, 2, dtype=torch.float64)");
  ExpectHas(py,
            "y = F.conv2d(x, w, None, stride=(2, 1), padding=(1, 0), dilation=(2, 1), groups=2)");
  ExpectHas(py, "print(y.shape)  # expected torch.Size([2, 6, 4, 7])");
  ExpectHas(py, "reproduces the\n# computation, not convparity's exact data");
  EXPECT_EQ(py.find("F.pad"), std::string::npos);
  EXPECT_EQ(py.find("backward"), std::string::npos);
}

TEST(PythonSnippet, AsymmetricPaddingIsAnExplicitPadListingTheLastDimensionFirst) {
  const std::string py = Snippet("2d_ic3_oc5_i7x6_k3x3_pb1x0_pe0x2_nhwc_b", Direction::kForward);
  ExpectHas(py, "b = torch.randn(5, dtype=torch.float64)");
  ExpectHas(py, "x = x.to(memory_format=torch.channels_last)");
  ExpectHas(py, "(w begin, w end, h begin, h end)");
  ExpectHas(py, "y = F.conv2d(F.pad(x, [0, 2, 1, 0]), w, b, stride=(1, 1), padding=0,");
  ExpectHas(py, "# expected torch.Size([1, 5, 6, 6])");
}

TEST(PythonSnippet, OneDimensionalTuplesKeepTheirComma) {
  const std::string py = Snippet("1d_ic2_oc2_i9_k3_s2_d2_nwc", Direction::kForward);
  ExpectHas(py, "F.conv1d(x, w, None, stride=(2,), padding=(0,), dilation=(2,), groups=1)");
  ExpectHas(py, "no channels-last format for 1-D");
  EXPECT_EQ(py.find("memory_format"), std::string::npos);
}

TEST(PythonSnippet, TransposedAsymmetricCropsAfterAnUnpaddedTranspose) {
  const ConvProblem p = P(kT3d);
  const std::string py = Snippet(kT3d, Direction::kForward);
  ExpectHas(py, "x = torch.randn(1, 4, 3, 4, 5, dtype=torch.float64)");
  ExpectHas(py,
            "w = torch.randn(4, 3, 3, 2, 7, dtype=torch.float64)  # the SUT stores it as dhwio");
  ExpectHas(py, "x = x.to(memory_format=torch.channels_last_3d)");
  ExpectHas(
      py,
      "y = F.conv_transpose3d(x, w, b, stride=(2, 1, 3), padding=0, output_padding=(1, 0, 2), "
      "groups=2, dilation=(1, 2, 1))");
  const Dims out = p.output();
  ExpectHas(py, "y = y[..., 1:" + std::to_string(1 + out[0]) + ", 0:" + std::to_string(out[1]) +
                    ", 2:" + std::to_string(2 + out[2]) + "]");
  ExpectHas(py, "# expected torch.Size([1, 6, " + std::to_string(out[0]) + ", " +
                    std::to_string(out[1]) + ", " + std::to_string(out[2]) + "])");
}

TEST(PythonSnippet, TransposedSymmetricPassesPaddingAndOutputPadding) {
  const std::string py = Snippet("t2d_ic2_oc4_i5_k3_s2_p1_op1", Direction::kForward);
  ExpectHas(py,
            "F.conv_transpose2d(x, w, None, stride=(2, 2), padding=(1, 1), "
            "output_padding=(1, 1), groups=1, dilation=(1, 1))");
  EXPECT_EQ(py.find("y = y["), std::string::npos);
}

TEST(PythonSnippet, BackwardDirectionsUseAutogradOnTheRightTensor) {
  const std::string data = Snippet("t1d_g3_ic3_oc6_i5_k4_s3_op2", Direction::kBackwardData);
  ExpectHas(data, "x.requires_grad_()");
  ExpectHas(data, "dy = torch.randn(1, 6, 18, dtype=torch.float64)");
  ExpectHas(data, "y.backward(dy)");
  ExpectHas(data, "dx = x.grad");
  ExpectHas(data, "print(dx.shape)  # expected torch.Size([1, 3, 5])");
  const std::string weight = Snippet("3d_g2_ic4_oc2_i4_k2_pb1_pe0", Direction::kBackwardWeight);
  ExpectHas(weight, "w.requires_grad_()");
  ExpectHas(weight, "F.pad(x, [1, 0, 1, 0, 1, 0])");
  ExpectHas(weight, "dw = w.grad");
  ExpectHas(weight, "print(dw.shape)  # expected torch.Size([2, 2, 2, 2, 2])");
  EXPECT_EQ(weight.find("x.requires_grad_"), std::string::npos);
}

TEST(PythonSnippet, IllegalProblemsGetAnExplanationNotCode) {
  ConvCase c = Case("2d_ic4_oc4_i9_k3", Direction::kForward);
  c.problem.groups = 3;
  const std::string py = PythonSnippet(c);
  ExpectHas(py, "not a legal convolution");
  EXPECT_EQ(py.find("import"), std::string::npos);
  c.problem.rank = 7;  // must not index past the rank tables
  ExpectHas(PythonSnippet(c), "not a legal convolution");
}

TEST(PythonSnippet, FreeTextCannotBreakTheProgram) {
  ConvCase c = Case("2d_ic4_oc4_i9_k3", Direction::kForward, "evil\nimport os; os.system('x')");
  const std::string py = PythonSnippet(c);
  ExpectHas(py, "# (sut evil?import os; os.system('x'), fill uniform");
  EXPECT_EQ(py.find("\nimport os"), std::string::npos);
}

// ---- UTF-8 and JUnit XML ----------------------------------------------------------------------

TEST(Utf8, ReplacesExactlyTheInvalidSequences) {
  EXPECT_EQ(ValidUtf8("plain µ ✓ \xf0\x9f\x98\x80"), "plain µ ✓ \xf0\x9f\x98\x80");
  EXPECT_EQ(ValidUtf8("a\xff"
                      "b"),
            "a\xef\xbf\xbd"
            "b");
  EXPECT_EQ(ValidUtf8("\xc0\xaf"), "\xef\xbf\xbd\xef\xbf\xbd");                  // overlong '/'
  EXPECT_EQ(ValidUtf8("\xed\xa0\x80"), "\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd");  // a surrogate
  EXPECT_EQ(ValidUtf8("\xe2\x9c"), "\xef\xbf\xbd\xef\xbf\xbd");                  // truncated
  json j = {{"k\xff", {"v\xfe", 1}}};
  MakeValidUtf8(&j);
  EXPECT_NO_THROW(j.dump());
  EXPECT_EQ(j["k\xef\xbf\xbd"][0], "v\xef\xbf\xbd");
}

TEST(JUnitXml, CountsStatusesAndWritesEachElement) {
  std::vector<JUnitCase> cases = {
      {"direct.fwd", "2d_ic4_oc4_i9_k3", 0.0126, JUnitCase::kPassed, "", ""},
      {"direct.bwd_data", "t2d_ic2_oc2_i5_k3", 0.5, JUnitCase::kFailed, "3 of 50 differ",
       "worst (0, 1, 2, 3): expected 1, got 2"},
      {"plugin.fwd", "3d_ic1_oc1_i3_k3", 0, JUnitCase::kSkipped, "unsupported: 3-D", ""},
      {"plugin.fwd", "1d_ic1_oc1_i3_k3", 1, JUnitCase::kError, "crashed: signal 11", "core"},
  };
  const std::string xml = JUnitXml(cases, "convparity check", 1.5126);
  EXPECT_EQ(xml.rfind("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites ", 0), 0u);
  ExpectHas(xml,
            "<testsuite name=\"convparity check\" tests=\"4\" failures=\"1\" errors=\"1\" "
            "skipped=\"1\" time=\"1.513\">");
  ExpectHas(xml, "<testcase classname=\"direct.fwd\" name=\"2d_ic4_oc4_i9_k3\" time=\"0.013\"/>");
  ExpectHas(xml,
            "<failure message=\"3 of 50 differ\" type=\"failure\">worst (0, 1, 2, 3): "
            "expected 1, got 2</failure>");
  ExpectHas(xml, "<skipped message=\"unsupported: 3-D\"/>");
  ExpectHas(xml, "<error message=\"crashed: signal 11\" type=\"error\">core</error>");
  ExpectHas(xml, "</testsuite>\n</testsuites>\n");
}

TEST(JUnitXml, EscapesMarkupAndReplacesWhatXmlForbids) {
  std::vector<JUnitCase> cases = {{"a&b", "<\"name\">", kNaN, JUnitCase::kFailed,
                                   "line1\nline2\tx\x01y\x1b[0m \xff µ", "]]> & <tag>\r\x0c"}};
  const std::string xml = JUnitXml(cases, "s'q\"", -1);
  ExpectHas(xml, "classname=\"a&amp;b\" name=\"&lt;&quot;name&quot;&gt;\" time=\"0.000\"");
  ExpectHas(xml, "message=\"line1&#10;line2&#9;x\xef\xbf\xbdy\xef\xbf\xbd[0m \xef\xbf\xbd µ\"");
  ExpectHas(xml, ">]]&gt; &amp; &lt;tag&gt;&#13;\xef\xbf\xbd</failure>");
  ExpectHas(xml, "name=\"s'q&quot;\"");
  for (char c : xml) {
    const unsigned char u = static_cast<unsigned char>(c);
    EXPECT_TRUE(u >= 0x20 || c == '\n') << "raw control character " << int{u};
  }
  EXPECT_EQ(ValidUtf8(xml), xml);
}

// ---- The campaign summary ---------------------------------------------------------------------

CaseOutcome Outcome(Verdict v, const std::string& reason = "") {
  CaseOutcome o;
  o.verdict = v;
  o.reason = reason;
  o.timing = {0.5, 2.0, 0.25, 0.125, 0.0625, 1.0};
  return o;
}

CampaignSummary Fed() {
  CampaignSummary s;
  s.options.seed = 99;
  s.options.shard_index = 1;
  s.options.shard_count = 4;
  s.options.jobs = 2;
  s.workers = 2;
  s.options.suts = {"direct", "known-bug:tvm-7912"};
  s.options.directions = {"fwd", "bwd_data"};
  s.options.fills = {"exact", "uniform"};
  s.options.dims = {1, 3};
  s.start_time = std::chrono::system_clock::time_point(std::chrono::milliseconds(1795000000123));
  s.end_time = s.start_time + std::chrono::seconds(10);
  s.elapsed_seconds = 10;
  const ConvCase t =
      Case("t2d_g2_ic2_oc4_i5_k3_s2_d2_op1", Direction::kForward, "known-bug:tvm-7912");
  const ConvCase plain = Case("1d_ic1_oc1_i3_k3", Direction::kBackwardData);
  CountCase(&s, t, Outcome(Verdict::kFailed));
  // A second SUT of the same case: its preparation's time is the first one's, its own check's
  // oracle time (a mostly-zero reference's reach) is its own.
  CaseOutcome second = Outcome(Verdict::kPassed);
  second.timing.own_oracle = 0.375;
  second.timing.oracle += second.timing.own_oracle;
  CountCase(&s, t, second, /*count_shared_time=*/false);
  CountCase(&s, plain, Outcome(Verdict::kMistrusted));
  CountCase(&s, plain, Outcome(Verdict::kSkipped, "3-D only"));
  CountCase(&s, plain, Outcome(Verdict::kInvalid, "groups"));
  CountFinding(&s, "sig-a", t, Verdict::kFailed, Symptom::kWrong, "sig-a.json", 0, 0.5);
  CountFinding(&s, "sig-a", t, Verdict::kFailed, Symptom::kWrong, "ignored.json", 7, 3.0);
  s.time.generate = 0.75;
  return s;
}

// What a SUT says it ran is counted over its computed checks, and adds up in a merge.
TEST(CampaignSummary, CountsWhatEachSutSaidItRan) {
  ConvCase c = Case("1d_ic1_oc1_i3_k3", Direction::kForward, "onnxruntime-opt");
  CaseOutcome ran = Outcome(Verdict::kPassed);
  ran.judgement.elements = 3;
  ran.notes.implementation = "com.microsoft:FusedConv";
  CaseOutcome declined = Outcome(Verdict::kSkipped, "no");
  declined.notes.implementation = "not run";
  CampaignSummary a, b;
  CountCase(&a, c, ran);
  CountCase(&a, c, declined);
  CountCase(&b, c, ran);
  ran.notes.implementation = "Conv";
  CountCase(&b, c, ran);
  MergeSummary(&a, b);
  EXPECT_EQ(a.implementations.at("onnxruntime-opt"),
            (std::map<std::string, int64_t>{{"Conv", 1}, {"com.microsoft:FusedConv", 2}}));
}

TEST(CampaignSummary, CountFeedsVerdictsCoverageAndTime) {
  const CampaignSummary s = Fed();
  EXPECT_EQ(s.cases, 5);
  EXPECT_TRUE(s.implementations.empty());  // no SUT said what it ran
  EXPECT_EQ(s.verdicts.at("known-bug:tvm-7912").at("fwd").at("failed"), 1);
  EXPECT_EQ(s.verdicts.at("direct").at("bwd_data").at("skipped"), 1);
  EXPECT_EQ(s.covered, 3);  // skipped and invalid ran nothing
  EXPECT_EQ(s.tags.at("transposed"), 2);
  EXPECT_EQ(s.tags.at("rank1"), 1);
  EXPECT_EQ(s.pairs.at("transposed&grouped"), 2);
  EXPECT_EQ(s.pairs.at("dilation>1&output_padding>0"), 2);
  EXPECT_EQ(s.combinations.at("t2d+grouped+dilation>1+output_padding>0"), 2);
  EXPECT_EQ(s.combinations.at("1d"), 1);
  EXPECT_EQ(s.mistrusted, 1);
  EXPECT_EQ(s.skipped, 1);
  EXPECT_EQ(s.skip_reasons.at("3-D only"), 1);
  EXPECT_DOUBLE_EQ(s.time.oracle, 4 * 2.0 + 0.375);  // one of five shared its preparation
  EXPECT_DOUBLE_EQ(s.time.sut, 5 * 0.25);
  EXPECT_DOUBLE_EQ(s.time.protocol, 4 * 0.0625);  // the worker's time around a case: shared too
  EXPECT_DOUBLE_EQ(s.time.idle, 4 * 1.0);
  const CampaignSummary::Bucket& b = s.buckets.at("sig-a");
  EXPECT_EQ(b.cases, 2);
  EXPECT_EQ(b.report_file, "sig-a.json");
  EXPECT_EQ(b.first_case_index, 0);
}

TEST(CampaignSummary, JsonHoldsEveryFieldOfInterfacesMd) {
  const json j = SummaryJson(Fed(), kTool);
  ExpectKeys(j, {"schema",         "tool",         "options",         "shards",
                 "start_time",     "end_time",     "elapsed_seconds", "cases",
                 "buckets",        "findings",     "shrinking",       "throughput",
                 "time_seconds",   "coverage",     "implementations", "mistrusted",
                 "skipped",        "sut_versions", "mixed_versions",  "incomplete_shards",
                 "missing_shards", "timeline",     "bound_use",       "slow",
                 "invalid_files"},
             "summary");
  EXPECT_EQ(j["schema"], "convparity.summary/3");
  // Shard 1 of 4 alone: the other three are missing.
  EXPECT_EQ(j["missing_shards"], (json{"0/4", "2/4", "3/4"}));
  // Triage (summary/2): distinct findings apart from hits; the second sighting of sig-a is a hit.
  EXPECT_EQ(j["findings"], (json{{"distinct", 1}, {"hits", 1}, {"untriaged", 0}}));
  EXPECT_EQ(j["buckets"][0]["hits"], 1);
  EXPECT_EQ(j["options"]["shard"], (json{{"index", 1}, {"count", 4}}));
  EXPECT_EQ(j["options"]["dims"], (json{1, 3}));
  EXPECT_EQ(j["shards"], (json{"1/4"}));
  EXPECT_EQ(j["start_time"], "2026-11-18T11:06:40.123Z");
  EXPECT_EQ(j["end_time"], "2026-11-18T11:06:50.123Z");
  EXPECT_EQ(j["cases"]["total"], 5);
  EXPECT_EQ(j["cases"]["by_verdict"]["hung"], 0);
  EXPECT_EQ(j["cases"]["by_sut"]["direct"]["bwd_data"]["mistrusted"], 1);
  EXPECT_EQ(j["buckets"][0]["first_seen"], (json{{"case_index", 0}, {"seconds", 0.5}}));
  EXPECT_DOUBLE_EQ(j["throughput"]["cases_per_second"].get<double>(), 0.5);
  EXPECT_DOUBLE_EQ(j["throughput"]["cases_per_second_per_worker"].get<double>(), 0.25);
  ExpectKeys(
      j["time_seconds"],
      {"generate", "fill", "oracle", "bound", "sut", "compare", "shrink", "io", "protocol", "idle"},
      "time");
  EXPECT_EQ(j["coverage"]["tags"].size(), AllFeatureTagNames().size());
  EXPECT_EQ(j["coverage"]["tags"]["kernel>5"], 0);  // zeros are listed too
  const size_t k = CoverageKeyClasses().size();
  EXPECT_EQ(j["coverage"]["pairs"].size(), k * (k - 1) / 2);
  EXPECT_EQ(j["skipped"], (json{{"total", 1}, {"reasons", {{"3-D only", 1}}}}));
}

TEST(CampaignSummary, MergeAddsCountsWidensTimeAndKeepsTheEarliestSighting) {
  CampaignSummary a = Fed(), b = Fed();
  b.options.shard_index = 2;
  b.start_time -= std::chrono::seconds(5);
  b.elapsed_seconds = 12;
  b.buckets.at("sig-a").first_seconds = 0.25;
  b.buckets.at("sig-a").report_file = "from-b.json";
  CountFinding(&b, "sig-b", Case("2d_ic1_oc1_i3_k3", Direction::kForward), Verdict::kHung,
               Symptom::kNone, "b.json", 3, 1.0);
  MergeSummary(&a, b);
  EXPECT_EQ(a.cases, 10);
  EXPECT_EQ(a.workers, 4);
  EXPECT_EQ(a.elapsed_seconds, 12);
  EXPECT_EQ(a.start_time, b.start_time);
  EXPECT_EQ(a.verdicts.at("known-bug:tvm-7912").at("fwd").at("failed"), 2);
  EXPECT_EQ(a.tags.at("transposed"), 4);
  EXPECT_EQ(a.buckets.at("sig-a").cases, 4);
  EXPECT_EQ(a.buckets.at("sig-a").report_file, "from-b.json");
  EXPECT_EQ(a.buckets.at("sig-b").cases, 1);
  EXPECT_DOUBLE_EQ(a.time.generate, 1.5);
  EXPECT_DOUBLE_EQ(a.time.protocol, 2 * 4 * 0.0625);
  EXPECT_DOUBLE_EQ(a.time.idle, 2 * 4 * 1.0);
  EXPECT_EQ(SummaryJson(a, kTool)["shards"], (json{"1/4", "2/4"}));
  CampaignSummary empty;
  MergeSummary(&empty, a);  // an unset start time must not stay the epoch
  EXPECT_EQ(empty.start_time, b.start_time);
  EXPECT_EQ(empty.workers, 4);
}

TEST(CampaignSummary, SkipReasonsAreCappedSoTheFileStaysSmall) {
  CampaignSummary s;
  const ConvCase c = Case("1d_ic1_oc1_i3_k3", Direction::kForward);
  for (int i = 0; i < 100; ++i)
    CountCase(&s, c, Outcome(Verdict::kSkipped, "size " + std::to_string(i)));
  CountCase(&s, c, Outcome(Verdict::kSkipped, std::string(10000, 'r')));
  EXPECT_EQ(s.skip_reasons.size(), CampaignSummary::kMaxSkipReasons + 1);
  EXPECT_EQ(s.skip_reasons.at(CampaignSummary::kOtherReasons), 100 + 1 - 32);
  EXPECT_EQ(s.skipped, 101);
}

}  // namespace
}  // namespace convparity
