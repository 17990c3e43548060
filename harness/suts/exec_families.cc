// The families of systems under test reached through the process protocol (harness/exec/): any
// command (`exec:<command line>`) and the named adapters of adapters/ (tfjs-wasm, …).
#include <algorithm>
#include <cstring>

#include "harness/exec/exec_adapters.h"
#include "harness/exec/exec_sut.h"
#include "harness/models/model_sut.h"
#include "harness/suts/sut_config.h"
#include "harness/suts/sut_family.h"
#include "harness/suts/sut_registry.h"

namespace convparity {
namespace {

ExecOptions ExecOptionsFor(const SutConfig& config) {
  ExecOptions options;
  // A worker's parent declares a case hung after the full timeout: the child's own deadline comes
  // first, so that the verdict carries the child's stderr.
  options.answer_seconds = 0.8 * config.case_timeout_seconds;
  options.startup_seconds = std::max(options.answer_seconds, 60.0);
  return options;
}

// The child as the SUT `name`: a model reader (its hello names a model_format) runs the models
// harness/models writes of each case, with their weights as the hello asks.
std::unique_ptr<Sut> ExecAsSut(std::unique_ptr<ExecSut> child, const std::string& name) {
  if (child->hello().model_format.empty()) return child;
  const std::string format = child->hello().model_format;
  const ModelWeights weights = child->hello().model_weights;
  const Capabilities capabilities = child->capabilities();
  const std::string version = child->hello().name + " " + child->hello().version;
  std::shared_ptr<ExecSut> owned(std::move(child));
  return std::make_unique<ModelSut>(
      name, format,
      [owned](ModelRun& run) {
        return owned->RunModel(*run.problem, run.direction, *run.spelling, run.model, run.input,
                               run.input_shape, run.weights, run.output, run.output_shape,
                               &run.result_shape);
      },
      version, capabilities, [owned] { return owned->LastRunNotes(); }, weights);
}

Result<std::unique_ptr<Sut>> StartAsSut(const std::string& command, const std::string& name,
                                        const SutConfig& config) {
  Result<std::unique_ptr<ExecSut>> child = StartExecSut(command, name, ExecOptionsFor(config));
  if (!child.ok()) return child.status();
  return ExecAsSut(std::move(child).value(), name);
}

}  // namespace

SutFamily ExecFamily() {
  SutFamily f;
  f.name = "exec";
  f.owns = OwnsPrefix(kExecSutPrefix);
  f.make = [](const std::string& sut, const SutConfig& config) {
    return StartAsSut(sut.substr(std::strlen(kExecSutPrefix)), sut, config);
  };
  f.list = [] {
    return std::vector<SutListing>{
        {std::string(kExecSutPrefix) + "<command line>",
         "a child process speaking the process protocol (harness/exec/PROTOCOL.md)"}};
  };
  return f;
}

SutFamily ExecAdapterFamily() {
  SutFamily f;
  f.name = "adapter (exec)";
  f.owns = [](const std::string& sut) { return FindExecAdapter(sut) != nullptr; };
  f.make = [](const std::string& sut, const SutConfig& config) -> Result<std::unique_ptr<Sut>> {
    Result<std::string> command = AdapterCommand(*FindExecAdapter(sut));
    if (!command.ok()) return command.status();
    return StartAsSut(*command, sut, config);
  };
  // A model reader runs every graph form its format writes, in every spelling.
  f.runs_graphs = [](const std::string& sut) {
    const ExecAdapter* a = FindExecAdapter(sut);
    return a != nullptr && a->reads_models;
  };
  f.reads_models = f.runs_graphs;
  f.list = [] {
    std::vector<SutListing> all;
    for (const ExecAdapter& a : ExecAdapters()) {
      const std::string why = AdapterUnavailableReason(a);
      all.push_back({a.name, a.description + (why.empty() ? "" : "; UNAVAILABLE: " + why)});
    }
    return all;
  };
  return f;
}

int64_t ChannelMultipleFor(const std::vector<std::string>& suts, const SutConfig& config) {
  int64_t multiple = 0;
  for (const std::string& sut : suts)
    if (const ExecAdapter* a = FindExecAdapter(config.Resolve(sut)))
      multiple = std::max(multiple, a->channel_multiple);
  return multiple;
}

}  // namespace convparity
