#include "oracles/torch_oracle.h"

#include <ATen/Version.h>
#include <ATen/core/Tensor.h>
#include <c10/util/Exception.h>
#include <torch/version.h>  // only the TORCH_VERSION macros

#include <exception>
#include <set>

#include "oracles/aten_conv.h"

namespace convparity {

using aten_conv::kF64;

std::string TorchOracle::TorchVersion() {
  // NOTE: the version the library was built as. Debian's 1.13.1+dfsg package says "1.13.0" here
  // (its headers and at::show_config() agree), so this names the ABI, not the package revision.
  static const std::string version = [] {
    std::string v = TORCH_VERSION;
    try {
      const std::string config = at::show_config();
      const std::string key = "TORCH_VERSION=";
      size_t at = config.find(key);
      if (at != std::string::npos) {
        at += key.size();
        std::string lib = config.substr(at, config.find_first_of(", \n", at) - at);
        if (lib != v) v += " (headers; library " + lib + ")";
      }
    } catch (const std::exception&) {
      // The header version alone is still right for the code compiled here.
    }
    return v;
  }();
  return version;
}

std::string TorchOracle::Backend() {
  static const std::string description = [] {
    // Probe the dispatcher on representative problems and list each distinct path per kind.
    struct Probe {
      const char* kind;
      bool transposed;
      int64_t dilation, groups;
    };
    const Probe probes[] = {{"conv", false, 1, 1},
                            {"dilated", false, 2, 1},
                            {"grouped", false, 1, 2},
                            {"transposed", true, 1, 1},
                            {"transposed-dilated", true, 2, 1}};
    std::string text = "aten cpu float64, 1 thread:";
    try {
      for (const Probe& probe : probes) {
        std::set<std::string> names;
        for (int rank = 1; rank <= kMaxSpatialRank; ++rank) {
          ConvProblem p;
          p.rank = rank;
          p.transposed = probe.transposed;
          p.groups = probe.groups;
          p.in_channels = p.out_channels = 2;
          p.input = {5, 5, 5};
          p.kernel = {3, 3, 3};
          p.dilation = {probe.dilation, probe.dilation, probe.dilation};
          names.insert(aten_conv::SelectBackend(p, kF64));
        }
        text += std::string(" ") + probe.kind + "=";
        bool first = true;
        for (const std::string& n : names) text += (first ? "" : "|") + n, first = false;
      }
    } catch (const std::exception& e) {
      text += std::string(" (backend probe failed: ") + e.what() + ")";
    }
    return text;
  }();
  return description;
}

std::string TorchOracle::Backend(const ConvProblem& p) {
  if (!Validate(p).ok()) return "invalid problem";
  try {
    return aten_conv::SelectBackend(p, kF64);
  } catch (const std::exception& e) {
    return std::string("unknown (") + e.what() + ")";
  }
}

}  // namespace convparity
