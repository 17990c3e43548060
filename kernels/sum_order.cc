#include "kernels/sum_order.h"

namespace convparity {

void PairwiseSum::Plan(size_t n, std::vector<uint8_t>& program) {
  if (n <= 2) {
    program.push_back(n == 2 ? kLeaf2 : kLeaf1);
    return;
  }
  const size_t half = n / 2;
  Plan(half, program);
  Plan(n - half, program);
  program.push_back(kAdd);
}

void PairwiseSum::Start(float init, size_t terms) {
  const size_t n = terms + 1;
  auto plan = plans_.find(n);
  if (plan == plans_.end()) {
    std::vector<uint8_t> program;
    program.reserve(2 * n);
    Plan(n, program);
    program.push_back(kLeaf1);  // a sentinel: never read as a leaf, it ends the last additions
    plan = plans_.emplace(n, std::move(program)).first;
  }
  op_ = plan->second.data();
  depth_ = 0;
  half_open_ = false;
  Add(init);
}

}  // namespace convparity
