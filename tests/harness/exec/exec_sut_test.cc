// exec: SUTs (harness/exec): the protocol both ways. The Python reference SUT, checking every
// header against protocol.schema.json, agrees with the oracle in every direction and kind; a child
// that crashes, hangs, exits early, writes a short buffer or a wrong count, prints garbage, or
// changes its hello gives the right verdict with its stderr, and the next case runs on a fresh
// child; a child that cannot say hello is refused at the start.
#include "harness/exec/exec_sut.h"

#include <gtest/gtest.h>
#include <rapidcheck.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <memory>
#include <string>
#include <vector>

#include "core/descriptor.h"
#include "core/prng.h"
#include "generators/problem_gen.h"
#include "harness/engine/check_case.h"
#include "harness/exec/exec_protocol.h"

namespace convparity {
namespace {

const std::string kPython = "/usr/bin/python3 ";
const std::string kReference =
    kPython + CONVPARITY_SOURCE_DIR "/adapters/python_reference/reference_sut.py --check-schema";
const std::string kMisbehaving =
    kPython + CONVPARITY_SOURCE_DIR "/tests/harness/exec/misbehaving_sut.py ";

bool Passed(Verdict v) { return v == Verdict::kPassed || v == Verdict::kMistrusted; }

ConvProblem Parse(const std::string& descriptor) {
  Result<ParsedDescriptor> parsed = ParseDescriptor(descriptor);
  EXPECT_TRUE(parsed.ok()) << descriptor << ": " << parsed.status().message();
  return parsed.ok() ? parsed->problem : ConvProblem{};
}

std::unique_ptr<ExecSut> MustStart(const std::string& command, ExecOptions options = {}) {
  Result<std::unique_ptr<ExecSut>> sut = ExecSut::Start(command, "exec:test", options);
  EXPECT_TRUE(sut.ok()) << sut.status().message();
  return sut.ok() ? std::move(sut).value() : nullptr;
}

CaseOutcome Check(Sut& sut, const std::string& descriptor, Direction d, Fill fill = Fill::kExact) {
  return CheckCase(ConvCase{Parse(descriptor), d, sut.name(), fill, 7}, sut);
}

// ---- The reference SUT against the oracle ---------------------------------------------------

TEST(ExecReference, AgreesWithTheOracleInEveryDirectionKindAndLayout) {
  std::unique_ptr<ExecSut> sut = MustStart(kReference);
  ASSERT_NE(sut, nullptr);
  EXPECT_EQ(sut->hello().name, "python-reference");
  ProblemSpace space;
  space.max_macs = 20000;  // numpy's naive loops: small problems, many of them
  const rc::Gen<ConvProblem> gen = GenProblem(space);
  int checked = 0, passed = 0;
  for (uint64_t i = 0; i < 60; ++i) {
    const ConvProblem p = gen(rc::Random(MixSeed(20261124, i)), rc::kNominalSize).value();
    for (Direction d : AllDirections())
      for (Fill fill : {Fill::kExact, Fill::kUniform, Fill::kWide}) {
        const CaseOutcome out = CheckCase(ConvCase{p, d, sut->name(), fill, i}, *sut);
        if (out.verdict == Verdict::kSkipped) continue;  // exact mode cannot take every reduction
        ++checked;
        passed += Passed(out.verdict);
        EXPECT_TRUE(Passed(out.verdict)) << CaseDescriptor(p, d) << " " << FillName(fill) << ": "
                                         << VerdictName(out.verdict) << ": " << out.reason;
      }
  }
  EXPECT_GT(checked, 450);
  EXPECT_EQ(passed, checked);
  EXPECT_EQ(sut->children_started(), 1) << "one long-lived child serves every case";
}

TEST(ExecReference, AWrongAnswerIsCaught) {
  // The same child through a mapping that makes its results wrong: a test that can fail.
  std::unique_ptr<ExecSut> sut = MustStart(
      kPython + "-c \"import sys; sys.argv[1:] = []; sys.path.insert(0, '" CONVPARITY_SOURCE_DIR
                "/adapters/python_reference'); import reference_sut as r; f = r.compute; "
                "r.compute = lambda q, i: f(q, i) * 1.001; sys.exit(r.main())\"");
  ASSERT_NE(sut, nullptr);
  EXPECT_EQ(Check(*sut, "2d_ic3_oc2_i6x6_k3x3", Direction::kForward, Fill::kUniform).verdict,
            Verdict::kFailed);
}

// ---- Children that misbehave ----------------------------------------------------------------

struct Misbehaviour {
  std::string mode;
  Verdict verdict;  // of the second case
  std::vector<std::string> reason_has;
  int children;  // started over the three cases
};

class ExecMisbehaving : public testing::TestWithParam<Misbehaviour> {};

TEST_P(ExecMisbehaving, GivesItsVerdictAndTheNextCaseRunsOnAFreshChild) {
  const Misbehaviour& m = GetParam();
  ExecOptions options;
  options.answer_seconds = 2;  // the hang
  std::unique_ptr<ExecSut> sut = MustStart(kMisbehaving + m.mode, options);
  ASSERT_NE(sut, nullptr);
  const std::string descriptor = "2d_ic2_oc3_i5x5_k3x3_p1x1";
  EXPECT_EQ(Check(*sut, descriptor, Direction::kForward).verdict, Verdict::kPassed);
  const CaseOutcome second = Check(*sut, descriptor, Direction::kBackwardData);
  EXPECT_EQ(second.verdict, m.verdict) << second.reason;
  for (const std::string& part : m.reason_has)
    EXPECT_NE(second.reason.find(part), std::string::npos)
        << "'" << part << "' not in: " << second.reason;
  const CaseOutcome third = Check(*sut, descriptor, Direction::kBackwardWeight);
  EXPECT_TRUE(Passed(third.verdict)) << third.reason;
  EXPECT_EQ(sut->children_started(), m.children);
}

INSTANTIATE_TEST_SUITE_P(
    Modes, ExecMisbehaving,
    testing::Values(
        Misbehaviour{"crash", Verdict::kCrashed, {"killed by SIGSEGV", "about to crash"}, 2},
        Misbehaviour{"hang", Verdict::kHung, {"no answer within 2 s", "hanging on request 2"}, 2},
        Misbehaviour{"exit", Verdict::kCrashed, {"exited with code 3", "while computing"}, 2},
        Misbehaviour{"short", Verdict::kCrashed, {"short buffer"}, 2},
        Misbehaviour{
            "garbage", Verdict::kCrashed, {"protocol violation", "a log line on stdout"}, 2},
        Misbehaviour{"count", Verdict::kCrashed, {"protocol violation", "count"}, 2},
        // An error or a decline is the stack's answer: the child stays.
        Misbehaviour{"error", Verdict::kCrashed, {"an error of the stack"}, 1},
        Misbehaviour{"unsupported", Verdict::kSkipped, {"declines request 2"}, 1}),
    [](const testing::TestParamInfo<Misbehaviour>& info) { return info.param.mode; });

TEST(ExecMisbehaving, ARestartedChildThatChangesItsHelloIsAFinding) {
  char state[] = "/tmp/convparity-exec-lie-XXXXXX";
  ASSERT_NE(mkdtemp(state), nullptr);
  const std::string marker = std::string(state) + "/started";
  setenv("CONVPARITY_TEST_STATE", marker.c_str(), 1);
  // The child dies on its second request; the one started next says another version.
  std::unique_ptr<ExecSut> sut = MustStart(kMisbehaving + "lie");
  ASSERT_NE(sut, nullptr);
  const std::string descriptor = "1d_ic2_oc2_i5_k3";
  EXPECT_EQ(Check(*sut, descriptor, Direction::kForward).verdict, Verdict::kPassed);
  EXPECT_EQ(Check(*sut, descriptor, Direction::kForward).verdict, Verdict::kCrashed);
  // ... and the fresh child's other version is a finding of the next.
  const CaseOutcome lied = Check(*sut, descriptor, Direction::kForward);
  EXPECT_EQ(lied.verdict, Verdict::kCrashed);
  EXPECT_NE(lied.reason.find("restarted child says it is misbehaving-lie 2, after a restart"),
            std::string::npos)
      << lied.reason;
  unsetenv("CONVPARITY_TEST_STATE");
  std::remove(marker.c_str());
  std::remove(state);
}

// ---- Starting ---------------------------------------------------------------------------------

TEST(ExecStart, AChildThatCannotSayHelloIsBadInputWithItsStderr) {
  ExecOptions quick;
  quick.startup_seconds = 1;
  const std::pair<std::string, std::vector<std::string>> cases[] = {
      {kMisbehaving + "protocol2", {"speaks protocol 2", "this convparity speaks 1"}},
      {"sh -c 'echo no such stack >&2; exit 5'",
       {"ended before its hello", "exited with code 5", "no such stack"}},
      {"sh -c 'echo Hi there, I am a banner; sleep 5'", {"expected the child's hello", "Hi there"}},
      {"sleep 5", {"no hello within 1 s"}},
      {"  ", {"no command given"}},
  };
  for (const auto& [command, parts] : cases) {
    Result<std::unique_ptr<ExecSut>> sut = ExecSut::Start(command, "exec:" + command, quick);
    ASSERT_FALSE(sut.ok()) << command;
    EXPECT_EQ(sut.status().code(), StatusCode::kInvalid);
    for (const std::string& part : parts)
      EXPECT_NE(sut.status().message().find(part), std::string::npos)
          << "'" << part << "' not in: " << sut.status().message();
    EXPECT_EQ(sut.status().message().find('\n'), std::string::npos) << "one line";
  }
}

TEST(ExecStart, ADirectionTheHelloDoesNotListIsSkippedWithoutAsking) {
  std::unique_ptr<ExecSut> sut = MustStart(
      kPython + "-c \"import sys; sys.path.insert(0, '" CONVPARITY_SOURCE_DIR
                "/adapters/python_reference'); import reference_sut as r, convparity_protocol as "
                "p; sys.exit(p.serve('fwd-only', '1', ['fwd'], r.compute))\"");
  ASSERT_NE(sut, nullptr);
  EXPECT_EQ(Check(*sut, "2d_ic2_oc2_i4x4_k3x3", Direction::kForward).verdict, Verdict::kPassed);
  const CaseOutcome skipped = Check(*sut, "2d_ic2_oc2_i4x4_k3x3", Direction::kBackwardData);
  EXPECT_EQ(skipped.verdict, Verdict::kSkipped);
  EXPECT_NE(skipped.reason.find("fwd-only does not implement bwd_data"), std::string::npos);
}

// ---- Messages ---------------------------------------------------------------------------------

TEST(ExecProtocol, AnswersAreCheckedAgainstTheRequest) {
  EXPECT_TRUE(ParseAnswer(R"({"type":"ok","id":3,"count":12})", 3, Shape{3, 4}).ok());
  EXPECT_FALSE(ParseAnswer(R"({"type":"ok","id":3,"count":13})", 3, Shape{3, 4}).ok());
  EXPECT_FALSE(ParseAnswer(R"({"type":"ok","id":2,"count":12})", 3, Shape{3, 4}).ok());
  EXPECT_FALSE(ParseAnswer(R"({"type":"ok","id":3})", 3, Shape{3, 4}).ok());
  EXPECT_FALSE(ParseAnswer(R"({"type":"done","id":3})", 3, Shape{3, 4}).ok());
  EXPECT_FALSE(ParseAnswer("not json", 3, Shape{3, 4}).ok());
  // What the stack ran, one bounded line; anything but a string is a violation.
  Result<ChildAnswer> said = ParseAnswer(
      R"({"type":"ok","id":3,"count":12,"implementation":"Conv\nFusedConv"})", 3, Shape{3, 4});
  ASSERT_TRUE(said.ok());
  EXPECT_EQ(said->implementation, "Conv FusedConv");
  EXPECT_FALSE(
      ParseAnswer(R"({"type":"ok","id":3,"count":12,"implementation":7})", 3, Shape{3, 4}).ok());
  Result<ChildAnswer> declined =
      ParseAnswer(R"({"type":"unsupported","id":3,"reason":"a\nb"})", 3, Shape{3, 4});
  ASSERT_TRUE(declined.ok());
  EXPECT_EQ(declined->kind, ChildAnswer::Kind::kUnsupported);
  EXPECT_EQ(declined->text, "a b");
  // A model reader may say the shape it computed: the request's with the floats, another with none.
  Result<ChildAnswer> same =
      ParseAnswer(R"({"type":"ok","id":3,"count":12,"shape":[3,4]})", 3, Shape{3, 4});
  ASSERT_TRUE(same.ok());
  EXPECT_EQ(same->count, 12);
  Result<ChildAnswer> other =
      ParseAnswer(R"({"type":"ok","id":3,"count":0,"shape":[3,5]})", 3, Shape{3, 4});
  ASSERT_TRUE(other.ok());
  EXPECT_EQ(other->count, 0);
  EXPECT_EQ(other->shape, (Shape{3, 5}));
  EXPECT_FALSE(
      ParseAnswer(R"({"type":"ok","id":3,"count":15,"shape":[3,5]})", 3, Shape{3, 4}).ok());
  EXPECT_FALSE(ParseAnswer(R"({"type":"ok","id":3,"count":0,"shape":[-3]})", 3, Shape{3, 4}).ok());
  // An empty shape differs from every request's and would be waited on for floats: refused.
  EXPECT_FALSE(ParseAnswer(R"({"type":"ok","id":3,"count":0,"shape":[]})", 3, Shape{3, 4}).ok());
}

TEST(ExecProtocol, RequestsCarryTheSpellingAndAModelReadersModel) {
  const ConvProblem p = ParseDescriptor("2d_ic2_oc3_i5x5_k3x3_pb1x0_nhwc_b")->problem;
  const Spelling s = *ParseSpellingText("pads=pad_op");
  EXPECT_FALSE(RunRequestJson(1, p, Direction::kForward).contains("spelling"));
  EXPECT_EQ(RunRequestJson(1, p, Direction::kForward, s)["spelling"],
            nlohmann::json({{"pads", "pad_op"}}));
  const nlohmann::json m =
      ModelRequestJson(2, p, Direction::kForward, s, "onnx", 1234, {1, 5, 5, 2}, {1, 4, 3, 3});
  EXPECT_EQ(m["model"], nlohmann::json({{"format", "onnx"}, {"size", 1234}}));
  EXPECT_EQ(m["inputs"],
            nlohmann::json::parse(R"([{"name":"input","shape":[1,5,5,2],"count":50}])"));
  EXPECT_EQ(m["result"]["shape"], nlohmann::json({1, 4, 3, 3}));
  EXPECT_EQ(m["spelling"], nlohmann::json({{"pads", "pad_op"}}));
  // The weights as inputs: their buffers after the input's, in the model's order and shapes.
  const nlohmann::json w =
      ModelRequestJson(3, p, Direction::kForward, s, "onnx", 1234, {1, 5, 5, 2}, {1, 4, 3, 3},
                       {{"v4", {3, 2, 3, 3}, {}}, {"b", {3}, {}}});
  EXPECT_EQ(w["inputs"], nlohmann::json::parse(R"([{"name":"input","shape":[1,5,5,2],"count":50},
                                                   {"name":"v4","shape":[3,2,3,3],"count":54},
                                                   {"name":"b","shape":[3],"count":3}])"));
}

TEST(ExecProtocol, AHelloMayAskForTheModelsWeightsAsInputs) {
  const std::string head =
      R"({"type":"hello","protocol":1,"name":"f","version":"1","directions":["fwd"])";
  Result<ChildHello> plain = ParseChildHello(head + R"(,"model_format":"onnx"})");
  ASSERT_TRUE(plain.ok()) << plain.status().message();
  EXPECT_EQ(plain->model_weights, ModelWeights::kConstants);
  Result<ChildHello> constants =
      ParseChildHello(head + R"(,"model_format":"onnx","model_weights":"constants"})");
  ASSERT_TRUE(constants.ok()) << constants.status().message();
  EXPECT_EQ(constants->model_weights, ModelWeights::kConstants);
  EXPECT_TRUE(*constants == *plain);
  Result<ChildHello> inputs =
      ParseChildHello(head + R"(,"model_format":"onnx","model_weights":"inputs"})");
  ASSERT_TRUE(inputs.ok()) << inputs.status().message();
  EXPECT_EQ(inputs->model_weights, ModelWeights::kInputs);
  EXPECT_NE(inputs->Text().find("reading onnx models, their weights as inputs"), std::string::npos)
      << inputs->Text();
  // A restarted child that asks otherwise says something else about itself.
  EXPECT_FALSE(*inputs == *plain);
  const std::pair<const char*, const char*> bad[] = {
      {R"(,"model_format":"onnx","model_weights":"initializers"})",
       "the child's \"model_weights\" is 'initializers'; convparity writes a model's weights as "
       "constants or inputs"},
      {R"(,"model_format":"onnx","model_weights":1})", "\"model_weights\" must be a string"},
      {R"(,"model_format":"onnx","model_weights":""})",
       "the child's \"model_weights\" is ''; convparity writes a model's weights as constants "
       "or inputs"},
      {R"(,"model_weights":"inputs"})",
       "the child's \"model_weights\" is 'inputs' but it names no \"model_format\""},
      {R"(,"model_format":"tfjs-graph","model_weights":"inputs"})",
       "the child's \"model_weights\" is 'inputs', which convparity does not write in "
       "tfjs-graph models"},
  };
  for (const auto& [tail, message] : bad) {
    Result<ChildHello> h = ParseChildHello(head + tail);
    ASSERT_FALSE(h.ok()) << tail;
    EXPECT_EQ(h.status().message(), message);
  }
}

// The schema names the values the hello's parser takes.
TEST(ExecProtocol, TheSchemaNamesTheModelWeightsValues) {
  std::ifstream in(CONVPARITY_SOURCE_DIR "/harness/exec/protocol.schema.json");
  const nlohmann::json schema = nlohmann::json::parse(in);
  EXPECT_EQ(schema["$defs"]["child_hello"]["properties"]["model_weights"]["enum"],
            nlohmann::json(std::vector<std::string>(std::begin(kModelWeightsNames),
                                                    std::end(kModelWeightsNames))));
}

TEST(ExecProtocol, AHelloMayNameTheModelFormatItReads) {
  Result<ChildHello> h = ParseChildHello(
      R"({"type":"hello","protocol":1,"name":"f","version":"1","directions":["fwd"],"model_format":"onnx"})");
  ASSERT_TRUE(h.ok()) << h.status().message();
  EXPECT_EQ(h->model_format, "onnx");
  EXPECT_NE(h->Text().find("reading onnx models"), std::string::npos);
  EXPECT_NE(
      ParseChildHello(
          R"({"type":"hello","protocol":1,"name":"f","version":"1","directions":["fwd"],"model_format":"tflite"})")
          .status()
          .message()
          .find("convparity writes onnx or tfjs-graph"),
      std::string::npos);
}

TEST(ExecProtocol, AHelloNamesItsStackVersionAndDirections) {
  Result<ChildHello> hello = ParseChildHello(
      R"({"type":"hello","protocol":1,"name":"x","version":"2","directions":["bwd_weight","fwd"]})");
  ASSERT_TRUE(hello.ok()) << hello.status().message();
  EXPECT_EQ(hello->Text(), "x 2 (fwd, bwd_weight)");
  for (const char* bad :
       {R"({"type":"hello","protocol":1,"name":"","version":"2","directions":["fwd"]})",
        R"({"type":"hello","protocol":1,"name":"x","version":"2","directions":[]})",
        R"({"type":"hello","protocol":1,"name":"x","version":"2","directions":["sideways"]})",
        R"({"type":"hello","protocol":"1","name":"x","version":"2","directions":["fwd"]})",
        R"({"type":"error","message":"no"})"})
    EXPECT_FALSE(ParseChildHello(bad).ok()) << bad;
}

// A hello may declare what the child can run; a malformed declaration fails the hello, and one
// that names a direction the child does not implement is held within those it does.
TEST(ExecProtocol, AHelloMayDeclareWhatTheChildCanRun) {
  const std::string head = R"({"type":"hello","protocol":1,"name":"x","version":"2",)"
                           R"("directions":["fwd","bwd_data"])";
  Result<ChildHello> hello = ParseChildHello(head + "}");
  ASSERT_TRUE(hello.ok()) << hello.status().message();
  EXPECT_FALSE(hello->capabilities.declared);
  hello = ParseChildHello(head + R"(,"capabilities":null})");
  ASSERT_TRUE(hello.ok()) << hello.status().message();
  EXPECT_FALSE(hello->capabilities.declared);
  hello = ParseChildHello(head + R"(,"capabilities":[{"ranks":[1,2]}]})");
  ASSERT_TRUE(hello.ok()) << hello.status().message();
  EXPECT_EQ(CapabilitiesToJson(hello->capabilities),
            nlohmann::json::parse(R"([{"forms":["conv"],"directions":["fwd","bwd_data"],)"
                                  R"("ranks":[1,2]}])"));
  EXPECT_FALSE(*hello == *ParseChildHello(head + R"(,"capabilities":[{"ranks":[1]}]})"));
  Result<ChildHello> bad = ParseChildHello(head + R"(,"capabilities":[{"ranks":[4]}]})");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().message(), "the child's capabilities[0].ranks: 4 is not a rank (1, 2, 3)");
  EXPECT_FALSE(ParseChildHello(head + R"(,"capabilities":{"ranks":[1]}})").ok());
}

}  // namespace
}  // namespace convparity
