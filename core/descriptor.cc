#include "core/descriptor.h"

#include <algorithm>
#include <array>
#include <cstdint>
#include <exception>
#include <iterator>
#include <map>
#include <optional>
#include <string_view>
#include <vector>

#include "core/problem_fields.h"
#include "core/quote.h"

namespace convparity {
namespace {

// Every number a descriptor can hold. Far above any size the harness accepts (CheckLimits caps
// extents at 2^20), low enough that parsing cannot overflow and the limit is easy to state.
constexpr int64_t kMaxValue = int64_t{1} << 40;
constexpr const char* kMaxValueText = "2^40 = 1099511627776";
// Bounds the work and the length of error messages for any input, including fuzzed bytes.
constexpr size_t kMaxLength = 4096;

// The keys: one per integer field (core/problem_fields.def), then `p`, the symmetric padding, which
// sets pad_begin and pad_end.
struct KeySpec {
  const char* name;
  const char* meaning;
  int64_t ConvProblem::*scalar;
  Dims ConvProblem::*dims;
  Dims ConvProblem::*also = nullptr;
};
constexpr size_t kFieldKeys = std::size(kIntegerFields);
constexpr std::array<KeySpec, kFieldKeys + 1> MakeKeys() {
  std::array<KeySpec, kFieldKeys + 1> keys{};
  for (size_t i = 0; i < kFieldKeys; ++i) {
    const IntegerField& f = kIntegerFields[i];
    keys[i] = {f.key, f.meaning, f.count, f.sizes};
  }
  keys[kFieldKeys] = {"p", "symmetric padding", nullptr, &ConvProblem::pad_begin,
                      &ConvProblem::pad_end};
  return keys;
}
constexpr std::array<KeySpec, kFieldKeys + 1> kKeys = MakeKeys();
constexpr size_t kSymmetricPadding = kFieldKeys;

size_t KeyOf(Dims ConvProblem::*dims) {
  for (size_t i = 0; i < kFieldKeys; ++i)
    if (kKeys[i].dims == dims) return i;
  return kKeys.size();
}

// The field keys in print order: the fields' order, with the padding before the dilation, where
// descriptors have always written it.
const std::vector<size_t>& PrintOrder() {
  static const std::vector<size_t> order = [] {
    const size_t begin = KeyOf(&ConvProblem::pad_begin), end = KeyOf(&ConvProblem::pad_end);
    std::vector<size_t> keys;
    for (size_t i = 0; i < kFieldKeys; ++i) {
      if (i == begin || i == end) continue;
      if (kKeys[i].dims == &ConvProblem::dilation) keys.insert(keys.end(), {begin, end});
      keys.push_back(i);
    }
    return keys;
  }();
  return order;
}

// "[g mb ic oc i k s p pb pe d op]": the keys in print order, p before pb.
std::string KeyList() {
  std::string s;
  for (size_t i : PrintOrder()) {
    if (kKeys[i].dims == &ConvProblem::pad_begin)
      s += std::string(kKeys[kSymmetricPadding].name) + " ";
    s += std::string(kKeys[i].name) + " ";
  }
  s.pop_back();
  return "[" + s + "]";
}

// Untrusted text in a one-line error message: its bytes escaped, cut short when long.
std::string Quote(std::string_view s) { return QuoteForMessage(s, QuoteEscapes::kBytes); }

std::string SizeText(const Dims& d, int rank) {
  std::string s;
  for (int i = 0; i < rank; ++i) {
    if (i) s += 'x';
    s += std::to_string(d[i]);
  }
  return s;
}

bool AllEqual(const Dims& d, int rank, int64_t v) {
  return std::all_of(d.begin(), d.begin() + rank, [v](int64_t x) { return x == v; });
}

bool IsLower(char c) { return c >= 'a' && c <= 'z'; }
bool IsDigit(char c) { return c >= '0' && c <= '9'; }

class DescriptorParser {
 public:
  explicit DescriptorParser(std::string_view text) : text_(text) {}

