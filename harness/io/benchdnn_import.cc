#include "harness/io/benchdnn_import.h"

#include <algorithm>
#include <cstdio>
#include <optional>
#include <utility>

#include "harness/io/files.h"

namespace convparity {
namespace {

// Beyond 2^30 no value is a convolution anyone runs (Validate draws the same line), and below it
// the deduction arithmetic stays far from int64 overflow: products of two values are below 2^61.
constexpr int64_t kMaxNumber = int64_t{1} << 30;
// Problem lists hold hundreds of lines; these bound what hostile text can make us allocate.
constexpr size_t kMaxEntries = 100000;  // problems + skipped lines
constexpr size_t kMaxTextBytes = size_t{16} << 20;

// Input text for a message: printable ASCII as is, other bytes as \xNN, cut after 60 bytes.
std::string Quote(const std::string& s) {
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

// ---- Lexing: text → descriptor fields -----------------------------------------------------------

// One spatial dimension as benchdnn writes it: sizes 0 and padding -1 mean "not given".
struct Axis {
  int64_t i = 0, o = 0, k = 0, s = 1, p = -1, dil = 0;
};

constexpr char kAxisNames[3] = {'d', 'h', 'w'};  // benchdnn's order, outermost first

struct Fields {
  int64_t g = -1;  // -1: not given (benchdnn tells "g1" from no g; both are one group)
  int64_t mb = 2, ic = 0, oc = 0;
  Axis axis[3];
  std::string name;
};

// The field a key names, or null. Keys: g, mb, ic, oc, and [i o k s p d] × [d h w].
int64_t* FieldOf(Fields& f, const std::string& key) {
  if (key == "g") return &f.g;
  if (key == "mb") return &f.mb;
  if (key == "ic") return &f.ic;
  if (key == "oc") return &f.oc;
  if (key.size() != 2) return nullptr;
  const char* at = std::find(kAxisNames, kAxisNames + 3, key[1]);
  if (at == kAxisNames + 3) return nullptr;
  Axis& a = f.axis[at - kAxisNames];
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

// Keeps names printable on one line and valid UTF-8 in case files.
std::string CleanName(std::string name) {
  if (name.size() >= 2 && name.front() == '"' && name.back() == '"')
    name = name.substr(1, name.size() - 2);
  for (char& c : name)
    if (static_cast<unsigned char>(c) < 0x20 || static_cast<unsigned char>(c) >= 0x7f) c = '?';
  return name;
}

// Syntax only: every key known, every key followed by a number of at most 2^30.
Result<Fields> Lex(const std::string& token, const std::string& where) {
  Fields f;
  auto error = [&](const std::string& what) {
    return Status::Invalid(where + ": descriptor " + Quote(token) + ": " + what);
  };
  size_t pos = 0;
  while (pos < token.size()) {
    const char c = token[pos];
    if (c == '_') {
      ++pos;
      continue;
    }
    if (c == 'n') {  // the name runs to the end of the token
      f.name = CleanName(token.substr(pos + 1));
      break;
    }
    std::string key = token.substr(pos, c == 'g' ? 1 : 2);
    int64_t* field = FieldOf(f, key);
    if (field == nullptr)
      return error("unknown entry at " + Quote(token.substr(pos)) +
                   " (expected g, mb, ic, oc, i/o/k/s/p/d followed by d, h or w, or n\"name\")");
    pos += key.size();
    if (pos >= token.size() || token[pos] < '0' || token[pos] > '9')
      return error("expected a number after '" + key + "'");
    int64_t value = 0;
    for (; pos < token.size() && token[pos] >= '0' && token[pos] <= '9'; ++pos) {
      value = value * 10 + (token[pos] - '0');
      if (value > kMaxNumber) return error("the value of '" + key + "' is over 2^30");
    }
    *field = value;
  }
  return f;
}

// ---- Deduction: fields → ConvProblem, benchdnn's rules ------------------------------------------

int64_t DilatedKernel(const Axis& a) { return (a.k - 1) * (a.dil + 1) + 1; }

// A problem, or why the well-formed line gives none.
struct Converted {
  std::optional<ConvProblem> problem;
  std::string reason;
};

Converted Skip(std::string reason) { return {std::nullopt, std::move(reason)}; }

std::string Key(char what, int axis) { return std::string(1, what) + kAxisNames[axis]; }

Converted Convert(Fields f, bool deconv) {
  if (f.g == 0) return Skip("g0: groups must be positive");
  if (f.mb == 0) return Skip("mb0: the batch must be positive");
  if (f.ic == 0) return Skip("ic was not given (or is 0)");
  if (f.oc == 0) return Skip("oc was not given (or is 0)");
  bool used[3];
  for (int a = 0; a < 3; ++a) {
    Axis& x = f.axis[a];
    if (x.s == 0) return Skip(Key('s', a) + "0: strides must be positive");
    used[a] = (x.i | x.o | x.k | x.dil) != 0 || x.s != 1 || x.p >= 1;
    if (!used[a]) continue;
    if (x.i == 0)
      return Skip(Key('i', a) + " is needed when the " + kAxisNames[a] + " dimension is used");
    if (x.k == 0)
      return Skip(Key('k', a) + " is needed when the " + kAxisNames[a] + " dimension is used");
    const int64_t dk = DilatedKernel(x);
    if (x.o == 0) {  // deduced with symmetric padding; NOTE: '/' truncates toward zero, as in C
      if (x.p < 0) x.p = 0;
      x.o = deconv ? (x.i - 1) * x.s + dk - 2 * x.p : (x.i - dk + 2 * x.p) / x.s + 1;
      if (x.o <= 0)
        return Skip(Key('o', a) + " was not given and the other sizes make it " +
                    std::to_string(x.o));
    } else if (x.p < 0) {
      x.p = (deconv ? (x.i - 1) * x.s - x.o + dk : (x.o - 1) * x.s - x.i + dk) / 2;
    }
  }

  int rank = 0;
  if (used[0]) {
    if (used[1] != used[2]) return Skip("a 3-D problem gives both h and w or neither");
    if (!used[1]) f.axis[1] = f.axis[2] = f.axis[0];  // a cube
    rank = 3;
  } else if (used[1]) {
    if (!used[2]) f.axis[2] = f.axis[1];  // a square
    rank = 2;
  } else if (used[2]) {
    rank = 1;
  } else {
    return Skip("no spatial dimension is given");
  }

  ConvProblem p;
  p.rank = rank;
  p.transposed = deconv;
  p.batch = f.mb;
  p.in_channels = f.ic;
  p.out_channels = f.oc;
  p.groups = f.g < 0 ? 1 : f.g;
  p.bias = true;
  p.weight_layout = p.natural_weight_layout();
  for (int j = 0; j < rank; ++j) {
    const int a = 3 - rank + j;
    const Axis& x = f.axis[a];
    if (x.p < 0)
      return Skip(Key('p', a) + " deduced from " + Key('o', a) + std::to_string(x.o) + " is " +
                  std::to_string(x.p) + ": negative padding cannot be expressed");
    const int64_t dk = DilatedKernel(x);
    int64_t end = deconv ? (x.i - 1) * x.s - x.o + dk - x.p : (x.o - 1) * x.s - x.i + dk - x.p;
    int64_t output_padding = 0;
    if (end < 0 && !deconv) {
      // The output formula's floor absorbs a shortfall below one stride; beyond it whole input rows
      // would be cut off, which no padding ≥ 0 expresses.
      if (-end >= x.s)
        return Skip(Key('o', a) + std::to_string(x.o) + " needs end padding " +
                    std::to_string(end) + ", which cuts input rows off");
      end = 0;
    } else if (end < 0) {
      output_padding = -end;
      end = 0;
      if (output_padding >= std::max(x.s, x.dil + 1))
        return Skip(Key('o', a) + std::to_string(x.o) + " needs output_padding " +
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
  if (Status st = Validate(p); !st.ok()) return Skip(st.message());
  const Dims out = p.output();
  for (int j = 0; j < rank; ++j) {
    const int a = 3 - rank + j;
    if (out[j] != f.axis[a].o)  // cannot happen: the end padding was solved for it
      return Skip("internal: the output size " + std::to_string(out[j]) + " differs from " +
                  Key('o', a) + std::to_string(f.axis[a].o));
  }
  return {p, ""};
}

// ---- Lines --------------------------------------------------------------------------------------

// Whitespace-separated tokens up to a '#' comment; a double-quoted part (a name) may hold either.
Status SplitLine(const std::string& line, const std::string& where,
                 std::vector<std::string>* tokens) {
  std::string token;
  bool quoted = false;
  for (char c : line) {
    if (!quoted && c == '#') break;
    if (c == '"') quoted = !quoted;
    if (!quoted && (c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f')) {
      if (!token.empty()) tokens->push_back(std::move(token));
      token.clear();
      continue;
    }
    token += c;
  }
  if (quoted) return Status::Invalid(where + ": unterminated quote in " + Quote(token));
  if (!token.empty()) tokens->push_back(std::move(token));
  return Status::Ok();
}

}  // namespace

Result<std::vector<BenchdnnProblem>> ParseBenchdnnText(const std::string& text, bool deconv,
                                                       std::vector<std::string>* skipped,
                                                       const std::string& source) {
  if (text.size() > kMaxTextBytes)
    return Status::Limit(source + ": larger than " + std::to_string(kMaxTextBytes) + " bytes");
  std::vector<BenchdnnProblem> problems;
  size_t entries = 0;
  auto count = [&]() -> Status {
    if (++entries <= kMaxEntries) return Status::Ok();
    return Status::Limit(source + ": more than " + std::to_string(kMaxEntries) +
                         " problems and skipped lines");
  };
  auto skip = [&](std::string entry) -> Status {
    CP_RETURN_IF_ERROR(count());
    if (skipped != nullptr) skipped->push_back(std::move(entry));
    return Status::Ok();
  };
  int line_number = 0;
  for (size_t begin = 0; begin < text.size();) {
    size_t end = text.find('\n', begin);
    if (end == std::string::npos) end = text.size();
    const std::string line = text.substr(begin, end - begin);
    begin = end + 1;
    const std::string where = source + ":" + std::to_string(++line_number);
    std::vector<std::string> tokens;
    CP_RETURN_IF_ERROR(SplitLine(line, where, &tokens));
    for (const std::string& token : tokens) {
      if (token.rfind("--", 0) == 0) {
        CP_RETURN_IF_ERROR(skip(where + ": option " + Quote(token) +
                                " ignored: it configures the benchdnn driver, not the problem"));
        continue;
      }
      Result<Fields> fields = Lex(token, where);
      if (!fields.ok()) return fields.status();
      Converted c = Convert(*fields, deconv);
      if (!c.problem) {
        CP_RETURN_IF_ERROR(skip(where + ": " + Quote(token) + ": " + c.reason));
        continue;
      }
      CP_RETURN_IF_ERROR(count());
      problems.push_back({*c.problem, fields->name, line_number, source, token});
    }
  }
  return problems;
}

bool IsBenchdnnDeconvPath(const std::string& path) {
  size_t begin = 0;
  for (size_t slash; (slash = path.find('/', begin)) != std::string::npos; begin = slash + 1)
    if (path.compare(begin, slash - begin, "deconv") == 0) return true;
  return false;  // the last component is the file's own name
}

Result<std::vector<BenchdnnProblem>> ImportBenchdnnFile(const std::string& path,
                                                        std::vector<std::string>* skipped) {
  Result<std::string> text = ReadFile(path, kMaxTextBytes);
  if (!text.ok()) return text.status();
  return ParseBenchdnnText(*text, IsBenchdnnDeconvPath(path), skipped, path);
}

// ---- Scaling ------------------------------------------------------------------------------------

namespace {

int64_t FloorDiv(int64_t a, int64_t b) { return a >= 0 ? a / b : -((-a + b - 1) / b); }  // b > 0
int64_t CeilDiv(int64_t a, int64_t b) { return -FloorDiv(-a, b); }
int64_t Mod(int64_t a, int64_t m) { return a - FloorDiv(a, m) * m; }

// The input size for dimension j: the largest one not above the current size that keeps the input
// and the output at most `cap`, or, if none does, the smallest valid one. An ordinary convolution
// keeps its input size modulo the stride, so its last window ends as far from the input's end as
// before (the end padding was chosen for that).
int64_t FitInput(const ConvProblem& p, int j, int64_t cap) {
  cap = std::min(cap, kMaxNumber);  // keeps cap·stride far from overflow
  const int64_t s = p.stride[j], pads = p.pad_begin[j] + p.pad_end[j];
  const int64_t dk = p.dilation[j] * (p.kernel[j] - 1) + 1;
  int64_t hi = std::min(p.input[j], cap), lo = 1, modulus = 1;
  if (!p.transposed) {
    modulus = s;
    hi = std::min(hi, cap * s - 1 - pads + dk);  // output ⌊(i + pads − dk)/s⌋ + 1 ≤ cap
    lo = std::max<int64_t>(lo, dk - pads);       // output ≥ 1
  } else {
    const int64_t rest = pads - dk - p.output_padding[j];  // output = (i − 1)·s − rest
    hi = std::min(hi, FloorDiv(cap + rest, s) + 1);
    lo = std::max<int64_t>(lo, CeilDiv(1 + rest, s) + 1);
  }
  const int64_t r = Mod(p.input[j], modulus);
  const int64_t smallest = lo + Mod(r - lo, modulus);  // ≤ the current size, which is valid
  const int64_t largest = hi - Mod(hi - r, modulus);
  return largest >= smallest ? largest : smallest;
}

// Halves the per-group channel counts (then the groups) toward their floors: 2 where the original
// had ≥ 2 (so grouped stays grouped and not depthwise), 1 where it had 1; per-group output channels
// stay fewer than / as many as / more than the per-group input channels.
bool ShrinkChannels(ConvProblem& p, const ConvProblem& original) {
  const int64_t a0 = original.in_channels / original.groups;
  const int64_t b0 = original.out_channels / original.groups;
  const int64_t g = p.groups, a = p.in_channels / g, b = p.out_channels / g;
  auto floor_of = [](int64_t v) -> int64_t { return v >= 2 ? 2 : 1; };
  auto half = [](int64_t v) { return (v + 1) / 2; };
  int64_t na, nb;
  if (a0 == b0) {
    na = nb = std::max(floor_of(a0), half(a));
  } else if (a0 < b0) {
    na = std::max(floor_of(a0), half(a));
    nb = std::max({floor_of(b0), na + 1, half(b)});
  } else {
    nb = std::max(floor_of(b0), half(b));
    na = std::max({floor_of(a0), nb + 1, half(a)});
  }
  int64_t ng = g;
  if (na == a && nb == b) {
    if (original.groups == 1 || g <= 2) return false;
    ng = std::max<int64_t>(2, half(g));
  }
  p.groups = ng;
  p.in_channels = ng * na;
  p.out_channels = ng * nb;
  return true;
}

// Halves the largest spatial extent that can still shrink.
bool ShrinkSpatial(ConvProblem& p) {
  const Dims out = p.output();
  auto extent = [&](int j) { return std::max(p.input[j], out[j]); };
  std::vector<int> order;
  for (int j = 0; j < p.rank; ++j) order.push_back(j);
  std::stable_sort(order.begin(), order.end(), [&](int x, int y) { return extent(x) > extent(y); });
  for (int j : order) {
    const int64_t fitted = FitInput(p, j, std::max<int64_t>(1, extent(j) / 2));
    if (fitted < p.input[j]) {
      p.input[j] = fitted;
      return true;
    }
  }
  return false;
}

}  // namespace

ConvProblem ScaleDown(const ConvProblem& original, const ScaleOptions& options) {
  if (!Validate(original).ok()) return original;
  ConvProblem p = original;
  if (options.max_batch > 0) p.batch = std::min(p.batch, options.max_batch);
  if (options.max_spatial > 0)
    for (int j = 0; j < p.rank; ++j) p.input[j] = FitInput(p, j, options.max_spatial);
  if (options.max_macs > 0) {
    // Channels first: real networks' MACs sit in their channels, and kernels and padding are part
    // of the character, which small spatial sizes would crowd out.
    while (p.macs() > options.max_macs) {
      if (ShrinkChannels(p, original) || ShrinkSpatial(p)) continue;
      if (p.batch == 1) break;
      p.batch = (p.batch + 1) / 2;
    }
  }
  return p;
}

Result<int> WriteImportedCases(const std::vector<BenchdnnProblem>& problems,
                               const std::vector<Direction>& directions,
                               const std::vector<Fill>& fills, const std::string& sut,
                               const std::string& out_dir, uint64_t seed) {
  if (sut.empty()) return Status::Invalid("a system under test is needed for the cases");
  int written = 0;
  for (const BenchdnnProblem& bp : problems) {
    const std::string where = bp.source + ":" + std::to_string(bp.line);
    if (Status st = Validate(bp.problem); !st.ok()) return st.WithContext(where);
    ConvCase c;
    c.problem = bp.problem;
    c.sut = sut;
    c.seed = seed;
    c.note = (bp.name.empty() ? std::string("benchdnn") : bp.name) + " (" + where + ")";
    for (Direction d : directions) {
      for (Fill fill : fills) {
        c.direction = d;
        c.fill = fill;
        Result<std::string> path = WriteCaseFile(out_dir, c);
        if (!path.ok()) return path.status();
        ++written;
      }
    }
  }
  return written;
}

}  // namespace convparity
