// The choice interface the problem space's recipe (generators/space_recipe.h) is written against,
// and its options. Two implementations: RcChoices (generators/rc_choices.h), RapidCheck generators
// that shrink; ByteChoices (generators/byte_choices.h), which reads the choices from bytes
// (libFuzzer) or, given the value wanted, writes the bytes that give it. Internal to generators/.
//
// An implementation C provides, with C::Gen<T> a way to draw a T:
//   Just(v)                      v, no choice;
//   Uniform(lo, hi)              an integer in [lo, hi] (lo when hi < lo), shrinking toward lo;
//   PickInt(IntOptions, what)    one range of integers by weight, then a value in it;
//   Pick<T>(Options<T>, what)    one of several draws by weight;
//   ElementOf(values)            one of a list;
//   Tuple(g...)                  the draws in order;
//   Map(g, f, inverse)           f of a draw; inverse(y) is the draw that gives y, if any;
//   Apply(f, inverse, g...)      Map of a Tuple, f taking the elements;
//   Chain(g, next, project)      a draw, then the draw next(x) makes; project(y) is the first
//                                draw of a value y;
//   List(sizes, weights, of_size)  a size by weight, then that many draws of of_size[size].
// The inverses and projections serve the encoder only: RapidCheck ignores them.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <utility>
#include <vector>

namespace convparity {
namespace recipe {

// `next` with each draw it returns kept by argument: a chain's dependent draws are made once per
// value of what they depend on (a few thousand kernel/dilation/stride triples at most), not on
// every draw. Thread-safe: campaign workers draw from one generator, fuzzers decode in threads.
template <typename T, typename F>
auto Cached(F next) {
  using G = decltype(next(std::declval<T>()));
  struct Cache {
    std::mutex mu;
    std::map<T, G> gens;
  };
  auto cache = std::make_shared<Cache>();
  return [next, cache](const T& key) -> G {
    std::lock_guard<std::mutex> lock(cache->mu);
    auto it = cache->gens.find(key);
    if (it == cache->gens.end()) it = cache->gens.emplace(key, next(key)).first;
    return it->second;
  };
}

// One option of a Pick. `weight` is its weight in generated cases; `beyond` its extra weight in
// the byte format, for values past the generator's edges that the fuzzer should still reach.
// An option with weight 0 and beyond > 0 exists only in the byte format; such options come last,
// so that the generator's draws and shrinks stay those of the options before them (choices::Pick).
template <typename G>
struct Option {
  int weight;
  G gen;
  int beyond = 0;
};

// A range of integers as an option of PickInt: lo..hi (none when hi < lo; its weights are then 0).
struct IntOption {
  int weight;
  int64_t lo, hi;
  int beyond = 0;
};

using IntOptions = std::vector<IntOption>;

// An option's weight in the byte format: 0 when it holds no value.
inline int ByteWeight(const IntOption& o) { return o.hi < o.lo ? 0 : o.weight + o.beyond; }
template <typename G>
int ByteWeight(const Option<G>& o) {
  return o.weight + o.beyond;
}

}  // namespace recipe
}  // namespace convparity
