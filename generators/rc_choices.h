// Choice primitives for RapidCheck generators whose shrinking suits convolution problems: a
// dependent pair of choices that does not commit (Chain), weighted options that shrink toward the
// first (Pick), and integers uniform whatever the generation size (Uniform); and RcChoices, the
// recipe's choice interface (generators/choice.h) over them. Used by problem_gen.cc; internal to
// generators/.
#pragma once

#include <rapidcheck.h>

#include <algorithm>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <tuple>
#include <utility>
#include <vector>

#include "generators/choice.h"

namespace convparity {
namespace choices {

// A dependent pair of choices whose shrinking does not commit. RapidCheck's mapcat stops shrinking
// the outer value once an inner one has shrunk, so a greedy shrink that first made, say, the
// output padding smaller can no longer make the kernel smaller. Here the outer value stays
// shrinkable: shrinking it regenerates the inner value from the same random stream (as mapcat
// does), shrinking the inner value keeps the outer one. Terminates: every accepted shrink makes
// (outer, inner) lexicographically smaller.
// NOTE: values are computed once, when a node is made, and kept: RapidCheck's map and lambda
// shrinkables compute theirs again on every value() call, and a problem's value is read several
// times (the filter, the campaign), each time through every map of the recipe.
template <typename T, typename U>
rc::Shrinkable<U> ChainNode(rc::Shrinkable<T> outer, rc::Shrinkable<U> inner,
                            std::function<rc::Gen<U>(const T&)> next, rc::Random random, int size) {
  auto value = [v = inner.value()] { return v; };
  auto shrinks = [outer, inner, next, random, size] {
    auto outer_shrinks = rc::seq::map(outer.shrinks(), [=](rc::Shrinkable<T>&& o) {
      rc::Shrinkable<U> regenerated = next(o.value())(random, size);
      return ChainNode<T, U>(std::move(o), std::move(regenerated), next, random, size);
    });
    auto inner_shrinks = rc::seq::map(inner.shrinks(), [=](rc::Shrinkable<U>&& i) {
      return ChainNode<T, U>(outer, std::move(i), next, random, size);
    });
    return rc::seq::concat(std::move(outer_shrinks), std::move(inner_shrinks));
  };
  return rc::shrinkable::lambda(std::move(value), std::move(shrinks));
}

// gen::mapcat with non-committing shrinks (see ChainNode).
template <typename T, typename F>
auto Chain(rc::Gen<T> gen, F next_fn)
    -> rc::Gen<typename decltype(next_fn(std::declval<T>()))::ValueType> {
  using U = typename decltype(next_fn(std::declval<T>()))::ValueType;
  std::function<rc::Gen<U>(const T&)> next = next_fn;
  return [gen, next](const rc::Random& random, int size) {
    rc::Random r1 = random;
    rc::Random r2 = r1.split();
    rc::Shrinkable<T> outer = gen(r1, size);
    rc::Shrinkable<U> inner = next(outer.value())(r2, size);
    return ChainNode<T, U>(std::move(outer), std::move(inner), next, r2, size);
  };
}

// RapidCheck's weightedElement / weightedOneOf never shrink the choice itself, and inRange scales
// with the generation size. Pick and Uniform keep the weights fixed and shrink toward the first
// option (respectively the lower bound), which is where the plain case is put.

template <typename T>
using Options = std::vector<std::pair<int, rc::Gen<T>>>;

// One of `options`, drawn by weight; shrinks toward earlier options, then within the option.
// Options of weight 0 keep their place (never drawn, never shrunk to): a list whose option count
// does not depend on earlier choices maps the same random roll to the same option when an
// earlier choice shrinks, so the failing feature survives the shrink.
template <typename T>
rc::Gen<T> Pick(Options<T> option_list) {
  uint64_t total = 0;
  for (const auto& o : option_list) total += static_cast<uint64_t>(std::max(o.first, 0));
  if (total == 0) throw rc::GenerationFailure("Pick: no option with a positive weight");
  // Shared, not copied into every draw and every shrink: drawing is most of a campaign's
  // generation time.
  auto options = std::make_shared<const Options<T>>(std::move(option_list));
  auto shrink_index = [options](size_t i) {
    return rc::seq::filter(rc::shrink::towards<size_t>(i, 0),
                           [options](size_t j) { return (*options)[j].first > 0; });
  };
  std::function<rc::Gen<T>(const size_t&)> option = [options](size_t i) {
    return (*options)[i].second;
  };
  return [options, total, shrink_index, option](const rc::Random& random, int size) {
    rc::Random r1 = random;
    rc::Random r2 = r1.split();
    // Multiply-shift rather than modulo: when weights change a little (an earlier choice shrank)
    // the same roll still lands on the same option, mostly.
    uint64_t roll =
        static_cast<uint64_t>((static_cast<unsigned __int128>(r1.next()) * total) >> 64);
    size_t index = 0;
    for (;; ++index) {
      const uint64_t w = static_cast<uint64_t>(std::max((*options)[index].first, 0));
      if (roll < w) break;
      roll -= w;
    }
    rc::Shrinkable<size_t> chosen = rc::shrinkable::shrinkRecur(index, shrink_index);
    return ChainNode<size_t, T>(chosen, (*options)[index].second(r2, size), option, r2, size);
  };
}

// `gen` with each value computed once per shrinkable, its shrinks likewise (see ChainNode's NOTE).
template <typename T>
rc::Shrinkable<T> MemoizedNode(const rc::Shrinkable<T>& s) {
  return rc::shrinkable::lambda(
      [v = s.value()] { return v; },
      [s] {
        return rc::seq::map(s.shrinks(), [](rc::Shrinkable<T>&& x) { return MemoizedNode(x); });
      });
}

template <typename T>
rc::Gen<T> Memoized(rc::Gen<T> gen) {
  return [gen](const rc::Random& random, int size) { return MemoizedNode(gen(random, size)); };
}

// Uniform in [lo, hi] whatever the size; shrinks toward lo.
inline rc::Gen<int64_t> Uniform(int64_t lo, int64_t hi) {
  if (hi < lo) hi = lo;
  return [lo, hi](const rc::Random& random, int) {
    rc::Random r = random;
    int64_t v = lo + static_cast<int64_t>(r.next() % static_cast<uint64_t>(hi - lo + 1));
    return rc::shrinkable::shrinkRecur(
        v, [lo](int64_t x) { return rc::shrink::towards<int64_t>(x, lo); });
  };
}

template <typename T>
rc::Gen<T> Just(T v) {
  return rc::gen::just(std::move(v));
}

// A weighted integer option over [lo, hi]; weight 0 when the range is empty.
inline std::pair<int, rc::Gen<int64_t>> Range(int weight, int64_t lo, int64_t hi) {
  return {hi >= lo ? weight : 0, Uniform(lo, std::max(lo, hi))};
}

// A list whose shrinks first drop elements (to every smaller allowed size, keeping any subset of
// the elements, so a failure in the last one can still shrink to a list of one), then shrink each
// element in place. Built by hand because a mapcat on the size would regenerate the elements and
// lose the one that fails.
template <typename T>
rc::Shrinkable<std::vector<T>> ListNode(std::vector<rc::Shrinkable<T>> items,
                                        std::vector<int> sizes) {
  using Items = std::vector<rc::Shrinkable<T>>;
  auto value = [items] {
    std::vector<T> v;
    for (const auto& x : items) v.push_back(x.value());
    return v;
  };
  auto shrinks = [items, sizes] {
    const int n = static_cast<int>(items.size());
    std::vector<Items> fewer;
    for (int size : sizes) {
      if (size >= n) continue;
      for (unsigned mask = 0; mask < (1u << n); ++mask) {
        if (__builtin_popcount(mask) != size) continue;
        Items kept;
        for (int i = 0; i < n; ++i)
          if (mask & (1u << i)) kept.push_back(items[i]);
        fewer.push_back(std::move(kept));
      }
    }
    auto drop = rc::seq::map(rc::seq::fromContainer(std::move(fewer)),
                             [sizes](Items&& d) { return ListNode(std::move(d), sizes); });
    auto each = rc::seq::mapcat(rc::seq::range<size_t>(0, items.size()), [items, sizes](size_t i) {
      return rc::seq::map(items[i].shrinks(), [items, sizes, i](rc::Shrinkable<T>&& s) {
        Items copy = items;
        copy[i] = std::move(s);
        return ListNode(std::move(copy), sizes);
      });
    });
    return rc::seq::concat(std::move(drop), std::move(each));
  };
  return rc::shrinkable::lambda(std::move(value), std::move(shrinks));
}

}  // namespace choices

// The recipe's choice interface (generators/choice.h) over RapidCheck: every choice shrinks toward
// its first option; inverses and projections are not needed.
struct RcChoices {
  template <typename T>
  using Gen = rc::Gen<T>;

