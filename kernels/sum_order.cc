#include "kernels/sum_order.h"

namespace convparity {

float Reduction::Pairwise(const float* t, size_t n) {
  if (n <= 2) return n == 0 ? 0.0f : (n == 1 ? t[0] : t[0] + t[1]);
  size_t half = n / 2;
  return Pairwise(t, half) + Pairwise(t + half, n - half);
}

float Reduction::Finish() {
  const size_t n = terms_.size();
  switch (order_) {
    case SumOrder::kSequential:
      return acc_;
    case SumOrder::kReverse: {
      float acc = 0;
      for (size_t i = n; i > 0; --i) acc += terms_[i - 1];
      return acc;
    }
    case SumOrder::kPairwise:
      return Pairwise(terms_.data(), n);
    case SumOrder::kBlocked: {
      float lanes[8] = {0, 0, 0, 0, 0, 0, 0, 0};
      for (size_t i = 0; i < n; ++i) lanes[i % 8] += terms_[i];
      return ((lanes[0] + lanes[4]) + (lanes[1] + lanes[5])) +
             ((lanes[2] + lanes[6]) + (lanes[3] + lanes[7]));
    }
    case SumOrder::kBfloat16: {
      float acc = 0;
      for (size_t i = 0; i < n; ++i) acc = RoundToBfloat16(acc + terms_[i]);
      return acc;
    }
    case SumOrder::kDropOneTerm: {
      float acc = 0;
      for (size_t i = 0; i + (n >= 2 ? 1 : 0) < n; ++i) acc += terms_[i];
      return acc;
    }
  }
  return acc_;
}

}  // namespace convparity
