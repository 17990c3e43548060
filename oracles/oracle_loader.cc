// The oracle's functions in a process that has not loaded LibTorch yet: each loads
// libconvparity_oracle.so on first use (oracle_module.h) and forwards to it.
#include <dlfcn.h>
#include <unistd.h>

#include <string>
#include <vector>

#include "oracles/oracle_module.h"
#include "oracles/torch_f32_sut.h"

namespace convparity {
namespace {

// Where the library may be: lib/convparity/ beside the executable's folder (the build tree, an
// install), or beside the executable itself (a flat folder, as OSS-Fuzz's $OUT).
std::vector<std::string> LibraryPaths() {
  char exe[4096];
  const ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
  const std::string path = n > 0 ? std::string(exe, static_cast<size_t>(n)) : std::string();
  const size_t slash = path.rfind('/');
  const std::string dir = slash == std::string::npos ? "." : path.substr(0, slash);
  const std::string library = CONVPARITY_ORACLE_LIBRARY;
  return {dir + "/../" + library, dir + library.substr(library.rfind('/'))};
}

struct Loaded {
  const OracleModule* module = nullptr;
  Status status;  // why not, when module is null
};

// Loaded once per process (thread-safe, as a function's static is); a forked child that loads it
// first loads it for itself.
const Loaded& Load() {
  static const Loaded loaded = [] {
    Loaded l;
    const std::vector<std::string> paths = LibraryPaths();
    std::string path = paths[0];
    for (const std::string& candidate : paths)
      if (access(candidate.c_str(), F_OK) == 0) {
        path = candidate;
        break;
      }
    void* library = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
    const char* why = library ? nullptr : dlerror();
    using Entry = const OracleModule* (*)();
    const auto entry =
        library ? reinterpret_cast<Entry>(dlsym(library, kOracleModuleEntry)) : nullptr;
    if (entry && entry()->size == sizeof(OracleModule))
      l.module = entry();
    else
      l.status = Status::Internal("cannot load the oracle: " +
                                  (why ? std::string(why)  // it names the file
                                       : path + " is not a library of this build"));
    return l;
  }();
  return loaded;
}

}  // namespace

Status TorchOracle::Available() { return Load().status; }

std::string TorchOracle::TorchVersion() {
  const Loaded& o = Load();
  return o.module ? o.module->torch_version() : "unavailable";
}

std::string TorchOracle::Backend() {
  const Loaded& o = Load();
  return o.module ? o.module->backend() : "unavailable (" + o.status.message() + ")";
}

std::string TorchOracle::Backend(const ConvProblem& p) {
  const Loaded& o = Load();
  return o.module ? o.module->backend_of(p) : "unavailable";
}

Result<GraphOracleOutput> ComputeGraph(const Graph& graph, const GraphInputs& vars,
                                       const std::string& wrt, const HostTensor& grad_output,
                                       bool with_magnitude) {
  const Loaded& o = Load();
  if (!o.module) return o.status;
  return o.module->compute_graph(graph, vars, wrt, grad_output, with_magnitude);
}

std::unique_ptr<ConvSut> MakeTorchF32Sut(const std::string& name) {
  const Loaded& o = Load();
  return o.module ? o.module->make_torch_f32_sut(name) : nullptr;
}

std::string TorchF32Backend(const std::string& name, const ConvProblem& p) {
  const Loaded& o = Load();
  return o.module ? o.module->torch_f32_backend(name, p) : "unavailable";
}

}  // namespace convparity