  Result<ParsedDescriptor> Parse() {
    if (text_.empty()) return Error("empty descriptor; expected e.g. 2d_ic4_oc4_i9x9_k3x3");
    if (text_.size() > kMaxLength)
      return Error("is " + std::to_string(text_.size()) + " characters long, over the limit of " +
                   std::to_string(kMaxLength));
    std::string_view body = text_;
    size_t colon = text_.find(':');
    if (colon != std::string_view::npos) {
      std::string_view prefix = text_.substr(0, colon);
      bool known = false;
      for (Direction d : AllDirections()) {
        if (prefix == DirectionName(d)) {
          result_.direction = d;
          known = true;
        }
      }
      if (!known)
        return Error("unknown direction " + Quote(prefix) +
                     " before ':', expected fwd, bwd_data or bwd_weight");
      body = text_.substr(colon + 1);
    }
    for (size_t i = 0; i < body.size(); ++i) {
      char c = body[i];
      if (!IsLower(c) && !IsDigit(c) && c != '_')
        return Error("unexpected character " + Quote(body.substr(i, 1)) + " at offset " +
                     std::to_string(body.data() - text_.data() + i) +
                     "; a descriptor holds lowercase letters, digits and '_'");
    }
    if (body.empty()) return Error("nothing after the direction; expected e.g. 2d_ic4_oc4_i9_k3");

    bool first = true;
    size_t start = 0;
    while (start <= body.size()) {
      size_t end = std::min(body.find('_', start), body.size());
      std::string_view token = body.substr(start, end - start);
      if (token.empty())
        return Error("empty token at offset " + std::to_string(body.data() - text_.data() + start) +
                     " (a doubled, leading or trailing '_')");
      Status st = first ? ParseHead(token) : ParseToken(token);
      if (!st.ok()) return st;
      first = false;
      start = end + 1;
    }
    return Finish();
  }

 private:
  Status Error(const std::string& what) const {
    return Status::Invalid("descriptor " + Quote(text_) + ": " + what);
  }

  // `[t]<rank>d`: fixes the rank that every later token is checked against.
  Status ParseHead(std::string_view token) {
    std::string_view rest = token;
    if (!rest.empty() && rest[0] == 't') {
      result_.problem.transposed = true;
      rest.remove_prefix(1);
    }
    if (rest.size() != 2 || rest[1] != 'd' || rest[0] < '1' || rest[0] > '3')
      return Error("first token " + Quote(token) +
                   " must be [t]<rank>d with rank 1, 2 or 3 (e.g. 2d, t3d)");
    result_.problem.rank = rest[0] - '0';
    // Until a token says otherwise: the weight layout is the natural one of the problem's kind.
    result_.problem = PlainOptions(result_.problem);
    return Status::Ok();
  }

