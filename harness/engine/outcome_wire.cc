#include "harness/engine/outcome_wire.h"

#include <cmath>
#include <cstring>
#include <string>
#include <type_traits>
#include <utility>

namespace convparity {
namespace {

// Fixed-width values in the machine's own byte order (both ends are this binary), strings and
// shapes with their length in front.
class ByteWriter {
 public:
  template <typename T>
  void Put(T v) {
    static_assert(std::is_arithmetic_v<T>);
    bytes_.append(reinterpret_cast<const char*>(&v), sizeof v);
  }
  void Text(const std::string& s) {
    Put(static_cast<uint32_t>(s.size()));
    bytes_ += s;
  }
  void Dims(const Shape& shape) {
    Put(static_cast<uint8_t>(shape.size()));
    for (int64_t d : shape) Put(d);
  }
  std::string& bytes() { return bytes_; }

 private:
  std::string bytes_;
};

// Reads what ByteWriter wrote; the first value that does not fit or is out of its range makes
// every later read fail too, and `why` says what it was.
class ByteReader {
 public:
  explicit ByteReader(std::string_view bytes) : rest_(bytes) {}

  template <typename T>
  T Get(const char* what) {
    static_assert(std::is_arithmetic_v<T>);
    T v{};
    if (!Take(sizeof v, what)) return v;
    std::memcpy(&v, rest_.data() - sizeof v, sizeof v);
    return v;
  }
  // A time: finite (a NaN would stick in every sum it reaches).
  double Seconds(const char* what) {
    const double v = Get<double>(what);
    if (!std::isfinite(v)) Fail(what, "is not finite");
    return v;
  }
  bool Flag(const char* what) {
    const uint8_t v = Get<uint8_t>(what);
    if (v > 1) Fail(what, "is not 0 or 1");
    return v == 1;
  }
  // An enumeration's value, at most `last`.
  template <typename E>
  E Enum(E last, const char* what) {
    const uint8_t v = Get<uint8_t>(what);
    if (v > static_cast<uint8_t>(last)) Fail(what, "is out of range");
    return static_cast<E>(ok() ? v : 0);
  }
  std::string Text(const char* what) {
    const uint32_t n = Get<uint32_t>(what);
    if (!Take(n, what)) return {};
    return std::string(rest_.data() - n, n);
  }
  Shape Dims(const char* what) {
    constexpr uint8_t kMaxRank = 16;  // a tensor's index; ours have at most 6 axes
    const uint8_t rank = Get<uint8_t>(what);
    if (rank > kMaxRank) Fail(what, "has too many axes");
    Shape shape;
    for (uint8_t k = 0; k < rank && ok(); ++k) shape.push_back(Get<int64_t>(what));
    return shape;
  }

  bool ok() const { return why_.empty(); }
  // The decoded value, when every byte was read and made sense.
  template <typename T>
  Result<T> Finish(T value) {
    if (ok() && !rest_.empty()) Fail("the end", "is followed by more bytes");
    if (!ok()) return Status::Internal(why_);
    return value;
  }

 private:
  bool Take(size_t n, const char* what) {
    if (!ok()) return false;
    if (rest_.size() < n) {
      Fail(what, "is cut short");
      return false;
    }
    rest_.remove_prefix(n);
    return true;
  }
  void Fail(const char* what, const char* how) {
    if (ok()) why_ = std::string(what) + " " + how;
  }