  template <typename T>
  static Gen<T> Just(T v) {
    return choices::Just(std::move(v));
  }
  static Gen<int64_t> Uniform(int64_t lo, int64_t hi) { return choices::Uniform(lo, hi); }

  // A single value is gen::just, a range is uniform.
  static Gen<int64_t> PickInt(const recipe::IntOptions& options, const char*) {
    choices::Options<int64_t> list;
    for (const recipe::IntOption& o : options)
      list.push_back(o.lo == o.hi ? std::pair{o.weight, Just(o.lo)}
                                  : choices::Range(o.weight, o.lo, o.hi));
    return choices::Pick<int64_t>(std::move(list));
  }
  template <typename T>
  static Gen<T> Pick(std::vector<recipe::Option<Gen<T>>> options, const char*) {
    choices::Options<T> list;
    for (auto& o : options) list.emplace_back(o.weight, std::move(o.gen));
    return choices::Pick<T>(std::move(list));
  }
  template <typename T>
  static Gen<T> ElementOf(const std::vector<T>& values) {
    return rc::gen::elementOf(values);
  }
  template <typename... T>
  static Gen<std::tuple<T...>> Tuple(Gen<T>... gens) {
    return rc::gen::tuple(std::move(gens)...);
  }
  template <typename T, typename F, typename Inverse>
  static auto Map(Gen<T> gen, F f, Inverse) {
    return rc::gen::map(std::move(gen), std::move(f));
  }
  template <typename F, typename Inverse, typename... T>
  static auto Apply(F f, Inverse, Gen<T>... gens) {
    return rc::gen::apply(std::move(f), std::move(gens)...);
  }
  // The dependent generators are kept by argument (recipe::Cached).
  template <typename T, typename Next, typename Project>
  static auto Chain(Gen<T> gen, Next next, Project) {
    return choices::Chain(std::move(gen), recipe::Cached<T>(std::move(next)));
  }
  // The size is rolled modulo the total weight; shrinks as choices::ListNode.
  template <typename T>
  static Gen<std::vector<T>> List(std::vector<int> sizes, std::vector<int> weights,
                                  std::vector<Gen<T>> of_size) {
    uint64_t total = 0;
    for (int w : weights) total += static_cast<uint64_t>(w);
    return [=](const rc::Random& random, int size) {
      rc::Random r1 = random;
      rc::Random r2 = r1.split();
      uint64_t roll = r1.next() % total;
      size_t index = 0;
      while (roll >= static_cast<uint64_t>(weights[index])) roll -= weights[index++];
      const int n = sizes[index];
      std::vector<rc::Shrinkable<T>> items;
      for (int i = 0; i < n; ++i) items.push_back(of_size[n](r2.split(), size));
      return choices::ListNode(std::move(items), sizes);
    };
  }
};

}  // namespace convparity
