#include "oracles/torch_oracle.h"

#include <ATen/Version.h>
#include <ATen/core/Tensor.h>
#include <ATen/ops/empty.h>
#include <c10/util/Exception.h>
#include <torch/version.h>  // only the TORCH_VERSION macros

#include <cmath>
#include <exception>
#include <set>
#include <utility>

#include "core/case_graphs.h"
#include "oracles/aten_conv.h"

namespace convparity {
namespace {

using aten_conv::DirectionInputs;
using aten_conv::F64;
using aten_conv::FromAten;
using aten_conv::kF64;
using aten_conv::RunDirection;

// Checks that a HostTensor the direction reads has the problem's shape and as many values.
Status CheckInput(const char* name, const HostTensor& t, const Shape& expected) {
  if (t.shape != expected)
    return Status::Invalid(std::string(name) + " must have shape " + ShapeText(expected) +
                           ", but got " + ShapeText(t.shape));
  if (static_cast<int64_t>(t.values.size()) != NumElements(expected))
    return Status::Invalid(std::string(name) + " of shape " + ShapeText(expected) + " needs " +
                           std::to_string(NumElements(expected)) + " values, but got " +
                           std::to_string(t.values.size()));
  return Status::Ok();
}

// A float64 copy of `t`, and when `absolute` is given one of its absolute values, in one pass (an
// ATen abs would be another call through its dispatcher per tensor).
at::Tensor ToAten(const HostTensor& t, at::Tensor* absolute = nullptr) {
  at::Tensor out = at::empty(t.shape, F64());
  double* dst = out.data_ptr<double>();
  if (absolute == nullptr) {
    for (size_t i = 0; i < t.values.size(); ++i) dst[i] = t.values[i];
    return out;
  }
  *absolute = at::empty(t.shape, F64());
  double* abs_dst = absolute->data_ptr<double>();
  for (size_t i = 0; i < t.values.size(); ++i) {
    dst[i] = t.values[i];
    abs_dst[i] = std::fabs(t.values[i]);
  }
  return out;
}

// Whether every value the case reads is ≥ 0 (the positive fill: half of the random oracle's work
// is then already done).
bool AllNonNegative(const CaseInputs& in) {
  for (const auto& [name, t] : in.vars)
    for (float v : t.values)
      if (!(v >= 0)) return false;
  return true;
}

Result<OracleOutput> ComputeOrThrow(const ConvProblem& p, Direction d, const CaseInputs& in,
                                    bool with_magnitude) {
  // With no negative input, A = |x| ⊛ |w| + |b| is the result itself: |v| = v for every value
  // read, and ATen on one thread repeats a computation bit for bit (but for the sign of a zero).
  const bool magnitude_apart = with_magnitude && !AllNonNegative(in);
  DirectionInputs t, a;
  auto take = [&](const char* name, const HostTensor& from, const Shape& shape, at::Tensor& to,
                  at::Tensor& absolute) -> Status {
    CP_RETURN_IF_ERROR(CheckInput(name, from, shape));
    to = ToAten(from, magnitude_apart ? &absolute : nullptr);
    return Status::Ok();
  };
  if (d != Direction::kBackwardData)
    CP_RETURN_IF_ERROR(take("input", in.Get(kInputVar), p.input_shape(), t.x, a.x));
  if (d != Direction::kBackwardWeight)
    CP_RETURN_IF_ERROR(take("weight", in.Get(kWeightVar), p.weight_shape(), t.w, a.w));
  if (d != Direction::kForward)
    CP_RETURN_IF_ERROR(take("grad_output", in.Get(kGradOutputVar), p.output_shape(), t.dy, a.dy));
  if (d == Direction::kForward && p.bias)
    CP_RETURN_IF_ERROR(take("bias", in.Get(kBiasVar), p.bias_shape(), t.b, a.b));

  OracleOutput out;
  out.result = FromAten(RunDirection(p, d, t, kF64));
  const Shape expected = ResultShape(p, d);
  if (out.result.shape != expected)
    return Status::Internal(std::string("the oracle's ") + DirectionName(d) + " result has shape " +
                            ShapeText(out.result.shape) + ", but the shape math says " +
                            ShapeText(expected));
  if (magnitude_apart) {
    out.magnitude = FromAten(RunDirection(p, d, a, kF64));
  } else if (with_magnitude) {
    out.magnitude = out.result;
    for (double& v : out.magnitude.values) v = std::fabs(v);
  }
  return out;
}

}  // namespace

Result<OracleOutput> TorchOracle::Compute(const ConvProblem& p, Direction d,
                                          const CaseInputs& inputs, bool with_magnitude) {
  CP_RETURN_IF_ERROR(Validate(p));
  try {
    aten_conv::UseOneThread();
    return ComputeOrThrow(p, d, inputs, with_magnitude);
  } catch (const c10::Error& e) {
    return Status::Internal(std::string("ATen failed on ") + DirectionName(d) + ": " +
                            e.what_without_backtrace());
  } catch (const std::exception& e) {
    return Status::Internal(std::string("the oracle failed on ") + DirectionName(d) + ": " +
                            e.what());
  }
}

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
