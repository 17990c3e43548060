#include "generators/byte_choices.h"

#include <algorithm>

namespace convparity {

int64_t ByteStream::Int(int64_t lo, int64_t hi, const int64_t* want, const char* what) {
  if (!encoding_) return reader_.Int(lo, hi);
  hi = std::max(hi, lo);
  int64_t v = lo;
  if (wants() && want != nullptr) {
    if (*want < lo || *want > hi)
      Fail(std::string(what) + "=" + std::to_string(*want) +
           " is outside the byte decoder's range [" + std::to_string(lo) + ", " +
           std::to_string(hi) + "]");
    else
      v = *want;
  }
  Write(static_cast<uint64_t>(v - lo), ChoiceBytes(static_cast<uint64_t>(hi - lo)));
  return v;
}

uint64_t ByteStream::U64(const uint64_t* want) {
  if (!encoding_) return reader_.U64();
  const uint64_t v = wants() && want != nullptr ? *want : 0;
  Write(v, 8);
  return v;
}

void ByteStream::Fail(const std::string& message) {
  if (error_.ok()) error_ = Status::Invalid(message);
}

void ByteStream::Write(uint64_t v, int n) {
  for (int i = 0; i < n; ++i) bytes_.push_back(static_cast<char>((v >> (8 * i)) & 0xff));
}

size_t RollOption(ByteStream& s, const std::vector<int>& weights, const size_t* want,
                  const char* what) {
  int64_t total = 0;
  size_t first = weights.size(), rolled = 0;
  for (size_t i = 0; i < weights.size(); ++i) {
    if (weights[i] <= 0) continue;
    if (first == weights.size()) first = i;
    total += weights[i];
    ++rolled;
  }
  if (rolled == 0) return 0;  // the recipe always leaves an option; kept total
  if (rolled == 1) return first;
  // Encoding: the first roll that lands on `want`.
  int64_t start = 0;
  if (want != nullptr)
    for (size_t i = 0; i < *want; ++i) start += std::max(weights[i], 0);
  int64_t roll = s.Int(0, total - 1, want != nullptr ? &start : nullptr, what);
  for (size_t i = 0;; ++i) {
    if (weights[i] <= 0) continue;
    if (roll < weights[i]) return i;
    roll -= weights[i];
  }
}

ByteGen<int64_t> ByteChoices::PickInt(const recipe::IntOptions& options, const char* what) {
  std::vector<int> weights;
  int64_t lo = INT64_MAX, hi = INT64_MIN;  // the range of the options there are
  for (const recipe::IntOption& o : options) {
    weights.push_back(recipe::ByteWeight(o));
    if (weights.back() > 0) lo = std::min(lo, o.lo), hi = std::max(hi, o.hi);
  }
  return {[options, weights, lo, hi, what](ByteStream& s, const int64_t* want) {
    if (!s.wants() || want == nullptr) {
      const recipe::IntOption& o = options[RollOption(s, weights, nullptr, what)];
      return s.Int(o.lo, o.hi, nullptr, what);
    }
    size_t at = 0;
    while (at < options.size() &&
           !(weights[at] > 0 && options[at].lo <= *want && *want <= options[at].hi))
      ++at;
    if (at == options.size()) {
      s.Fail(std::string(what) + "=" + std::to_string(*want) +
             " is outside the byte decoder's range [" + std::to_string(lo) + ", " +
             std::to_string(hi) + "]");
      const recipe::IntOption& o = options[RollOption(s, weights, nullptr, what)];
      return s.Int(o.lo, o.hi, nullptr, what);
    }
    RollOption(s, weights, &at, what);
    return s.Int(options[at].lo, options[at].hi, want, what);
  }};
}

}  // namespace convparity
