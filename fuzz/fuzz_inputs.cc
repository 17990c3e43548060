// libFuzzer target over every reader of user input (docs/INTERFACES.md: nothing a user can type or
// put in a file makes the harness crash, hang or allocate without bound). The first byte picks the
// reader (harness/io/fuzz_support.h, FuzzReader), the rest is its input. Beyond not crashing, each
// reader's own promise is checked where it has one: what parses prints and parses back to the
// same value, what a reader accepts is valid.
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "core/conv_case.h"
#include "core/descriptor.h"
#include "core/graph.h"
#include "generators/byte_decoder.h"
#include "harness/engine/outcome_wire.h"
#include "harness/io/benchdnn_import.h"
#include "harness/io/fuzz_support.h"
#include "harness/plugin/plugin_sut.h"
#include "harness/suts/sut_registry.h"
#include "reports/json_values.h"
#include "reports/summary_json.h"

namespace convparity {
namespace {

[[noreturn]] void Broken(const std::string& reader, const std::string& what) {
  std::fprintf(stderr, "fuzz_inputs: %s: %s\n", reader.c_str(), what.c_str());
  std::abort();
}

void Descriptor(const std::string& text) {
  Result<ParsedDescriptor> parsed = ParseDescriptor(text);
  if (!parsed.ok()) return;
  for (bool long_form : {false, true}) {
    const std::string printed = ProblemDescriptor(parsed->problem, long_form);
    Result<ParsedDescriptor> again = ParseDescriptor(printed);
    if (!again.ok() || again->problem != parsed->problem)
      Broken("descriptor", "'" + printed + "' does not parse back to what it prints");
  }
}

void CaseJson(const std::string& text) {
  Result<ConvCase> c = ParseCaseText(text);
  if (!c.ok()) return;
  const std::string written = JsonFileText(CaseToJson(*c));
  Result<ConvCase> again = ParseCaseText(written);
  if (!again.ok()) Broken("case", "its own output is rejected: " + again.status().message());
  if (!(*again == *c)) Broken("case", "does not read back to the same case: " + written);
}

void SummaryJsonText(const std::string& text) {
  const nlohmann::json j = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded()) return;
  ToolInfo tool;
  Result<CampaignSummary> s = SummaryFromJson(j, &tool);
  if (!s.ok()) return;
  const nlohmann::json written = SummaryJson(*s, tool);
  Result<CampaignSummary> again = SummaryFromJson(written, &tool);
  if (!again.ok()) Broken("summary", "its own output is rejected: " + again.status().message());
  if (SummaryJson(*again, tool) != written) Broken("summary", "does not read back the same");
}

// Whatever a broken worker sends must not crash its parent; what decodes encodes to the same bytes.
void WorkerAnswerBytes(const std::string& bytes) {
  Result<WorkerAnswer> answer = DecodeAnswer(bytes);
  if (!answer.ok()) return;
  if (FramedAnswer(*answer).substr(sizeof(uint32_t)) != bytes)
    Broken("worker answer", "does not encode back to the bytes it was decoded from");
}

void Benchdnn(const std::string& text, bool deconv) {
  ImportOptions options;
  options.deconv = deconv;
  options.limits.max_depth = 1;  // no --batch: a fuzz input names no files to read
  options.max_runs = 100000;
  Result<BenchdnnImport> imported = ParseBenchdnnText(text, "<fuzz>", options);
  if (!imported.ok()) return;
  for (const BenchdnnProblem& b : imported->problems) {
    if (Status st = Validate(b.problem); !st.ok())
      Broken("benchdnn", "'" + b.descriptor + "' imported as an invalid problem: " + st.message());
    const ConvProblem scaled = ScaleDown(b.problem, ScaleOptions{2, 16, 100000});
    if (Status st = Validate(scaled); !st.ok())
      Broken("benchdnn",
             "'" + b.descriptor + "' scaled down to an invalid problem: " + st.message());
  }
}

void PluginStruct(const std::string& bytes) {
  convparity_problem s{};
  std::memcpy(&s, bytes.data(), std::min(bytes.size(), sizeof s));
  Result<ConvProblem> p = ProblemFromPluginStruct(s);
  if (!p.ok()) return;
  if (!Validate(*p).ok()) Broken("plugin struct", "accepted an invalid problem");
  Result<ConvProblem> again = ProblemFromPluginStruct(PluginStructFromProblem(*p));
  if (!again.ok() || *again != *p) Broken("plugin struct", "does not round-trip");
}

void ByteDecoder(const std::string& bytes) {
  ByteDecoderOptions options;
  // transform:legalize takes chains; opencv-dnn takes chains and spellings (only decoded here).
  options.suts = {"direct", "direct-reverse", "transform:legalize", "opencv-dnn"};
  options.runs_graphs = [](const std::string& sut) { return RunsGraphs(sut); };
  options.reads_models = [](const std::string& sut) { return ReadsModels(sut); };
  const ConvCase c = DecodeCase(bytes, options);
  if (Status st = CheckLimits(c.problem, Limits{}); !st.ok())
    Broken("byte decoder", "decoded an unusable problem: " + st.message());
  if (c.problem.macs() > LargeMacs(options)) Broken("byte decoder", "over the MAC cap");
  if (*c.graph != ConvForm() && !RunsGraphs(c.sut))
    Broken("byte decoder",
           "decoded a " + c.graph->name + " for " + c.sut + ", which runs single convolutions");
  if (!c.spelling.plain() && !ReadsModels(c.sut))
    Broken("byte decoder", "spelled a case of " + c.sut + ", which reads no model");
  if (Status st = CheckSpelling(c.spelling, c.problem); !st.ok())
    Broken("byte decoder", "decoded a spelling that does not fit: " + st.message());
  // A large case may pass the ordinary cap (up to LargeMacs); a graph never does.
  if (*c.graph != ConvForm() && FormMacs(*c.graph, c.problem) > options.max_macs)
    Broken("byte decoder", "a " + c.graph->name + " over the MAC cap");
  Result<std::string> encoded = EncodeCase(c, options);
  if (encoded.ok() && !(DecodeCase(*encoded, options) == c))
    Broken("byte decoder", "EncodeCase returned bytes of another case");
}

}  // namespace
}  // namespace convparity

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace convparity;
  if (size == 0) return 0;
  const std::string rest(reinterpret_cast<const char*>(data) + 1, size - 1);
  switch (static_cast<FuzzReader>(data[0] % kFuzzReaderCount)) {
    case FuzzReader::kDescriptor:
      Descriptor(rest);
      break;
    case FuzzReader::kCaseJson:
      CaseJson(rest);
      break;
    case FuzzReader::kSummaryJson:
      SummaryJsonText(rest);
      break;
    case FuzzReader::kWorkerAnswer:
      WorkerAnswerBytes(rest);
      break;
    case FuzzReader::kBenchdnn:
      Benchdnn(rest, false);
      break;
    case FuzzReader::kBenchdnnDeconv:
      Benchdnn(rest, true);
      break;
    case FuzzReader::kPluginStruct:
      PluginStruct(rest);
      break;
    case FuzzReader::kByteDecoder:
      ByteDecoder(rest);
      break;
  }
  return 0;
}
