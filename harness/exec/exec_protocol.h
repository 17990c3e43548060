// The messages of the process protocol (PROTOCOL.md), without the process: what convparity writes
// and how it reads what a child writes. Everything read is checked; a violation is Invalid with a
// message that completes "protocol violation: ".
#pragma once

#include <cstddef>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "core/capabilities.h"
#include "core/conv_problem.h"
#include "core/spelling.h"
#include "core/status.h"
#include "harness/models/model_formats.h"

namespace convparity {

inline constexpr int kExecProtocolVersion = 1;
inline constexpr size_t kMaxHeaderBytes = 65536;  // a header line, with its '\n'
inline constexpr size_t kMaxNameBytes = 128;      // a child's name and version
inline constexpr size_t kMaxShownBytes = 200;     // of a reason or message

struct ChildHello {
  std::string name;
  std::string version;
  std::vector<Direction> directions;
  // What it declares it can run (optional), within the single convolutions of `directions` (any
  // graph form for a model reader).
  Capabilities capabilities;
  // A model format convparity writes ("onnx", "tfjs-graph": harness/models/model_formats.h): a
  // frontend, which convparity hands each case as a model (PROTOCOL.md, "Models"); "" computes
  // from buffers.
  std::string model_format;
  // How it wants the model's weights ("model_weights": "constants", the default, or "inputs":
  // after the model's input, their buffers in each run; only for a format that writes them so).
  ModelWeights model_weights = ModelWeights::kConstants;

  bool Implements(Direction d) const;
  bool operator==(const ChildHello& o) const {
    return name == o.name && version == o.version && directions == o.directions &&
           CapabilitiesToJson(capabilities) == CapabilitiesToJson(o.capabilities) &&
           model_format == o.model_format && model_weights == o.model_weights;
  }
  // "name version (fwd, bwd_data)", and ", declaring [...]" (shortened) when it declares.
  std::string Text() const;
};

nlohmann::json HarnessHelloJson(const std::string& harness_version);
Result<ChildHello> ParseChildHello(const std::string& line);

// One buffer of a request: its protocol name and logical (PyTorch) shape.
struct ProtocolBuffer {
  std::string name;
  Shape shape;
};
// The input buffers a direction sends, in protocol order, and the result it asks for.
std::vector<ProtocolBuffer> RequestInputs(const ConvProblem& p, Direction d);
ProtocolBuffer RequestResult(const ConvProblem& p, Direction d);

// The header of a `run` request (the buffers of RequestInputs follow it), with the case's spelling
// when it has one.
nlohmann::json RunRequestJson(uint64_t id, const ConvProblem& p, Direction d,
                              const Spelling& spelling = {});
// The header of a `run` request to a model reader: the model's input (`input_shape`) follows it,
// then its weight inputs' buffers (`weights`, in the model's order: a child that asked for the
// weights as inputs), then the `model_bytes` of the model in `format`; the result is the model's
// output (`output_shape`).
nlohmann::json ModelRequestJson(uint64_t id, const ConvProblem& p, Direction d,
                                const Spelling& spelling, const std::string& format,
                                size_t model_bytes, const Shape& input_shape,
                                const Shape& output_shape,
                                const std::vector<ModelWeightInput>& weights = {});
inline constexpr size_t kMaxModelBytes = size_t{256} << 20;

struct ChildAnswer {
  enum class Kind { kOk, kUnsupported, kError };
  Kind kind = Kind::kError;
  int64_t count = 0;  // kOk: the floats that follow
  // kOk from a model reader: the shape the stack computed, when it says; one other than the
  // request's comes with count 0 (the verdict shape_mismatch).
  Shape shape;
  std::string text;  // kUnsupported: the reason; kError: the message (one line, bounded)
  // kOk: what the stack says it ran (one line, bounded; "" when it does not say), e.g. the ops a
  // graph optimizer left: the run's RunNotes::implementation.
  std::string implementation;
};
// An answer to request `id` that asked for `expected_shape`'s floats.
Result<ChildAnswer> ParseAnswer(const std::string& line, uint64_t id, const Shape& expected_shape);

// Bytes from a child as one printable line of at most `max_bytes` (then "…").
std::string PrintableLine(const std::string& text, size_t max_bytes);

}  // namespace convparity
