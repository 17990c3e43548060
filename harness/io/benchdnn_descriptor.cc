#include "harness/io/benchdnn_descriptor.h"

#include <algorithm>
#include <cstdio>

namespace convparity {
namespace {

// Beyond 2^30 no value is a convolution anyone runs (Validate draws the same line), and below it
// the deduction arithmetic stays far from int64 overflow: products of two values are below 2^61.
constexpr int64_t kMaxNumber = int64_t{1} << 30;

constexpr char kAxisNames[3] = {'d', 'h', 'w'};

}  // namespace

std::string QuoteBenchdnnText(const std::string& s) {
  constexpr size_t kMax = 60;
  std::string q = "'";
  for (size_t i = 0; i < s.size() && i < kMax; ++i) {
    const unsigned char c = static_cast<unsigned char>(s[i]);
    if (c >= 0x20 && c < 0x7f && c != '\'') {
      q += static_cast<char>(c);
    } else {
      char hex[8];
      std::snprintf(hex, sizeof hex, "\\x%02x", c);
      q += hex;
    }
  }
  if (s.size() > kMax) q += "...";
  return q + "'";
}

namespace {

// The field a key names, or null. Keys: g, mb, ic, oc, and [i o k s p d] × [d h w].
int64_t* FieldOf(BenchdnnDesc& f, const std::string& key) {
  if (key == "g") return &f.g;
  if (key == "mb") return &f.mb;
  if (key == "ic") return &f.ic;
  if (key == "oc") return &f.oc;
  if (key.size() != 2) return nullptr;
  const char* at = std::find(kAxisNames, kAxisNames + 3, key[1]);
  if (at == kAxisNames + 3) return nullptr;
  BenchdnnAxis& a = f.axis[at - kAxisNames];
  switch (key[0]) {
    case 'i':
      return &a.i;
    case 'o':
      return &a.o;
    case 'k':
      return &a.k;
    case 's':
      return &a.s;
    case 'p':
      return &a.p;
    case 'd':
      return &a.dil;
    default:
      return nullptr;
  }
}

int64_t DilatedKernel(const BenchdnnAxis& a) { return (a.k - 1) * (a.dil + 1) + 1; }

std::string Key(char what, int axis) { return std::string(1, what) + kAxisNames[axis]; }

bool SameAxis(const BenchdnnAxis& a, const BenchdnnAxis& b) {
  return a.i == b.i && a.o == b.o && a.k == b.k && a.s == b.s && a.p == b.p && a.dil == b.dil;
}

}  // namespace

Result<BenchdnnDesc> LexBenchdnnDesc(const std::string& token, const std::string& where) {
  BenchdnnDesc f;
  auto error = [&](const std::string& what) {
    return Status::Invalid(where + ": descriptor " + QuoteBenchdnnText(token) + ": " + what);
  };
  size_t pos = 0;
  while (pos < token.size()) {
    const char c = token[pos];
    if (c == '_') {
      // benchdnn takes one underscore after a value, as a separator, and nothing else.
      if (pos == 0 || token[pos - 1] == '_')
        return error("unexpected '_' at " + QuoteBenchdnnText(token.substr(pos)));
      ++pos;
      continue;
    }
    if (c == 'n') {  // the name runs to the end of the token
      f.name = token.substr(pos + 1);
      break;
    }
    const std::string key = token.substr(pos, c == 'g' ? 1 : 2);
    int64_t* field = FieldOf(f, key);
    if (field == nullptr)
      return error("unknown entry at " + QuoteBenchdnnText(token.substr(pos)) +
                   " (expected g, mb, ic, oc, i/o/k/s/p/d followed by d, h or w, or n\"name\")");
    pos += key.size();
    if (pos >= token.size() || token[pos] < '0' || token[pos] > '9')
      return error("expected a number after '" + key + "'");
    int64_t value = 0;
    for (; pos < token.size() && token[pos] >= '0' && token[pos] <= '9'; ++pos)
      value = std::min(value * 10 + (token[pos] - '0'), kMaxNumber + 1);
    if (value > kMaxNumber && f.oversized.empty()) f.oversized = key;
    *field = value;
  }
  return f;
}

std::string DeduceBenchdnnDesc(BenchdnnDesc& f, bool deconv) {
  if (f.g == 0) return "g0: groups must be positive";
  if (f.ic == 0) return "ic was not given (or is 0)";
  if (f.oc == 0) return "oc was not given (or is 0)";
  bool used[3];
  for (int a = 0; a < 3; ++a) {
    BenchdnnAxis& x = f.axis[a];
    if (x.s == 0) return Key('s', a) + "0: strides must be positive";
    used[a] = (x.i | x.o | x.k | x.dil) != 0 || x.s != 1 || x.p >= 1;
    if (!used[a]) continue;
    if (x.i == 0)
      return Key('i', a) + " is needed when the " + kAxisNames[a] + " dimension is used";
    if (x.k == 0)
      return Key('k', a) + " is needed when the " + kAxisNames[a] + " dimension is used";
    const int64_t dk = DilatedKernel(x);
    if (x.o == 0) {  // deduced with symmetric padding; NOTE: '/' truncates toward zero, as in C
      if (x.p < 0) x.p = 0;
      x.o = deconv ? (x.i - 1) * x.s + dk - 2 * x.p : (x.i - dk + 2 * x.p) / x.s + 1;
      if (x.o <= 0)
        return Key('o', a) + " was not given and the other sizes make it " + std::to_string(x.o);
    } else if (x.p < 0) {
      x.p = (deconv ? (x.i - 1) * x.s - x.o + dk : (x.o - 1) * x.s - x.i + dk) / 2;
    }
  }
  BenchdnnAxis unused;
  unused.i = unused.o = unused.k = 1;
  unused.p = 0;
  if (used[0]) {
    if (used[1] != used[2]) return "a 3-D problem gives both h and w or neither";
    if (!used[1]) f.axis[1] = f.axis[2] = f.axis[0];  // a cube
    f.rank = 3;
  } else if (used[1]) {
    if (!used[2]) f.axis[2] = f.axis[1];  // a square
    f.axis[0] = unused;
    f.rank = 2;
  } else if (used[2]) {
    f.axis[0] = f.axis[1] = unused;
    f.rank = 1;
  } else {
    return "no spatial dimension is given";
  }
  return "";
}

std::string BenchdnnShortForm(const BenchdnnDesc& d, int64_t mb) {
  const BenchdnnAxis &ad = d.axis[0], &ah = d.axis[1], &aw = d.axis[2];
  const bool square = SameAxis(ah, aw), cubic = square && SameAxis(ad, ah);
  const bool print_d = d.rank == 3;
  const bool print_h = d.rank == 2 || (d.rank == 3 && !cubic);
  const bool print_w = d.rank == 1 || (d.rank != 1 && !(d.rank == 3 ? cubic : square));
  std::string s;
  auto spatial = [&](char what, int64_t BenchdnnAxis::*field) {
    const bool print[3] = {print_d, print_h, print_w};
    for (int a = 0; a < 3; ++a)
      if (print[a]) s += Key(what, a) + std::to_string(d.axis[a].*field);
  };
  if (d.has_groups()) s += "g" + std::to_string(d.g);
  const int64_t batch = mb > 0 ? mb : d.mb;
  if (batch != 2) s += "mb" + std::to_string(batch);
  s += "ic" + std::to_string(d.ic);
  spatial('i', &BenchdnnAxis::i);
  s += "oc" + std::to_string(d.oc);
  spatial('o', &BenchdnnAxis::o);
  spatial('k', &BenchdnnAxis::k);
  if (ad.s != 1 || ah.s != 1 || aw.s != 1) spatial('s', &BenchdnnAxis::s);
  spatial('p', &BenchdnnAxis::p);
  if (ad.dil != 0 || ah.dil != 0 || aw.dil != 0) spatial('d', &BenchdnnAxis::dil);
  if (!d.name.empty()) s += "n" + d.name;
  return s;
}

std::string CleanBenchdnnName(const std::string& raw) {
  std::string name = raw;
  if (name.size() >= 2 && name.front() == '"' && name.back() == '"')
    name = name.substr(1, name.size() - 2);
  for (char& c : name)
    if (static_cast<unsigned char>(c) < 0x20 || static_cast<unsigned char>(c) >= 0x7f) c = '?';
  return name;
}

BenchdnnConversion ProblemFromBenchdnnDesc(const BenchdnnDesc& f, bool deconv) {
  auto skip = [](std::string reason) {
    return BenchdnnConversion{std::nullopt, std::move(reason)};
  };
  if (f.mb == 0) return skip("mb0: the batch must be positive");
  ConvProblem p;
  p.rank = f.rank;
  p.transposed = deconv;
  p.batch = f.mb;
  p.in_channels = f.ic;
  p.out_channels = f.oc;
  p.groups = f.g < 0 ? 1 : f.g;
  p.bias = true;
  p.weight_layout = p.natural_weight_layout();
  for (int j = 0; j < f.rank; ++j) {
    const int a = 3 - f.rank + j;
    const BenchdnnAxis& x = f.axis[a];
    if (x.p < 0)
      return skip(Key('p', a) + " deduced from " + Key('o', a) + std::to_string(x.o) + " is " +
                  std::to_string(x.p) + ": negative padding cannot be expressed");
    const int64_t dk = DilatedKernel(x);
    int64_t end = deconv ? (x.i - 1) * x.s - x.o + dk - x.p : (x.o - 1) * x.s - x.i + dk - x.p;
    int64_t output_padding = 0;
    if (end < 0 && !deconv) {
      // The output formula's floor absorbs a shortfall below one stride; beyond it whole input rows
      // would be cut off, which no padding ≥ 0 expresses.
      if (-end >= x.s)
        return skip(Key('o', a) + std::to_string(x.o) + " needs end padding " +
                    std::to_string(end) + ", which cuts input rows off");
      end = 0;
    } else if (end < 0) {
      output_padding = -end;
      end = 0;
      if (output_padding >= std::max(x.s, x.dil + 1))
        return skip(Key('o', a) + std::to_string(x.o) + " needs output_padding " +
                    std::to_string(output_padding) +
                    ", but it must be smaller than either stride or dilation");
    }
    p.input[j] = x.i;
    p.kernel[j] = x.k;
    p.stride[j] = x.s;
    p.dilation[j] = x.dil + 1;  // NOTE: benchdnn's dilation is 0-based
    p.pad_begin[j] = x.p;
    p.pad_end[j] = end;
    p.output_padding[j] = output_padding;
  }
  if (Status st = Validate(p); !st.ok()) return skip(st.message());
  const Dims out = p.output();
  for (int j = 0; j < f.rank; ++j) {
    const int a = 3 - f.rank + j;
    if (out[j] != f.axis[a].o)  // cannot happen: the end padding was solved for it
      return skip("internal: the output size " + std::to_string(out[j]) + " differs from " +
                  Key('o', a) + std::to_string(f.axis[a].o));
  }
  return {p, ""};
}

}  // namespace convparity
