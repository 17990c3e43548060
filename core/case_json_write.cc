// CaseToJson: writing a case file (convparity.case/1).
#include <algorithm>
#include <vector>

#include "core/conv_case.h"
#include "core/descriptor.h"

namespace convparity {
namespace {

using nlohmann::json;

json ProblemToJson(const ConvProblem& p) {
  int r = std::max(0, std::min(p.rank, kMaxSpatialRank));
  auto dims = [r](const Dims& d) { return json(std::vector<int64_t>(d.begin(), d.begin() + r)); };
  return json{{"rank", p.rank},
              {"transposed", p.transposed},
              {"batch", p.batch},
              {"in_channels", p.in_channels},
              {"out_channels", p.out_channels},
              {"groups", p.groups},
              {"input", dims(p.input)},
              {"kernel", dims(p.kernel)},
              {"stride", dims(p.stride)},
              {"pad_begin", dims(p.pad_begin)},
              {"pad_end", dims(p.pad_end)},
              {"dilation", dims(p.dilation)},
              {"output_padding", dims(p.output_padding)},
              {"data_layout", DataLayoutName(p.data_layout, p.rank)},
              {"weight_layout", WeightLayoutName(p.weight_layout, p.rank)},
              {"bias", p.bias},
              {"dtype", DTypeName(p.dtype)}};
}

}  // namespace

json CaseToJson(const ConvCase& c, bool with_descriptor) {
  json j = json::object();
  j["schema"] = kCaseSchema;
  // A problem with a field no descriptor can spell (negative, huge, bad rank) goes without one:
  // the expanded problem alone still reproduces it, and reading it back stays exact.
  if (with_descriptor) {
    std::string descriptor = CaseDescriptor(c.problem, c.direction);
    Result<ParsedDescriptor> parsed = ParseDescriptor(descriptor);
    if (parsed.ok() && parsed->problem == c.problem) j["descriptor"] = descriptor;
  }
  j["problem"] = ProblemToJson(c.problem);
  j["direction"] = DirectionName(c.direction);
  j["sut"] = c.sut;
  j["fill"] = FillName(c.fill);
  j["seed"] = c.seed;  // an unsigned JSON integer: nlohmann keeps all 64 bits
  j["expect"] = VerdictName(c.expect);
  if (!c.note.empty()) j["note"] = c.note;
  if (c.graph != GraphForm::kConv) j["graph"] = GraphFormName(c.graph);
  if (c.transform)
    j["transform"] = {{"pipeline", c.transform->pipeline}, {"graph", c.transform->graph}};
  // Written only when set, so that cases without them stay byte-identical to older files.
  if (c.algorithm != Algorithm::kDirect) j["algorithm"] = AlgorithmName(c.algorithm);
  if (!c.origin.empty()) j["origin"] = OriginToJson(c.origin);
  return j;
}

}  // namespace convparity
