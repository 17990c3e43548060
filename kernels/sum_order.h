// How a kernel adds up the terms of one output element. Correct orders differ only by rounding; the
// tolerance tests (TOLERANCE.md) use them to show the error bound never fires on a correct kernel, and the
// two wrong ones to show it catches a low-precision accumulator and a missing term.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <vector>

namespace convparity {

enum class SumOrder {
  kSequential,  // left to right, one accumulator
  kReverse,     // right to left
  kPairwise,    // recursive halving
  kBlocked,     // 8 interleaved partial sums, then combined (a SIMD-style order)
  kBfloat16,    // WRONG: the accumulator is rounded to bfloat16 after every addition
  kDropOneTerm, // WRONG: the last term of every reduction with two or more is dropped
};

// Collects the terms of one output element, then adds them in the chosen order.
class Reduction {
 public:
  explicit Reduction(SumOrder order) : order_(order) { terms_.reserve(256); }
  // `init` (the bias, or 0) is the first term.
  void Start(float init) {
    terms_.clear();
    acc_ = init;
    if (order_ != SumOrder::kSequential) terms_.push_back(init);
  }
  void Add(float term) {
    if (order_ == SumOrder::kSequential)
      acc_ += term;
    else
      terms_.push_back(term);
  }
  float Finish();

 private:
  static float Pairwise(const float* t, size_t n);
  static float RoundToBfloat16(float v) {
    uint32_t bits;
    std::memcpy(&bits, &v, sizeof bits);
    bits += 0x7FFF + ((bits >> 16) & 1);  // round to nearest even on the upper 16 bits
    bits &= 0xFFFF0000u;
    std::memcpy(&v, &bits, sizeof v);
    return v;
  }

  SumOrder order_;
  std::vector<float> terms_;
  float acc_ = 0;
};

}  // namespace convparity
