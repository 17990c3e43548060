// The recipe's choice interface (generators/choice.h) over bytes: ByteChoices draws by reading
// the choices from a ByteStream (the byte decoder), or, handed the value wanted, by writing the
// bytes that give it (the encoder). Internal to generators/.
//
// A Pick is a roll over the options' byte weights (ChoiceBytes of the total, none when one option
// is left), then the option's own choices; so random bytes draw roughly as the generator does, and
// zero bytes draw every first option, the plainest. The encoder takes the first option that can
// give the wanted value (trying each on a scratch stream) and writes the smallest roll for it.
#pragma once

#include <algorithm>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include "core/status.h"
#include "generators/byte_decoder.h"
#include "generators/choice.h"

namespace convparity {

// Bytes read (decoding) or written (encoding), one choice at a time.
class ByteStream {
 public:
  ByteStream(const uint8_t* data, size_t size) : reader_(data, size), encoding_(false) {}
  ByteStream() : reader_(nullptr, 0), encoding_(true) {}  // encoding

  // Whether choices are made toward wanted values: encoding, and nothing failed yet. After a
  // failure the encoder writes zeros, so that the choices after it stay well defined.
  bool wants() const { return encoding_ && error_.ok(); }
  // An integer in [lo, hi] (lo when hi ≤ lo, from no bytes). Encoding, `want` is the value to
  // write; outside [lo, hi] it fails, naming `what`.
  int64_t Int(int64_t lo, int64_t hi, const int64_t* want, const char* what);
  uint64_t U64(const uint64_t* want);     // 8 bytes, any value
  void Fail(const std::string& message);  // the first failure is kept
  void Append(const ByteStream& trial) { bytes_ += trial.bytes_; }

  const Status& error() const { return error_; }
  const std::string& bytes() const { return bytes_; }
  size_t consumed() const { return reader_.consumed(); }

 private:
  void Write(uint64_t v, int n);
  ByteReader reader_;
  bool encoding_;
  std::string bytes_;
  Status error_;
};

// A draw over bytes: `want` is the value to encode, null when decoding. Shared, not copied: the
// recipe's draws are copied into every option and chain that uses them.
template <typename T>
class ByteGen {
 public:
  using ValueType = T;
  template <typename F>
  ByteGen(F f)  // NOLINT(runtime/explicit): made from the lambdas below
      : run_(std::make_shared<const std::function<T(ByteStream&, const T*)>>(std::move(f))) {}
  T run(ByteStream& s, const T* want) const { return (*run_)(s, want); }

 private:
  std::shared_ptr<const std::function<T(ByteStream&, const T*)>> run_;
};

// The index of a roll over `weights` (the options with weight 0 are never rolled). Encoding,
// `want` is the index to write.
size_t RollOption(ByteStream& s, const std::vector<int>& weights, const size_t* want,
                  const char* what);

// The failure of an unnamed draw whose value is not one it gives (a Just, Uniform, ElementOf, a
// Map's inverse): the option of a Pick that holds the value, if any, is another one.
inline constexpr char kOtherForm[] = "a value of another form";

// Why no option of a Pick holds the wanted value: what its options said, those of another form
// left out.
template <typename T>
std::string NoOptionHolds(const char* what, const T& value, const std::vector<std::string>& why) {
  std::string message = what;
  if constexpr (std::is_integral_v<T>) message += "=" + std::to_string(value);
  message += ": no option of the byte format holds it";
  for (size_t i = 0; i < why.size(); ++i) message += (i > 0 ? "; " : " (") + why[i];
  return message + (why.empty() ? "" : ")");
}

struct ByteChoices {
  template <typename T>
  using Gen = ByteGen<T>;

  template <typename T>
  static Gen<T> Just(T v) {
    return {[v](ByteStream& s, const T* want) {
      if (s.wants() && want != nullptr && !(*want == v)) s.Fail(kOtherForm);
      return v;
    }};
  }
  static Gen<int64_t> Uniform(int64_t lo, int64_t hi) {
    // Unnamed: a value outside is one of another option's (Uniform is drawn as an option).
    return {[lo, hi](ByteStream& s, const int64_t* want) {
      if (s.wants() && want != nullptr && (*want < lo || *want > std::max(lo, hi)))
        s.Fail(kOtherForm);
      return s.Int(lo, hi, want, "value");
    }};
  }
  static Gen<int64_t> PickInt(const recipe::IntOptions& options, const char* what);

