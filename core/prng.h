// Deterministic randomness for case data: the same seed gives bit-identical values on any machine and
// compiler. Our own generator and integer→float conversion, never std::*_distribution (whose output is
// implementation-defined).
#pragma once

#include <cstdint>

namespace convparity {

// SplitMix64 (Steele, Lea, Flood 2014): a counter-based 64-bit generator, tiny and well mixed.
class Prng {
 public:
  explicit Prng(uint64_t seed) : state_(seed) {}

  uint64_t Next() {
    uint64_t z = (state_ += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }

  // Uniform in [0, n) for n ≥ 1 (multiply-shift; bias below 2^-32 for the n used here).
  uint64_t Below(uint64_t n) {
    return static_cast<uint64_t>((static_cast<unsigned __int128>(Next()) * n) >> 64);
  }

  // Uniform integer in [lo, hi].
  int64_t Between(int64_t lo, int64_t hi) {
    return lo + static_cast<int64_t>(Below(static_cast<uint64_t>(hi - lo) + 1));
  }

  // Uniform in [0, 1) with 24 random bits: every value is exact in float32.
  float UnitFloat() { return static_cast<float>(Next() >> 40) * (1.0f / 16777216.0f); }

 private:
  uint64_t state_;
};

// Derives independent streams from one seed (for example one per tensor).
inline uint64_t MixSeed(uint64_t seed, uint64_t stream) {
  Prng p(seed ^ (stream * 0xD1B54A32D192ED03ull));
  return p.Next();
}

}  // namespace convparity
