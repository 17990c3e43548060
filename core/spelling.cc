#include "core/spelling.h"

#include <algorithm>

#include "core/graph.h"
#include "core/quote.h"

namespace convparity {

namespace {

template <typename E, E Spelling::*member>
SpellingField Field(const char* name, std::vector<const char*> values) {
  return {name, std::move(values), [](const Spelling& s) { return static_cast<int>(s.*member); },
          [](Spelling& s, int v) { s.*member = static_cast<E>(v); }};
}

std::string Dim(const Dims& d, int i) { return std::to_string(d[static_cast<size_t>(i)]); }

Status NotHere(const SpellingField& f, int value, const std::string& why) {
  return Status::Unsupported(std::string(f.name) + "=" + f.values[static_cast<size_t>(value)] +
                             " " + why);
}

}  // namespace

const std::vector<SpellingField>& SpellingFields() {
  static const std::vector<SpellingField> fields{
      Field<PadsSpelling, &Spelling::pads>(
          "pads", {"explicit", "same_upper", "same_lower", "valid", "pad_op"}),
      Field<OutputSizeSpelling, &Spelling::output_size>("output_size",
                                                        {"output_padding", "output_shape"}),
      Field<DataFormatSpelling, &Spelling::data_format>("data_format", {"op", "transposes"}),
      Field<WeightSpelling, &Spelling::weight>("weight", {"constant", "transposed"}),
      Field<DepthwiseSpelling, &Spelling::depthwise>("depthwise", {"groups", "multiplier"}),
      Field<BiasSpelling, &Spelling::bias>("bias", {"operand", "add", "fused"}),
      Field<NormSpelling, &Spelling::norm>("norm", {"none", "identity_batch_norm"}),
  };
  return fields;
}

bool Spelling::operator==(const Spelling& o) const {
  for (const SpellingField& f : SpellingFields())
    if (f.get(*this) != f.get(o)) return false;
  return true;
}

std::string SpellingText(const Spelling& s) {
  std::string text;
  for (const SpellingField& f : SpellingFields()) {
    const int v = f.get(s);
    if (v == 0) continue;
    if (!text.empty()) text += ",";
    text += std::string(f.name) + "=" + f.values[static_cast<size_t>(v)];
  }
  return text;
}

namespace {

// Sets one field by its name and its value's name.
Status SetField(Spelling& s, const std::string& name, const std::string& value) {
  for (const SpellingField& f : SpellingFields()) {
    if (name != f.name) continue;
    for (size_t v = 0; v < f.values.size(); ++v) {
      if (value != f.values[v]) continue;
      f.set(s, static_cast<int>(v));
      return Status::Ok();
    }
    std::string expected;
    for (size_t v = 0; v < f.values.size(); ++v)
      expected += (v == 0                     ? ""
                   : v + 1 == f.values.size() ? " or "
                                              : ", ") +
                  std::string(f.values[v]);
    return Status::Invalid("spelling " + name + " is " +
                           QuoteForMessage(value, QuoteEscapes::kJson) + ", expected " + expected);
  }
  std::string known;
  for (const SpellingField& f : SpellingFields())
    known += (known.empty() ? "" : ", ") + std::string(f.name);
  return Status::Invalid("unknown spelling " + QuoteForMessage(name, QuoteEscapes::kJson) +
                         ", expected one of " + known);
}

}  // namespace

Result<Spelling> ParseSpellingText(const std::string& text) {
  Spelling s;
  if (text.empty() || text == "plain") return s;
  size_t at = 0;
  while (at <= text.size()) {
    const size_t comma = std::min(text.find(',', at), text.size());
    const std::string part = text.substr(at, comma - at);
    const size_t eq = part.find('=');
    if (eq == std::string::npos)
      return Status::Invalid("spelling " + QuoteForMessage(part, QuoteEscapes::kJson) +
                             " is not <way>=<value>, e.g. pads=same_upper");
    Status st = SetField(s, part.substr(0, eq), part.substr(eq + 1));
    if (!st.ok()) return st;
    at = comma + 1;
  }
  return s;
}

nlohmann::json SpellingToJson(const Spelling& s) {
  nlohmann::json j = nlohmann::json::object();
  for (const SpellingField& f : SpellingFields())
    if (f.get(s) != 0) j[f.name] = f.values[static_cast<size_t>(f.get(s))];
  return j;
}

Result<Spelling> SpellingFromJson(const nlohmann::json& j) {
  if (!j.is_object()) return Status::Invalid("field 'spelling' must be an object");
  Spelling s;
  for (const auto& [name, value] : j.items()) {
    if (!value.is_string())
      return Status::Invalid("field 'spelling." + name + "' must be a string");
    Status st = SetField(s, name, value.get<std::string>());
    if (!st.ok()) return st.WithContext("field 'spelling'");
  }
  return s;
}

void AutoPads(PadsSpelling mode, const ConvProblem& p, Dims& begin, Dims& end) {
  begin = Dims{0, 0, 0};
  end = Dims{0, 0, 0};
  if (mode != PadsSpelling::kSameUpper && mode != PadsSpelling::kSameLower) return;
  for (size_t i = 0; i < static_cast<size_t>(p.rank) && i < begin.size(); ++i) {
    if (p.stride[i] < 1) continue;  // no legal problem: Validate refuses it
    const int64_t out = (p.input[i] + p.stride[i] - 1) / p.stride[i];
    const int64_t reach = p.dilation[i] * (p.kernel[i] - 1) + 1;
    const int64_t total = std::max<int64_t>(0, (out - 1) * p.stride[i] + reach - p.input[i]);
    const int64_t small = total / 2, large = total - total / 2;
    begin[i] = mode == PadsSpelling::kSameUpper ? small : large;
    end[i] = mode == PadsSpelling::kSameUpper ? large : small;
  }
}

void ConformToSpelling(const Spelling& s, ConvProblem& p) {
  if (p.transposed) return;
  if (s.pads == PadsSpelling::kSameUpper || s.pads == PadsSpelling::kSameLower ||
      s.pads == PadsSpelling::kValid)
    AutoPads(s.pads, p, p.pad_begin, p.pad_end);
}

SpellingMask SpellingMask::PlainOnly() {
  return SpellingMask{std::vector<uint32_t>(SpellingFields().size(), 1u)};
}

SpellingMask SpellingMask::All() {
  SpellingMask m;
  for (const SpellingField& f : SpellingFields()) m.values.push_back((1u << f.values.size()) - 1u);
  return m;
}

SpellingMask SpellingMask::AllBut(const Spelling& s) {
  SpellingMask m = All();
  for (size_t f = 0; f < SpellingFields().size(); ++f)
    if (const int v = SpellingFields()[f].get(s); v != 0) m.values[f] &= ~(1u << v);
  return m;
}

SpellingMask& SpellingMask::operator|=(const SpellingMask& o) {
  for (size_t f = 0; f < values.size() && f < o.values.size(); ++f) values[f] |= o.values[f];
  return *this;
}

bool SpellingMask::Allows(int field, int value) const {
  return value == 0 || (static_cast<size_t>(field) < values.size() &&
                        (values[static_cast<size_t>(field)] >> value & 1u));
}

bool SpellingMask::Allows(const Spelling& s) const {
  for (size_t f = 0; f < SpellingFields().size(); ++f)
    if (!Allows(static_cast<int>(f), SpellingFields()[f].get(s))) return false;
  return true;
}

Spelling FitSpelling(const Spelling& wished, const ConvProblem& p,
                     const std::function<bool(const ConvProblem&)>& within) {
  Spelling s;
  ConvProblem conformed = p;
  for (const SpellingField& f : SpellingFields()) {
    if (f.get(wished) == 0) continue;
    Spelling t = s;
    f.set(t, f.get(wished));
    ConvProblem q = conformed;
    ConformToSpelling(t, q);
    if (!Validate(q).ok() || !CheckSpelling(t, q).ok() || (within && !within(q))) continue;
    s = t;
    conformed = q;
  }
  return s;
}

Status CheckSpelling(const Spelling& s, const ConvProblem& p) {
  const std::vector<SpellingField>& fields = SpellingFields();
  const SpellingField &pads = fields[0], &output_size = fields[1], &depthwise = fields[4],
                      &bias = fields[5];
  const int rank = p.rank;
  switch (s.pads) {
    case PadsSpelling::kExplicit:
      break;
    case PadsSpelling::kSameUpper:
    case PadsSpelling::kSameLower:
    case PadsSpelling::kValid: {
      // ONNX's ConvTranspose texts disagree on SAME (see OutputSizeSpelling); VALID is plain zeros.
      if (p.transposed && s.pads != PadsSpelling::kValid)
        return NotHere(pads, static_cast<int>(s.pads), "is for ordinary convolutions");
      Dims begin, end;
      AutoPads(s.pads, p, begin, end);
      for (int i = 0; i < rank; ++i)
        if (begin[static_cast<size_t>(i)] != p.pad_begin[static_cast<size_t>(i)] ||
            end[static_cast<size_t>(i)] != p.pad_end[static_cast<size_t>(i)])
          return NotHere(pads, static_cast<int>(s.pads),
                         "pads " + Dim(begin, i) + " and " + Dim(end, i) + " in dimension " +
                             std::to_string(i) + ", the problem " + Dim(p.pad_begin, i) + " and " +
                             Dim(p.pad_end, i));
      break;
    }
    case PadsSpelling::kPadOp:
      if (p.transposed)
        return NotHere(pads, static_cast<int>(s.pads), "is for ordinary convolutions");
      break;
  }
  if (s.output_size == OutputSizeSpelling::kOutputShape) {
    if (!p.transposed) return NotHere(output_size, 1, "is for transposed convolutions");
    if (s.pads != PadsSpelling::kExplicit)
      return NotHere(output_size, 1, "derives the pads itself: it takes no auto-pad mode");
    for (int i = 0; i < rank; ++i)
      if (p.pad_begin[static_cast<size_t>(i)] != p.pad_end[static_cast<size_t>(i)])
        return NotHere(output_size, 1,
                       "needs both ends padded alike, dimension " + std::to_string(i) + " has " +
                           Dim(p.pad_begin, i) + " and " + Dim(p.pad_end, i));
    // ONNX's own shape inference gives up on an output_shape below the input's size.
    const Dims out = p.output();
    for (int i = 0; i < rank; ++i)
      if (out[static_cast<size_t>(i)] < p.input[static_cast<size_t>(i)])
        return NotHere(output_size, 1,
                       "needs an output no smaller than the input, dimension " + std::to_string(i) +
                           " has " + Dim(out, i) + " from " + Dim(p.input, i));
  }
  if (s.depthwise == DepthwiseSpelling::kMultiplier && !HasMultiplierRepresentation(p))
    return NotHere(depthwise, 1,
                   "is for ordinary depthwise convolutions (groups = input channels > 1) with an "
                   "OI… or …IO weight");
  if (s.bias != BiasSpelling::kOperand && !p.bias)
    return NotHere(bias, static_cast<int>(s.bias), "needs a bias");
  return Status::Ok();
}

}  // namespace convparity
