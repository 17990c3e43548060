// The cost of drawing a campaign's problems: N draws as the campaign makes them (a fresh Random per
// case index, the value read twice), timed, and a hash of every drawn problem and of the first
// levels of their shrink trees, which a change of the generators' speed must leave as it is.
// Usage: generation_cost [N] [channel_multiple]. For instruction counts (noise-free):
//   valgrind --tool=callgrind --callgrind-out-file=/dev/null build/bench/generation_cost N
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "core/descriptor.h"
#include "generators/problem_gen.h"

namespace convparity {
namespace {

uint64_t g_hash = 1469598103934665603ull;  // FNV-1a over descriptors

void Mix(const ConvProblem& p) {
  for (unsigned char c : ProblemDescriptor(p) + "\n") g_hash = (g_hash ^ c) * 1099511628211ull;
}

// Every shrink of `s`, and up to 40 shrinks of each of its first three.
void MixShrinks(const rc::Shrinkable<ConvProblem>& s) {
  rc::Seq<rc::Shrinkable<ConvProblem>> shrinks = s.shrinks();
  for (int k = 0; rc::Maybe<rc::Shrinkable<ConvProblem>> next = shrinks.next(); ++k) {
    Mix(next->value());
    if (k >= 3) continue;
    rc::Seq<rc::Shrinkable<ConvProblem>> deeper = next->shrinks();
    for (int j = 0; j < 40; ++j) {
      rc::Maybe<rc::Shrinkable<ConvProblem>> d = deeper.next();
      if (!d) break;
      Mix(d->value());
    }
  }
}

int Run(int n, int64_t channel_multiple) {
  ProblemSpace space;
  space.channel_multiple = channel_multiple;
  const rc::Gen<ConvProblem> gen = GenProblem(space);
  int64_t checksum = 0;
  const auto start = std::chrono::steady_clock::now();
  for (int i = 0; i < n; ++i) {
    rc::Shrinkable<ConvProblem> s =
        gen(rc::Random(0x9E3779B97F4A7C15ull * static_cast<uint64_t>(i + 1)), rc::kNominalSize);
    checksum += s.value().macs() + s.value().batch;
  }
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  for (int i = 0; i < n; ++i) {
    rc::Shrinkable<ConvProblem> s =
        gen(rc::Random(0x9E3779B97F4A7C15ull * static_cast<uint64_t>(i + 1)), rc::kNominalSize);
    Mix(s.value());
    if (i % 10 == 0) MixShrinks(s);
  }
  std::printf("%d draws: %.2f us each; checksum %lld, hash %016llx\n", n, 1e6 * seconds / n,
              static_cast<long long>(checksum), static_cast<unsigned long long>(g_hash));
  return 0;
}

}  // namespace
}  // namespace convparity

int main(int argc, char** argv) {
  const int n = argc > 1 ? std::atoi(argv[1]) : 10000;
  const int64_t multiple = argc > 2 ? std::atoll(argv[2]) : 0;
  if (n < 1 || multiple < 0) {
    std::fprintf(stderr, "usage: generation_cost [draws >= 1] [channel_multiple >= 0]\n");
    return 2;
  }
  return convparity::Run(n, multiple);
}