  // A switch's key, an enum field's value name or `<key><value>`.
  Status ParseToken(std::string_view token) {
    ConvProblem& p = result_.problem;
    std::optional<Status> matched;
#define CONVPARITY_SWITCH(field, key, ...) \
  if (!matched && token == key) matched = SetSwitch(token, #field, &p.field);
#define CONVPARITY_ENUM(field, type, values, default_value, meaning, ...) \
  if (!matched) matched = MatchEnum(token, #field, meaning, values, &p.field);
#include "core/problem_fields.def"
    return matched ? *matched : ParseKeyToken(token);
  }

  Status SetSwitch(std::string_view token, const char* field, bool* out) {
    if (!field_tokens_.emplace(field, token).second)
      return Error("duplicate token " + Quote(token) + " (" + field + ")");
    *out = true;
    return Status::Ok();
  }

  // Sets an enum field when `token` names one of its values at the problem's rank; an error when it
  // names one at another rank or the field is set already; nothing when it names none.
  template <typename E, size_t N>
  std::optional<Status> MatchEnum(std::string_view token, const char* field, const char* meaning,
                                  const EnumValue<E> (&values)[N], E* out) {
    const int rank = result_.problem.rank;
    for (const EnumValue<E>& e : values) {
      for (int r = 1; r <= kMaxSpatialRank; ++r) {
        if (token != NameAtRank(e.name, r)) continue;
        if (token != NameAtRank(e.name, rank))
          return Error(std::string(meaning) + " " + Quote(token) + " is for " + std::to_string(r) +
                       "-D problems, but this is a " + std::to_string(rank) + "-D problem");
        auto [earlier, inserted] = field_tokens_.emplace(field, token);
        if (!inserted && earlier->second == token)
          return Error(std::string("duplicate ") + meaning + " " + Quote(token));
        if (!inserted)
          return Error(std::string("two ") + meaning + "s, " + Quote(earlier->second) + " and " +
                       Quote(token));
        *out = e.value;
        return Status::Ok();
      }
    }
    return std::nullopt;
  }

  // What a token may be, for the message about one that is none of them.
  std::string TokenKinds() const {
    const int rank = result_.problem.rank;
    std::string kinds = KeyList() + "<value>";
#define CONVPARITY_ENUM(field, type, values, default_value, meaning, ...) \
  kinds += std::string(", a ") + meaning + " (" + Choices(NamesAtRank(values, rank)) + ")";
#define CONVPARITY_SWITCH(field, key, ...) kinds += std::string(", ") + key + " (" #field ")";
#include "core/problem_fields.def"
    return kinds;
  }

  // `<key><value>`: the key is the leading lowercase letters. No key holds an 'x', so `kx3` reads
  // as k with a malformed size rather than as an unknown key "kx".
  Status ParseKeyToken(std::string_view token) {
    size_t n = 0;
    while (n < token.size() && IsLower(token[n]) && token[n] != 'x') ++n;
    std::string_view name = token.substr(0, n), value = token.substr(n);
    int found = -1;
    for (size_t k = 0; k < kKeys.size(); ++k)
      if (name == kKeys[k].name) found = static_cast<int>(k);
    if (found < 0) return Error("unknown token " + Quote(token) + "; expected " + TokenKinds());
    const KeySpec& spec = kKeys[found];
    if (!key_tokens_[found].empty())
      return Error("duplicate key " + std::string(spec.name) + " (" + Quote(key_tokens_[found]) +
                   " and " + Quote(token) + ")");
    key_tokens_[found] = token;
    if (value.empty())
      return Error(std::string(spec.name) + " (" + spec.meaning + ") needs a value, e.g. " +
                   spec.name + (spec.dims ? "3" : "4"));
    ConvProblem& p = result_.problem;
    if (spec.scalar) return ParseNumber(spec, value, value, &(p.*spec.scalar));
    Dims d{};
    CP_RETURN_IF_ERROR(ParseSize(spec, value, &d));
    p.*spec.dims = d;
    if (spec.also) p.*spec.also = d;
    return Status::Ok();
  }

  // `digits` is one number of `value`; both are named in errors.
  Status ParseNumber(const KeySpec& spec, std::string_view value, std::string_view digits,
                     int64_t* out) const {
    std::string what = std::string(spec.name) + " value " + Quote(value);
    if (digits.empty())
      return Error(what + " has an empty number; expected digits separated by 'x', e.g. " +
                   spec.name + "3x3");
    int64_t v = 0;
    for (char c : digits) {
      if (!IsDigit(c)) {
        if (spec.dims)
          return Error(what + " is not a size; expected digits separated by 'x', e.g. " +
                       spec.name + "3x3");
        return Error(what + " is not a number; expected digits, e.g. " + spec.name + "4");
      }
      v = v * 10 + (c - '0');
      if (v > kMaxValue) return Error(what + " is over the limit of " + kMaxValueText);
    }
    *out = v;
    return Status::Ok();
  }

  // `AxBxC` with one value per spatial dimension, or a single value for all of them.
  Status ParseSize(const KeySpec& spec, std::string_view value, Dims* out) const {
    const int rank = result_.problem.rank;
    size_t count = std::count(value.begin(), value.end(), 'x') + 1;
    if (count != 1 && count != static_cast<size_t>(rank))
      return Error(std::string(spec.name) + " has " + std::to_string(count) + " values, expected " +
                   std::to_string(rank) + " for a " + std::to_string(rank) + "-D problem" +
                   (rank > 1 ? " (or 1 for all dimensions)" : ""));
    size_t start = 0;
    for (size_t i = 0; i < count; ++i) {
      size_t end = std::min(value.find('x', start), value.size());
      CP_RETURN_IF_ERROR(ParseNumber(spec, value, value.substr(start, end - start), &(*out)[i]));
      start = end + 1;
    }
    if (count == 1) out->fill((*out)[0]);
    return Status::Ok();
  }

  Result<ParsedDescriptor> Finish() {
    for (size_t k = 0; k < kFieldKeys; ++k) {
      const KeySpec& spec = kKeys[k];
      if (kIntegerFields[k].required && key_tokens_[k].empty())
        return Error(std::string("missing ") + spec.name + " (" + spec.meaning + "), e.g. " +
                     spec.name + (spec.dims ? "3" : "4"));
    }
    std::string_view p = key_tokens_[kSymmetricPadding];
    for (size_t k : {KeyOf(&ConvProblem::pad_begin), KeyOf(&ConvProblem::pad_end)}) {
      std::string_view other = key_tokens_[k];
      if (!p.empty() && !other.empty())
        return Error("both " + Quote(p) + " and " + Quote(other) +
                     "; write p<size> for symmetric padding or pb<size>_pe<size>");
    }
    ConvProblem& problem = result_.problem;
    // Spatial values past the rank are plain, as operator== ignores them.
    for (const IntegerField& f : kIntegerFields)
      for (int i = problem.rank; f.sizes && i < kMaxSpatialRank; ++i)
        (problem.*f.sizes)[i] = f.plain;
    return result_;
  }

  std::string_view text_;
  ParsedDescriptor result_;
  std::array<std::string_view, kKeys.size()> key_tokens_{};    // the token that set each key
  std::map<std::string_view, std::string_view> field_tokens_;  // each switch's and enum's, by name
};

}  // namespace

std::string ProblemDescriptor(const ConvProblem& p, bool long_form) {
  // Printing tolerates any field values (logs show invalid problems too); only 0–3 dims are read.
  const int rank = std::clamp(p.rank, 0, kMaxSpatialRank);
  std::string s = (p.transposed ? "t" : "") + std::to_string(p.rank) + "d";
  auto add = [&s](const std::string& token) { s += '_' + token; };
  auto add_dims = [&](bool print, const char* key, const Dims& d) {
    if (long_form || print) add(key + SizeText(d, rank));
  };
  const bool symmetric =
      std::equal(p.pad_begin.begin(), p.pad_begin.begin() + rank, p.pad_end.begin());
  for (size_t k : PrintOrder()) {
    const IntegerField& f = kIntegerFields[k];
    const bool shown = long_form || f.required;
    if (f.count) {
      if (shown || p.*f.count != f.plain) add(f.key + std::to_string(p.*f.count));
    } else if (f.sizes == &ConvProblem::pad_begin && symmetric) {
      add_dims(!AllEqual(p.pad_begin, rank, f.plain), kKeys[kSymmetricPadding].name, p.pad_begin);
    } else if (f.sizes == &ConvProblem::pad_end && symmetric) {
      continue;  // written as p above
    } else {
      const bool asymmetric_padding =
          f.sizes == &ConvProblem::pad_begin || f.sizes == &ConvProblem::pad_end;
      add_dims(shown || asymmetric_padding || !AllEqual(p.*f.sizes, rank, f.plain), f.key,
               p.*f.sizes);
    }
  }
  // An enum field is written when it is not what a descriptor without it means.
  const ConvProblem plain = PlainOptions(p);
#define CONVPARITY_ENUM(field, type, values, ...) \
  if (long_form || p.field != plain.field) add(EnumName(values, p.field, p.rank));
#define CONVPARITY_SWITCH(field, key, ...) \
  if (p.field) add(key);
#include "core/problem_fields.def"
  return s;
}

std::string CaseDescriptor(const ConvProblem& p, Direction d) {
  return std::string(DirectionName(d)) + ":" + ProblemDescriptor(p);
}

Result<ParsedDescriptor> ParseDescriptor(const std::string& text) {
  // The parser allocates only short strings; this guards the fuzzing contract against bad_alloc.
  try {
    return DescriptorParser(text).Parse();
  } catch (const std::exception& e) {
    return Status::Internal(std::string("descriptor parser failed: ") + e.what());
  }
}

}  // namespace convparity