  std::string_view rest_;
  std::string why_;
};

void PutElement(ByteWriter& w, const std::optional<ElementReport>& e) {
  w.Put(static_cast<uint8_t>(e.has_value()));
  if (!e) return;
  w.Dims(e->index);
  for (double v : {e->expected, e->got, e->error, e->bound}) w.Put(v);
}

std::optional<ElementReport> GetElement(ByteReader& r, const char* what) {
  if (!r.Flag(what)) return std::nullopt;
  ElementReport e;
  e.index = r.Dims(what);
  for (double* v : {&e.expected, &e.got, &e.error, &e.bound}) *v = r.Get<double>(what);
  return e;
}

void PutOutcome(ByteWriter& w, const CaseOutcome& out) {
  w.Put(static_cast<uint8_t>(out.verdict));
  w.Text(out.reason);
  const Judgement& j = out.judgement;
  w.Put(static_cast<uint8_t>(j.verdict));
  for (int64_t n : {j.elements, j.mismatches, j.unwritten}) w.Put(n);
  for (double v :
       {j.max_abs_error, j.max_bound_use, j.max_rel_error, j.zero_share, j.data_zero_share})
    w.Put(v);
  PutElement(w, j.first);
  PutElement(w, j.worst);
  w.Put(static_cast<uint8_t>(j.symptom));
  const CaseTiming& t = out.timing;
  for (double v : {t.fill, t.oracle, t.own_oracle, t.sut, t.compare, t.protocol, t.idle}) w.Put(v);
  w.Text(out.notes.implementation);
  for (bool b : {out.notes.inexact, out.slow, out.abandoned}) w.Put(static_cast<uint8_t>(b));
}

CaseOutcome GetOutcome(ByteReader& r) {
  CaseOutcome out;
  out.verdict = r.Enum(kLastVerdict, "the verdict");
  out.reason = r.Text("the reason");
  Judgement& j = out.judgement;
  j.verdict = r.Enum(kLastVerdict, "the judgement's verdict");
  for (int64_t* n : {&j.elements, &j.mismatches, &j.unwritten}) *n = r.Get<int64_t>("a count");
  for (double* v :
       {&j.max_abs_error, &j.max_bound_use, &j.max_rel_error, &j.zero_share, &j.data_zero_share})
    *v = r.Get<double>("an error");
  j.first = GetElement(r, "the first wrong element");
  j.worst = GetElement(r, "the worst element");
  j.symptom = r.Enum(kLastSymptom, "the symptom");
  CaseTiming& t = out.timing;
  for (double* v : {&t.fill, &t.oracle, &t.own_oracle, &t.sut, &t.compare, &t.protocol, &t.idle})
    *v = r.Seconds("a time");
  out.notes.implementation = r.Text("the implementation");
  out.notes.inexact = r.Flag("inexact");
  out.slow = r.Flag("slow");
  out.abandoned = r.Flag("abandoned");
  return out;
}

}  // namespace

std::string EncodeOutcome(const CaseOutcome& out) {
  ByteWriter w;
  PutOutcome(w, out);
  return std::move(w.bytes());
}

Result<CaseOutcome> DecodeOutcome(std::string_view bytes) {
  ByteReader r(bytes);
  CaseOutcome out = GetOutcome(r);
  return r.Finish(std::move(out));
}

std::string FramedAnswer(const WorkerAnswer& answer) {
  ByteWriter w;
  w.Put(uint32_t{0});  // the length, once known
  w.Put(static_cast<uint8_t>(answer.kind));
  if (answer.kind != WorkerAnswer::Kind::kReady) w.Put(answer.id);
  if (answer.kind == WorkerAnswer::Kind::kPrepared) w.Put(answer.oracle_seconds);
  if (answer.kind == WorkerAnswer::Kind::kOutcome) {
    w.Put(answer.sut);
    PutOutcome(w, answer.outcome);
  }
  std::string& bytes = w.bytes();
  const uint32_t length = static_cast<uint32_t>(bytes.size() - sizeof length);
  std::memcpy(bytes.data(), &length, sizeof length);
  return std::move(bytes);
}

Result<WorkerAnswer> DecodeAnswer(std::string_view bytes) {
  ByteReader r(bytes);
  WorkerAnswer answer;
  const uint8_t kind = r.Get<uint8_t>("the kind");
  if (!r.ok()) return r.Finish(std::move(answer));
  using Kind = WorkerAnswer::Kind;
  if (kind != static_cast<uint8_t>(Kind::kReady) && kind != static_cast<uint8_t>(Kind::kPrepared) &&
      kind != static_cast<uint8_t>(Kind::kOutcome))
    return Status::Internal("the kind " + std::to_string(kind) + " is none of R, P, O");
  answer.kind = static_cast<Kind>(kind);
  if (answer.kind != Kind::kReady) answer.id = r.Get<uint64_t>("the request's id");
  if (answer.kind == Kind::kPrepared) answer.oracle_seconds = r.Seconds("the oracle's time");
  if (answer.kind == Kind::kOutcome) {
    answer.sut = r.Get<uint32_t>("the SUT's number");
    answer.outcome = GetOutcome(r);
  }
  return r.Finish(std::move(answer));
}

Result<Verdict> ParseVerdict(const std::string& name) {
  for (int v = 0; v <= static_cast<int>(kLastVerdict); ++v)
    if (name == VerdictName(static_cast<Verdict>(v))) return static_cast<Verdict>(v);
  return Status::Invalid("unknown verdict '" + name + "'");
}

}  // namespace convparity
