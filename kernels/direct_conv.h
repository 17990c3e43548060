// Our direct convolution: every configuration, all three directions, any layout, in one set of loops
// (kernels/conv_loops.h). The sum order is a parameter so that correct kernels that add in different
// orders can be put side by side.
#pragma once

#include <memory>
#include <string>

#include "core/sut.h"
#include "kernels/sum_order.h"

namespace convparity {

class DirectConv : public ConvSut {
 public:
  explicit DirectConv(SumOrder order = SumOrder::kSequential);
  std::string name() const override;
  Status Run(const ConvProblem& p, Direction direction, const ConvBuffers& buffers) override;

 private:
  SumOrder order_;
};

const char* SumOrderName(SumOrder order);  // sequential, reverse, pairwise, blocked, bf16acc, dropterm

}  // namespace convparity
