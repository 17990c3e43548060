// CaseOutcome as bytes: how a worker process hands verdicts back to its campaign
// (worker_process.h), and a child of its SUT host to the worker (sut_host.h). Not a file format:
// both ends are this binary, so it only has to round-trip exactly, fast (a campaign of small cases
// sends tens of thousands of outcomes a minute, and building them as JSON cost more than the small
// cases' comparison) and safely: whatever bytes a broken worker sends, decoding fails with a
// message saying what was wrong ("the reason is cut short"; the caller says whose bytes they were),
// never crashes. The encoding is canonical: decoding then encoding gives the same bytes.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "core/status.h"
#include "core/verdict.h"

namespace convparity {

std::string EncodeOutcome(const CaseOutcome& out);
Result<CaseOutcome> DecodeOutcome(std::string_view bytes);

// A worker's answers to its parent (worker_process.h has the protocol). Each travels as a frame:
// its length (4 bytes), then the answer's bytes.
struct WorkerAnswer {
  enum class Kind : uint8_t {
    kReady = 'R',     // started, the oracle loaded
    kPrepared = 'P',  // request `id`'s inputs and reference are there
    kOutcome = 'O',   // request `id`'s SUT number `sut` ran
  };
  Kind kind = Kind::kReady;
  uint64_t id = 0;
  double oracle_seconds = 0;  // kPrepared: the oracle's time, which an adaptive timeout scales
  uint32_t sut = 0;           // kOutcome
  CaseOutcome outcome;        // kOutcome
};
// Larger frames are a broken worker's, not an answer (an outcome is a few hundred bytes).
constexpr uint32_t kMaxAnswerBytes = 1 << 24;

std::string FramedAnswer(const WorkerAnswer& answer);       // with its length in front
Result<WorkerAnswer> DecodeAnswer(std::string_view bytes);  // without it

// A verdict by its name (VerdictName), as the SUT host's children send it.
Result<Verdict> ParseVerdict(const std::string& name);

}  // namespace convparity
