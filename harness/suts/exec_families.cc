// The families of systems under test reached through the process protocol (harness/exec/): any
// command (`exec:<command line>`) and the named adapters of adapters/ (tfjs-wasm, …), and the
// family of logical names the user mapped (--sut-map, --config) to any other SUT.
#include <algorithm>
#include <cstring>

#include "harness/exec/exec_adapters.h"
#include "harness/exec/exec_sut.h"
#include "harness/suts/sut_config.h"
#include "harness/suts/sut_family.h"
#include "harness/suts/sut_registry.h"

namespace convparity {
namespace {

ExecOptions ExecOptionsOfProcess() {
  ExecOptions options;
  // A worker's parent declares a case hung after the full timeout: the child's own deadline comes
  // first, so that the verdict carries the child's stderr.
  options.answer_seconds = 0.8 * ProcessSutConfig().case_timeout_seconds;
  options.startup_seconds = std::max(options.answer_seconds, 60.0);
  return options;
}

}  // namespace

SutFamily ExecFamily() {
  SutFamily f;
  f.name = "exec";
  f.owns = OwnsPrefix(kExecSutPrefix);
  f.make = [](const std::string& sut) {
    return StartExecSut(sut.substr(std::strlen(kExecSutPrefix)), sut, ExecOptionsOfProcess());
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
  f.make = [](const std::string& sut) -> Result<std::unique_ptr<ConvSut>> {
    Result<std::string> command = AdapterCommand(*FindExecAdapter(sut));
    if (!command.ok()) return command.status();
    return StartExecSut(*command, sut, ExecOptionsOfProcess());
  };
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

int64_t ChannelMultipleFor(const std::vector<std::string>& suts) {
  int64_t multiple = 0;
  for (const std::string& sut : suts)
    if (const ExecAdapter* a = FindExecAdapter(ProcessSutConfig().Resolve(sut)))
      multiple = std::max(multiple, a->channel_multiple);
  return multiple;
}

SutFamily MappedFamily() {
  SutFamily f;
  f.name = "mapped";
  f.owns = [](const std::string& sut) { return ProcessSutConfig().map.count(sut) != 0; };
  // A mapping never stands for another mapped name (SutConfig::CheckMappings): this resolves once.
  f.make = [](const std::string& sut) { return MakeSut(ProcessSutConfig().Resolve(sut)); };
  f.list = [] {
    std::vector<SutListing> all;
    for (const auto& [name, spec] : ProcessSutConfig().map)
      all.push_back({name, "stands for " + spec + " (--sut-map / --config)"});
    return all;
  };
  return f;
}

}  // namespace convparity
