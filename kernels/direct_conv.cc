#include "kernels/direct_conv.h"

#include "kernels/conv_loops.h"

namespace convparity {

const char* SumOrderName(SumOrder order) {
  switch (order) {
    case SumOrder::kSequential:
      return "sequential";
    case SumOrder::kReverse:
      return "reverse";
    case SumOrder::kPairwise:
      return "pairwise";
    case SumOrder::kBlocked:
      return "blocked";
    case SumOrder::kBfloat16:
      return "bf16acc";
    case SumOrder::kDropOneTerm:
      return "dropterm";
  }
  return "?";
}

DirectConv::DirectConv(SumOrder order) : order_(order) {}

std::string DirectConv::name() const {
  return order_ == SumOrder::kSequential ? "direct" : std::string("direct-") + SumOrderName(order_);
}

Status DirectConv::Run(const ConvProblem& p, Direction direction, const ConvBuffers& buffers) {
  CP_RETURN_IF_ERROR(Validate(p));
  DirectOperands ops = OperandsFor(p, direction, buffers);
  RunDirect(p, direction, MakeLoopSpec(p), ops.x, ops.w, ops.y, ops.bias, order_);
  return Status::Ok();
}

}  // namespace convparity
