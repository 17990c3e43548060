#include "harness/engine/outcome_wire.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmath>
#include <cstring>
#include <fstream>
#include <limits>
#include <string>
#include <vector>

#include "core/descriptor.h"
#include "harness/engine/case_runner.h"

namespace convparity {
namespace {

// Every field set, none to its default, with what JSON cannot hold (NaN, infinities, a NUL byte).
CaseOutcome EveryFieldSet() {
  CaseOutcome o;
  o.verdict = Verdict::kBrokenPromise;
  o.reason = std::string("line one\nline two, a NUL: ") + '\0' + " and after";
  Judgement& j = o.judgement;
  j.verdict = Verdict::kFailed;
  j.elements = 1 << 20;
  j.mismatches = 3;
  j.unwritten = 2;
  j.max_abs_error = std::numeric_limits<double>::quiet_NaN();
  j.max_bound_use = std::numeric_limits<double>::infinity();
  j.max_rel_error = -std::numeric_limits<double>::infinity();
  j.zero_share = 0.25;
  j.data_zero_share = std::numeric_limits<double>::denorm_min();
  j.first = ElementReport{{0, 1, 2, 3}, 1.5, -2.5, 4, 1e-6};
  j.worst = ElementReport{{}, 0, -0.0, 7, 8};
  j.symptom = Symptom::kPrecision;
  o.timing = {0.1, 0.2, 0.3, 0.4, 0.05, 0.6, 0.7};
  o.notes = {"jit:avx2", true};
  o.slow = true;
  o.abandoned = true;
  return o;
}

// Equal to the bit: NaN is equal to itself here, and -0 is not 0.
bool Same(double a, double b) { return std::memcmp(&a, &b, sizeof a) == 0; }

void ExpectSame(const CaseOutcome& a, const CaseOutcome& b) {
  EXPECT_EQ(a.verdict, b.verdict);
  EXPECT_EQ(a.reason, b.reason);
  const Judgement &x = a.judgement, &y = b.judgement;
  EXPECT_EQ(x.verdict, y.verdict);
  EXPECT_EQ(x.elements, y.elements);
  EXPECT_EQ(x.mismatches, y.mismatches);
  EXPECT_EQ(x.unwritten, y.unwritten);
  EXPECT_TRUE(Same(x.max_abs_error, y.max_abs_error));
  EXPECT_TRUE(Same(x.max_bound_use, y.max_bound_use));
  EXPECT_TRUE(Same(x.max_rel_error, y.max_rel_error));
  EXPECT_TRUE(Same(x.zero_share, y.zero_share));
  EXPECT_TRUE(Same(x.data_zero_share, y.data_zero_share));
  for (auto [e, f] : {std::pair{&x.first, &y.first}, std::pair{&x.worst, &y.worst}}) {
    ASSERT_EQ(e->has_value(), f->has_value());
    if (!*e) continue;
    EXPECT_EQ((*e)->index, (*f)->index);
    EXPECT_TRUE(Same((*e)->expected, (*f)->expected));
    EXPECT_TRUE(Same((*e)->got, (*f)->got));
    EXPECT_TRUE(Same((*e)->error, (*f)->error));
    EXPECT_TRUE(Same((*e)->bound, (*f)->bound));
  }
  EXPECT_EQ(x.symptom, y.symptom);
  const CaseTiming &s = a.timing, &t = b.timing;
  for (auto [u, v] : {std::pair{s.fill, t.fill},
                      {s.oracle, t.oracle},
                      {s.own_oracle, t.own_oracle},
                      {s.sut, t.sut},
                      {s.compare, t.compare},
                      {s.protocol, t.protocol},
                      {s.idle, t.idle}})
    EXPECT_TRUE(Same(u, v));
  EXPECT_EQ(a.notes, b.notes);
  EXPECT_EQ(a.slow, b.slow);
  EXPECT_EQ(a.abandoned, b.abandoned);
}

TEST(OutcomeWire, EveryFieldRoundTripsToTheBit) {
  for (const CaseOutcome& o : {EveryFieldSet(), CaseOutcome{}}) {
    const std::string bytes = EncodeOutcome(o);
    Result<CaseOutcome> back = DecodeOutcome(bytes);
    ASSERT_TRUE(back.ok()) << back.status().message();
    ExpectSame(*back, o);
    EXPECT_EQ(EncodeOutcome(*back), bytes);
  }
}

TEST(OutcomeWire, EveryKindOfWorkerAnswerRoundTrips) {
  using Kind = WorkerAnswer::Kind;
  for (const WorkerAnswer& a :
       {WorkerAnswer{Kind::kReady}, WorkerAnswer{Kind::kPrepared, 41, 0.125},
        WorkerAnswer{Kind::kOutcome, ~uint64_t{0}, 0, 11, EveryFieldSet()}}) {
    const std::string framed = FramedAnswer(a);
    uint32_t length = 0;
    std::memcpy(&length, framed.data(), sizeof length);
    EXPECT_EQ(length, framed.size() - sizeof length);
    Result<WorkerAnswer> back = DecodeAnswer(std::string_view(framed).substr(sizeof length));
    ASSERT_TRUE(back.ok()) << back.status().message();
    EXPECT_EQ(back->kind, a.kind);
    EXPECT_EQ(back->id, a.id);
    EXPECT_TRUE(Same(back->oracle_seconds, a.oracle_seconds));
    EXPECT_EQ(back->sut, a.sut);
    ExpectSame(back->outcome, a.outcome);
  }
}

TEST(OutcomeWire, EveryCutShortAnswerIsRefusedWithAMessage) {
  const std::string framed = FramedAnswer({WorkerAnswer::Kind::kOutcome, 3, 0, 1, EveryFieldSet()});
  const std::string_view bytes = std::string_view(framed).substr(sizeof(uint32_t));
  for (size_t n = 0; n < bytes.size(); ++n) {
    Result<WorkerAnswer> cut = DecodeAnswer(bytes.substr(0, n));
    ASSERT_FALSE(cut.ok()) << n << " of " << bytes.size() << " bytes decoded";
    EXPECT_NE(cut.status().message().find(" is cut short"), std::string::npos)
        << cut.status().message();
  }
  Result<WorkerAnswer> longer = DecodeAnswer(std::string(bytes) + "x");
  ASSERT_FALSE(longer.ok());
  EXPECT_EQ(longer.status().message(), "the end is followed by more bytes");
}

// Canonical: a changed byte is refused, or it was a value that decodes to another answer that
// encodes to exactly the changed bytes.
TEST(OutcomeWire, EveryChangedByteIsRefusedOrReadsAsWhatItNowSays) {
  const std::string framed = FramedAnswer({WorkerAnswer::Kind::kOutcome, 3, 0, 1, EveryFieldSet()});
  const std::string bytes = framed.substr(sizeof(uint32_t));
  int refused = 0;
  for (size_t i = 0; i < bytes.size(); ++i)
    for (int bit = 0; bit < 8; ++bit) {
      std::string changed = bytes;
      changed[i] = static_cast<char>(changed[i] ^ (1 << bit));
      Result<WorkerAnswer> read = DecodeAnswer(changed);
      if (!read.ok()) {
        ++refused;
        continue;
      }
      EXPECT_EQ(FramedAnswer(*read).substr(sizeof(uint32_t)), changed) << "byte " << i;
    }
  EXPECT_GT(refused, 0);
}

TEST(OutcomeWire, ValuesOutOfRangeAreNamed) {
  const std::string bytes = EncodeOutcome(CaseOutcome{});
  std::string bad_verdict = bytes;
  bad_verdict[0] = static_cast<char>(static_cast<int>(kLastVerdict) + 1);
  Result<CaseOutcome> v = DecodeOutcome(bad_verdict);
  ASSERT_FALSE(v.ok());
  EXPECT_EQ(v.status().message(), "the verdict is out of range");
  std::string bad_flag = bytes;
  bad_flag.back() = 2;  // `abandoned`
  Result<CaseOutcome> f = DecodeOutcome(bad_flag);
  ASSERT_FALSE(f.ok());
  EXPECT_EQ(f.status().message(), "abandoned is not 0 or 1");
  CaseOutcome endless;
  endless.timing.sut = std::numeric_limits<double>::infinity();
  Result<CaseOutcome> t = DecodeOutcome(EncodeOutcome(endless));
  ASSERT_FALSE(t.ok());
  EXPECT_EQ(t.status().message(), "a time is not finite");
  Result<WorkerAnswer> kind = DecodeAnswer("Z");
  ASSERT_FALSE(kind.ok());
  EXPECT_EQ(kind.status().message(), "the kind 90 is none of R, P, O");
  Result<WorkerAnswer> empty = DecodeAnswer("");
  ASSERT_FALSE(empty.ok());
  EXPECT_EQ(empty.status().message(), "the kind is cut short");
}

// The outcomes of two cases, each of one SUT, run by a fake worker: a shell script that says it is
// ready, then answers each request line with `answer` (printf's escapes).
std::vector<CaseOutcome> RunByFakeWorker(const std::string& answer) {
  char dir_template[] = "/tmp/convparity-wire-XXXXXX";
  if (mkdtemp(dir_template) == nullptr) return {};
  const std::string dir = dir_template, script = dir + "/worker";
  {
    std::ofstream out(script);
    // Ready: a frame of length 1, "R".
    out << "#!/bin/sh\nprintf '\\001\\000\\000\\000R'\n"
        << "while read -r line; do printf '" << answer << "'; done\n";
  }
  chmod(script.c_str(), 0755);
  std::unique_ptr<CaseRunner> runner = MakeIsolatedRunner(script, 10);
  Result<ParsedDescriptor> parsed = ParseDescriptor("fwd:2d_ic1_oc1_i4x4_k1x1");
  EXPECT_TRUE(parsed.ok()) << parsed.status().message();
  ConvCase c;
  c.problem = parsed->problem;
  c.sut = "direct";
  std::vector<CaseOutcome> outcomes;
  for (int k = 0; k < 2; ++k) {
    runner->Submit(c, {"direct"});
    for (CaseOutcome& o : runner->Next()) outcomes.push_back(std::move(o));
  }
  unlink(script.c_str());
  rmdir(dir.c_str());
  return outcomes;
}

// A worker that sends bytes that are no answer, or an answer out of turn, is broken: the case is
// reported crashed with what was wrong (not waited for until a time limit), and the next case
// runs in a new worker.
TEST(OutcomeWire, AWorkerThatSendsWhatIsNoAnswerEndsAsACrash) {
  const std::vector<CaseOutcome> outcomes = RunByFakeWorker("\\001\\000\\000\\000Z");
  ASSERT_EQ(outcomes.size(), 2u);
  for (const CaseOutcome& o : outcomes) {
    EXPECT_EQ(o.verdict, Verdict::kCrashed);
    EXPECT_EQ(o.reason,
              "the worker sent what is no answer (the kind 90 is none of R, P, O) while preparing "
              "the case");
  }
}

TEST(OutcomeWire, AWorkerThatAnswersOutOfTurnEndsAsACrash) {
  // "prepared" for request 99, never sent: a frame of 17 bytes, "P", the id (8 bytes, 99 first on
  // this little-endian machine) and the oracle's time (8 zero bytes).
  std::string frame = "\\021\\000\\000\\000P\\143";
  for (int zero = 0; zero < 15; ++zero) frame += "\\000";
  const std::vector<CaseOutcome> outcomes = RunByFakeWorker(frame);
  ASSERT_EQ(outcomes.size(), 2u);
  for (const CaseOutcome& o : outcomes) {
    EXPECT_EQ(o.verdict, Verdict::kCrashed);
    EXPECT_EQ(o.reason, "the worker sent an answer out of turn while preparing the case");
  }
}

}  // namespace
}  // namespace convparity
