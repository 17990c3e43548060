#include "oracles/torch_f32_sut.h"

#include <ATen/Context.h>
#include <ATen/core/Tensor.h>
#include <ATen/ops/from_blob.h>
#include <c10/util/Exception.h>

#include <exception>
#include <mutex>
#include <optional>
#include <shared_mutex>

#include "core/tensor.h"
#include "oracles/aten_conv.h"

namespace convparity {
namespace {

using aten_conv::DirectionInputs;
using aten_conv::TensorStyle;

// In the order of TorchF32SutNames().
enum class Variant { kDefault, kSlow, kChannelsLast };

std::optional<Variant> VariantNamed(const std::string& name) {
  const std::vector<std::string> names = TorchF32SutNames();
  for (size_t k = 0; k < names.size(); ++k)
    if (names[k] == name) return static_cast<Variant>(k);
  return std::nullopt;
}

TensorStyle StyleOf(Variant v) { return {at::kFloat, v == Variant::kChannelsLast}; }

// Whether ATen may use oneDNN is one process-wide flag. The slow variant turns it off for its call
// and holds this lock exclusively meanwhile; the other variants hold it shared, so no call of ours
// ever runs with the flag in the other variant's state.
std::shared_mutex& MkldnnFlagLock() {
  static std::shared_mutex lock;
  return lock;
}

class MkldnnDisabled {
 public:
  MkldnnDisabled() : was_(at::globalContext().userEnabledMkldnn()) {
    at::globalContext().setUserEnabledMkldnn(false);
  }
  ~MkldnnDisabled() { at::globalContext().setUserEnabledMkldnn(was_); }
  MkldnnDisabled(const MkldnnDisabled&) = delete;
  MkldnnDisabled& operator=(const MkldnnDisabled&) = delete;

 private:
  bool was_;
};

// Runs f with the flag as `v` needs it, under the lock.
template <typename F>
auto WithVariantSettings(Variant v, F&& f) {
  if (v == Variant::kSlow) {
    std::unique_lock<std::shared_mutex> exclusive(MkldnnFlagLock());
    MkldnnDisabled off;
    return f();
  }
  std::shared_lock<std::shared_mutex> shared(MkldnnFlagLock());
  return f();
}

// A float32 view of a caller's buffer laid out in `memory_order` (no copy).
at::Tensor ViewOf(const float* data, const Shape& shape, const std::vector<int>& memory_order) {
  // from_blob wants a mutable pointer; inputs are only ever copied out of (InStyle below).
  return at::from_blob(const_cast<float*>(data), shape, StridesFor(shape, memory_order),
                       at::TensorOptions().dtype(at::kFloat));
}

// An owned copy of a caller's input in the variant's memory format.
Result<at::Tensor> Input(const char* what, const float* data, const Shape& shape,
                         const std::vector<int>& memory_order, const TensorStyle& style) {
  if (data == nullptr)
    return Status::Invalid(std::string("torch-f32 needs the ") + what + " buffer, but got null");
  return aten_conv::InStyle(ViewOf(data, shape, memory_order).clone(), style);
}

class TorchF32Sut : public ConvSut {
 public:
  TorchF32Sut(Variant variant, std::string name) : variant_(variant), name_(std::move(name)) {}

  std::string name() const override { return name_; }

  Status Run(const ConvProblem& p, Direction d, const ConvBuffers& buffers) override {
    CP_RETURN_IF_ERROR(Validate(p));
    if (buffers.result == nullptr)
      return Status::Invalid(name_ + " needs a result buffer, but got null");
    try {
      aten_conv::UseOneThread();
      return WithVariantSettings(variant_, [&] { return RunOrThrow(p, d, buffers); });
    } catch (const c10::Error& e) {
      return Status::Internal(std::string("ATen float32 failed on ") + DirectionName(d) + ": " +
                              e.what_without_backtrace());
    } catch (const std::exception& e) {
      return Status::Internal(name_ + " failed on " + DirectionName(d) + ": " + e.what());
    }
  }

 private:
  Status RunOrThrow(const ConvProblem& p, Direction d, const ConvBuffers& buffers) const {
    const TensorStyle style = StyleOf(variant_);
    const std::vector<int> data_order = DataMemoryOrder(p), weight_order = WeightMemoryOrder(p);
    DirectionInputs t;
    auto take = [&](at::Tensor& into, Result<at::Tensor> r) -> Status {
      if (!r.ok()) return r.status();
      into = std::move(r).value();
      return Status::Ok();
    };
    if (d != Direction::kBackwardData)
      CP_RETURN_IF_ERROR(
          take(t.x, Input("input", buffers.input, p.input_shape(), data_order, style)));
    if (d != Direction::kBackwardWeight)
      CP_RETURN_IF_ERROR(
          take(t.w, Input("weight", buffers.weight, p.weight_shape(), weight_order, style)));
    if (d != Direction::kForward)
      CP_RETURN_IF_ERROR(take(
          t.dy, Input("grad_output", buffers.grad_output, p.output_shape(), data_order, style)));
    if (d == Direction::kForward && p.bias)
      CP_RETURN_IF_ERROR(
          take(t.b, Input("bias", buffers.bias, p.bias_shape(), {0}, TensorStyle{at::kFloat})));

    const at::Tensor result = aten_conv::RunDirection(p, d, t, style);
    const Shape expected = ResultShape(p, d);
    if (result.sizes().vec() != expected)
      return Status::Internal(name_ + " produced a " + DirectionName(d) + " result of shape " +
                              ShapeText(result.sizes().vec()) + ", but the shape math says " +
                              ShapeText(expected));
    if (result.scalar_type() != at::kFloat)
      return Status::Internal(name_ + " produced a result of type " +
                              std::string(c10::toString(result.scalar_type())) +
                              ", expected float32");
    // Writes through a view with the problem's memory layout, whatever strides ATen returned.
    ViewOf(buffers.result, expected, ResultMemoryOrder(p, d)).copy_(result);
    return Status::Ok();
  }

  Variant variant_;
  std::string name_;
};

}  // namespace

std::unique_ptr<ConvSut> MakeTorchF32Sut(const std::string& name) {
  const std::optional<Variant> v = VariantNamed(name);
  return v ? std::make_unique<TorchF32Sut>(*v, name) : nullptr;
}

std::string TorchF32Backend(const std::string& name, const ConvProblem& p) {
  if (!Validate(p).ok()) return "invalid problem";
  const std::optional<Variant> v = VariantNamed(name);
  if (!v) return "unknown (no such variant: " + name + ")";
  try {
    const std::string backend =
        WithVariantSettings(*v, [&] { return aten_conv::SelectBackend(p, StyleOf(*v)); });
    // The same backend runs other kernels on channels-last tensors (oneDNN's nhwc, ATen's
    // channels-last im2col).
    return *v == Variant::kChannelsLast ? backend + ", channels-last" : backend;
  } catch (const std::exception& e) {
    return std::string("unknown (") + e.what() + ")";
  }
}

}  // namespace convparity
