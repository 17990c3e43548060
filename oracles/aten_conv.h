// How oracles/ calls ATen on a ConvProblem, written once for the float64 oracle and the float32
// systems under test: one direction of ordinary or transposed convolution, symmetric padding as
// ATen's own, asymmetric padding applied as an explicit pad (ATen's padding is symmetric) and, for
// a transposed convolution, as a crop.
//
// NOTE: internal to oracles/. This header names ATen types, so only oracles/*.cc may include it
// (docs/ARCHITECTURE.md: nothing outside oracles/ compiles against ATen).
#pragma once

#include <ATen/core/Tensor.h>
#include <ATen/native/ConvUtils.h>

#include <cstdint>
#include <string>
#include <vector>

#include "core/conv_problem.h"
#include "oracles/torch_oracle.h"  // RefTensor

namespace convparity {
namespace aten_conv {

using IntList = std::vector<int64_t>;

IntList Take(const Dims& d, int rank);

// The tensors a direction reads (x, w, b for fwd; dy, w for bwd_data; x, dy for bwd_weight); the
// others stay undefined.
struct DirectionInputs {
  at::Tensor x, w, b, dy;
};

// What the tensors RunDirection makes itself (pads, shape-only operands) look like: ATen picks its
// kernels by dtype and memory format, so they must match the caller's inputs.
struct TensorStyle {
  at::ScalarType dtype = at::kDouble;
  bool channels_last = false;  // N…C data, O…I / I…O weights
};

// The oracles' float64: ATen's tensor options for it, the style of its tensors, and a float64
// tensor read back in its logical order (the float64 oracle's and the graph oracle's results).
at::TensorOptions F64();
constexpr TensorStyle kF64{at::kDouble, /*channels_last=*/false};
RefTensor FromAten(const at::Tensor& t);

// ATen runs its CPU kernels with OpenMP, whose thread count is per calling thread. One thread keeps
// the summation order and the dispatcher's choices fixed (some depend on the thread count) and
// avoids spin-up cost on the small tensors the harness uses. Cheap after the first call.
void UseOneThread();

// Channels-last strides for a tensor of any rank ≥ 3: axis 1 innermost. For 4-D and 5-D tensors
// these are ATen's ChannelsLast / ChannelsLast3d; a 3-D one is what conv1d sees when its input is a
// transposed (N, W, C) sequence.
at::Tensor ToChannelsLast(const at::Tensor& t);
at::Tensor InStyle(const at::Tensor& t, const TensorStyle& style);

// Zero-pads the spatial dims by (pad_begin, pad_end).
at::Tensor PadSpatial(const at::Tensor& t, const ConvProblem& p, const TensorStyle& style);
// Keeps [pad_begin, pad_begin + size) of every spatial dim: the inverse of PadSpatial.
at::Tensor CropSpatial(const at::Tensor& t, const ConvProblem& p, const Dims& size);
Shape PaddedInputShape(const ConvProblem& p);

// Whether every spatial dimension pads as much at its end as at its beginning (ATen's padding).
bool SymmetricPadding(const ConvProblem& p);

// One direction: y, dx or dw of shape ResultShape(p, d) (possibly a strided view).
at::Tensor RunDirection(const ConvProblem& p, Direction d, const DirectionInputs& t,
                        const TensorStyle& style);

const char* BackendName(at::native::ConvBackend b);
// The path ATen's dispatcher picks for the forward call RunDirection makes for `p` with
// tensors of `style`, under the current global settings (e.g. whether oneDNN is enabled). The
// backward calls take the matching backward kernels.
std::string SelectBackend(const ConvProblem& p, const TensorStyle& style);

}  // namespace aten_conv
}  // namespace convparity
