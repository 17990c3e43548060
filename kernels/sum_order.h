// How a kernel adds up the terms of one output element. Correct orders differ only by rounding; the
// tolerance tests (docs/TOLERANCE.md) use them to show the error bound never fires on a correct
// kernel, and the two wrong ones to show it catches a low-precision accumulator and a missing term.
//
// Every order is defined on the sequence [init, t1, …, tn] of one output element (init: the bias,
// or 0) as if all of it had been collected first; the accumulators below add it up as the terms
// arrive, with a few floats of state, and give bit for bit that result.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <unordered_map>
#include <utility>
#include <vector>

namespace convparity {

enum class SumOrder {
  kSequential,   // left to right, one accumulator
  kReverse,      // right to left
  kPairwise,     // recursive halving
  kBlocked,      // 8 interleaved partial sums, then combined (a SIMD-style order)
  kBfloat16,     // WRONG: the accumulator is rounded to bfloat16 after every addition
  kDropOneTerm,  // WRONG: the last term of every reduction with two or more is dropped
};

// The accumulators. Start(init, terms): a new element whose `terms` further values follow, one
// Add() each; Finish() gives its sum. kReverse: the caller adds the terms last to first (the
// reverse of the sequence is the order that needs no memory); the others take them first to last.

// init + t1 + t2 + … + tn.
struct SequentialSum {
  static constexpr bool kReverse = false;
  void Start(float init, size_t) { acc = init; }
  void Add(float term) { acc += term; }
  float Finish() const { return acc; }
  float acc = 0;
};

// 0 + tn + … + t1 + init.
struct ReverseSum {
  static constexpr bool kReverse = true;
  void Start(float init, size_t) { acc = 0, first = init; }
  void Add(float term) { acc += term; }
  float Finish() const { return acc + first; }
  float acc = 0, first = 0;
};

// Pairwise(s) = Pairwise(first ⌊|s|/2⌋) + Pairwise(rest); one or two values are added directly.
// The tree depends only on the count, so it is planned once per count (a postfix program: leaves of
// one or two values and additions), and a stack as deep as the tree holds the partial sums.
class PairwiseSum {
 public:
  static constexpr bool kReverse = false;
  void Start(float init, size_t terms);
  void Add(float term) {
    if (half_open_) {
      half_open_ = false;
      Push(pending_ + term);
    } else if (*op_++ == kLeaf1) {
      Push(term);
    } else {
      pending_ = term;
      half_open_ = true;
    }
  }
  float Finish() const { return stack_[0]; }

 private:
  enum Op : uint8_t { kAdd, kLeaf1, kLeaf2 };
  static void Plan(size_t n, std::vector<uint8_t>& program);
  void Push(float v) {
    stack_[depth_++] = v;
    for (; *op_ == kAdd; ++op_, --depth_) stack_[depth_ - 2] += stack_[depth_ - 1];
  }

  std::unordered_map<size_t, std::vector<uint8_t>> plans_;  // by count, each ending in kLeaf1
  const uint8_t* op_ = nullptr;
  float stack_[72] = {};  // depth ≤ log2(count) + 2
  int depth_ = 0;
  float pending_ = 0;
  bool half_open_ = false;
};

// lanes[i mod 8] += s[i], then ((l0 + l4) + (l1 + l5)) + ((l2 + l6) + (l3 + l7)).
struct BlockedSum {
  static constexpr bool kReverse = false;
  void Start(float init, size_t) {
    for (float& l : lanes) l = 0;
    lanes[0] += init;
    next = 1;
  }
  void Add(float term) {
    lanes[next] += term;
    next = (next + 1) & 7;
  }
  float Finish() const {
    return ((lanes[0] + lanes[4]) + (lanes[1] + lanes[5])) +
           ((lanes[2] + lanes[6]) + (lanes[3] + lanes[7]));
  }
  float lanes[8] = {};
  unsigned next = 0;
};

// WRONG on purpose: acc = bf16(acc + s[i]) from acc = 0.
struct Bfloat16Sum {
  static constexpr bool kReverse = false;
  static float Round(float v) {
    uint32_t bits;
    std::memcpy(&bits, &v, sizeof bits);
    bits += 0x7FFF + ((bits >> 16) & 1);  // round to nearest even on the upper 16 bits
    bits &= 0xFFFF0000u;
    std::memcpy(&v, &bits, sizeof v);
    return v;
  }
  void Start(float init, size_t) { acc = Round(0.0f + init); }
  void Add(float term) { acc = Round(acc + term); }
  float Finish() const { return acc; }
  float acc = 0;
};

// WRONG on purpose: 0 + s[0] + … + s[n−2], the last value left out when there are two or more.
// The newest value waits until the next arrives, so the last one is never added.
struct DropOneTermSum {
  static constexpr bool kReverse = false;
  void Start(float init, size_t) { acc = 0, waiting = init, alone = true; }
  void Add(float term) {
    acc += waiting;
    waiting = term;
    alone = false;
  }
  float Finish() const { return alone ? acc + waiting : acc; }
  float acc = 0, waiting = 0;
  bool alone = true;
};

// Calls f(accumulator) with a fresh accumulator of `order`'s type, so that loops templated on it
// are compiled once per order and their inner loop has no branch on the order.
template <typename F>
decltype(auto) WithSum(SumOrder order, F&& f) {
  switch (order) {
    case SumOrder::kReverse: {
      ReverseSum s;
      return f(s);
    }
    case SumOrder::kPairwise: {
      PairwiseSum s;
      return f(s);
    }
    case SumOrder::kBlocked: {
      BlockedSum s;
      return f(s);
    }
    case SumOrder::kBfloat16: {
      Bfloat16Sum s;
      return f(s);
    }
    case SumOrder::kDropOneTerm: {
      DropOneTermSum s;
      return f(s);
    }
    case SumOrder::kSequential:
      break;
  }
  SequentialSum s;
  return f(s);
}

}  // namespace convparity
