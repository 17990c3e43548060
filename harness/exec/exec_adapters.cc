#include "harness/exec/exec_adapters.h"

#include <unistd.h>

#include <cstdlib>
#include <filesystem>

namespace convparity {
namespace {

// On PATH, as the shell that runs the command would find it.
bool OnPath(const std::string& program) {
  if (program.find('/') != std::string::npos) return access(program.c_str(), X_OK) == 0;
  const char* path = std::getenv("PATH");
  std::string dirs = path ? path : "/usr/bin:/bin";
  for (size_t start = 0; start <= dirs.size();) {
    size_t end = dirs.find(':', start);
    if (end == std::string::npos) end = dirs.size();
    const std::string dir = dirs.substr(start, end - start);
    if (!dir.empty() && access((dir + "/" + program).c_str(), X_OK) == 0) return true;
    start = end + 1;
  }
  return false;
}

}  // namespace

const std::vector<ExecAdapter>& ExecAdapters() {
  static const std::vector<ExecAdapter> adapters = {
      // Debian's python3, where python3-numpy is installed (a python3 earlier on PATH may lack it).
      {"python-reference",
       "the protocol's reference: a naive convolution in numpy (adapters/python_reference)",
       "/usr/bin/python3",
       "python_reference/reference_sut.py",
       {},
       ""},
      {"tfjs-cpu",
       "TensorFlow.js, its pure-JavaScript cpu backend (adapters/tfjs)",
       "node",
       "tfjs/tfjs_sut.js",
       {"cpu"},
       "tfjs/node_modules/@tensorflow/tfjs"},
      {"tfjs-wasm",
       "TensorFlow.js, its WebAssembly backend (adapters/tfjs)",
       "node",
       "tfjs/tfjs_sut.js",
       {"wasm"},
       "tfjs/node_modules/@tensorflow/tfjs-backend-wasm"},
      {"tfjs-graph-cpu",
       "TensorFlow.js graph models (tfjs-converter) on the cpu backend as a frontend: the "
       "TensorFlow graphs convparity writes, in every spelling and direction (adapters/tfjs)",
       "node",
       "tfjs/tfjs_graph_sut.js",
       {"cpu"},
       "tfjs/node_modules/@tensorflow/tfjs-converter",
       0,
       /*reads_models=*/true},
      {"tfjs-graph-wasm",
       "TensorFlow.js graph models (tfjs-converter) on the WebAssembly backend as a frontend "
       "(adapters/tfjs)",
       "node",
       "tfjs/tfjs_graph_sut.js",
       {"wasm"},
       "tfjs/node_modules/@tensorflow/tfjs-backend-wasm",
       0,
       /*reads_models=*/true},
      {"onnxruntime",
       "ONNX Runtime (onnxruntime-node), graph optimizations disabled, as a frontend: the ONNX "
       "models convparity writes, in every spelling, convolutions and chains, the weights as "
       "inputs so that one session serves every case of a model (adapters/onnxruntime)",
       "node",
       "onnxruntime/ort_sut.js",
       {"disabled"},
       "onnxruntime/node_modules/onnxruntime-node",
       0,
       /*reads_models=*/true},
      {"onnxruntime-opt",
       "ONNX Runtime (onnxruntime-node) as a frontend: the ONNX models convparity writes, in every "
       "spelling, convolutions and chains, graph optimization level all: constant weights, "
       "fusions, NCHWc layouts (adapters/onnxruntime)",
       "node",
       "onnxruntime/ort_sut.js",
       {"all"},
       "onnxruntime/node_modules/onnxruntime-node",
       // Its NCHWc rewrite blocks channels by 8 (AVX2) or 16 (AVX-512): multiples of 16 reach both.
       16,
       /*reads_models=*/true},
      {"onnxruntime-web",
       "onnxruntime-web (its WebAssembly kernels, in Node.js) as a frontend: the ONNX models "
       "convparity writes, in every spelling, convolutions and chains (adapters/onnxruntime_web)",
       "node",
       "onnxruntime_web/ort_web_sut.js",
       {},
       "onnxruntime_web/node_modules/onnxruntime-web",
       0,
       /*reads_models=*/true},
  };
  return adapters;
}

const ExecAdapter* FindExecAdapter(const std::string& name) {
  for (const ExecAdapter& a : ExecAdapters())
    if (a.name == name) return &a;
  return nullptr;
}

std::string AdaptersDir() {
  if (const char* dir = std::getenv("CONVPARITY_ADAPTERS_DIR"); dir != nullptr && dir[0] != '\0')
    return dir;
  return std::string(CONVPARITY_SOURCE_DIR) + "/adapters";
}

std::string AdapterUnavailableReason(const ExecAdapter& a) {
  namespace fs = std::filesystem;
  std::error_code ec;
  const std::string dir = AdaptersDir();
  if (!OnPath(a.program)) return a.program + " is not installed (scripts/setup.sh installs it)";
  if (!fs::is_regular_file(dir + "/" + a.script, ec)) return dir + "/" + a.script + " is missing";
  if (!a.needs.empty() && !fs::exists(dir + "/" + a.needs, ec))
    return dir + "/" + a.needs +
           " is missing: scripts/setup.sh installs the npm packages (it "
           "needs the npm registry once)";
  return "";
}

std::string ShellWord(const std::string& s) {
  if (!s.empty() && s.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
                                        "0123456789_-.,:/=+@") == std::string::npos)
    return s;
  std::string quoted = "'";
  for (char c : s) quoted += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return quoted + "'";
}

Result<std::string> AdapterCommand(const ExecAdapter& a) {
  const std::string why = AdapterUnavailableReason(a);
  if (!why.empty()) return Status::Invalid(a.name + " is unavailable: " + why);
  std::string command = ShellWord(a.program) + " " + ShellWord(AdaptersDir() + "/" + a.script);
  for (const std::string& arg : a.args) command += " " + ShellWord(arg);
  return command;
}

}  // namespace convparity