  template <typename T>
  static Gen<T> Pick(std::vector<recipe::Option<Gen<T>>> options, const char* what) {
    std::vector<int> weights;
    for (const auto& o : options) weights.push_back(recipe::ByteWeight(o));
    return {[options, weights, what](ByteStream& s, const T* want) -> T {
      if (!s.wants() || want == nullptr) {
        const size_t i = RollOption(s, weights, nullptr, what);
        return options[i].gen.run(s, nullptr);
      }
      std::vector<std::string> why;
      for (size_t i = 0; i < options.size(); ++i) {
        if (weights[i] <= 0) continue;
        ByteStream trial;
        options[i].gen.run(trial, want);
        if (!trial.error().ok()) {
          if (trial.error().message() != kOtherForm) why.push_back(trial.error().message());
          continue;
        }
        RollOption(s, weights, &i, what);
        s.Append(trial);
        return *want;
      }
      s.Fail(NoOptionHolds(what, *want, why));
      return options[RollOption(s, weights, nullptr, what)].gen.run(s, nullptr);
    }};
  }
  template <typename T>
  static Gen<T> ElementOf(const std::vector<T>& values) {
    return {[values](ByteStream& s, const T* want) {
      const int64_t n = static_cast<int64_t>(values.size());
      int64_t at = 0;
      if (s.wants() && want != nullptr) {
        while (at < n && !(values[at] == *want)) ++at;
        if (at == n) s.Fail(kOtherForm);
      }
      return values[s.Int(0, n - 1, &at, "list index")];
    }};
  }
  template <typename... T>
  static Gen<std::tuple<T...>> Tuple(Gen<T>... gens) {
    return {[gens...](ByteStream& s, const std::tuple<T...>* want) {
      return TupleOf<T...>(s, want, std::index_sequence_for<T...>{}, gens...);
    }};
  }
  template <typename T, typename F, typename Inverse>
  static auto Map(Gen<T> gen, F f, Inverse inverse) {
    using U = std::decay_t<decltype(f(std::declval<T>()))>;
    return Gen<U>{[gen, f, inverse](ByteStream& s, const U* want) -> U {
      if (!s.wants() || want == nullptr) return f(gen.run(s, nullptr));
      const std::optional<T> from = inverse(*want);
      if (!from) s.Fail(kOtherForm);
      return f(gen.run(s, from ? &*from : nullptr));
    }};
  }
  template <typename F, typename Inverse, typename... T>
  static auto Apply(F f, Inverse inverse, Gen<T>... gens) {
    return Map(
        Tuple(gens...), [f](const std::tuple<T...>& t) { return std::apply(f, t); }, inverse);
  }
  // The dependent draws are kept by argument (recipe::Cached), as the generator's.
  template <typename T, typename Next, typename Project>
  static auto Chain(Gen<T> gen, Next next_draw, Project project) {
    using U = typename decltype(next_draw(std::declval<T>()))::ValueType;
    auto next = recipe::Cached<T>(std::move(next_draw));
    return Gen<U>{[gen, next, project](ByteStream& s, const U* want) -> U {
      if (!s.wants() || want == nullptr) return next(gen.run(s, nullptr)).run(s, nullptr);
      const T first = project(*want);
      return next(gen.run(s, &first)).run(s, want);
    }};
  }
  template <typename T>
  static Gen<std::vector<T>> List(std::vector<int> sizes, std::vector<int> weights,
                                  std::vector<Gen<T>> of_size) {
    return {[sizes, weights, of_size](ByteStream& s, const std::vector<T>* want) {
      const std::vector<T>* w = s.wants() ? want : nullptr;
      size_t index = 0;
      if (w != nullptr) {
        while (index < sizes.size() && sizes[index] != static_cast<int>(w->size())) ++index;
        if (index == sizes.size()) {
          s.Fail("a list size the byte format does not hold");
          index = 0;
          w = nullptr;
        }
      }
      index = RollOption(s, weights, w != nullptr ? &index : nullptr, "rank");
      std::vector<T> items;
      for (int i = 0; i < sizes[index]; ++i)
        items.push_back(of_size[sizes[index]].run(s, s.wants() && w ? &(*w)[i] : nullptr));
      return items;
    }};
  }

 private:
  template <typename... T, size_t... I>
  static std::tuple<T...> TupleOf(ByteStream& s, const std::tuple<T...>* want,
                                  std::index_sequence<I...>, const Gen<T>&... gens) {
    // Braced initialisation evaluates in order: the choices are read (or written) left to right.
    return std::tuple<T...>{
        gens.run(s, s.wants() && want != nullptr ? &std::get<I>(*want) : nullptr)...};
  }
};

}  // namespace convparity
