#include "generators/byte_decoder.h"

#include <algorithm>
#include <array>
#include <climits>
#include <map>
#include <mutex>
#include <optional>
#include <utility>

#include "core/graph.h"
#include "generators/byte_choices.h"
#include "generators/fit_budget.h"
#include "generators/space_recipe.h"

namespace convparity {
namespace {

using recipe::Recipe;

// The recipe the byte format draws with (generators/space_recipe.h): every rank, kind and
// feature, kernels up to the options' cap, large cases when they have a larger cap; the byte
// decoder's ranges (generators/space_rules.h kByteRanges), which cover everything GenProblem draws
// (so every generated case encodes) and reach past it. Made once per kernel cap and size class.
const ByteGen<Recipe>& ByteRecipe(const ByteDecoderOptions& o) {
  static std::mutex mu;
  static std::map<std::pair<int64_t, bool>, ByteGen<Recipe>> made;
  const bool large = LargeMacs(o) > std::max<int64_t>(o.max_macs, 1);
  std::lock_guard<std::mutex> lock(mu);
  auto it = made.find({o.max_kernel, large});
  if (it == made.end()) {
    recipe::SpaceParams s;
    s.ranks = {1, 2, 3};
    for (int rank = 1; rank <= kMaxSpatialRank; ++rank)
      s.max_kernel[rank] = std::clamp<int64_t>(o.max_kernel, 1, defaults::kMaxKernelOfRank[rank]);
    s.large_percent = large ? defaults::kLargeCasePercent : 0;
    s.ranges = space::kByteRanges;
    it = made.emplace(std::pair(o.max_kernel, large), recipe::SpaceRecipe<ByteChoices>::Draw(s))
             .first;
  }
  return it->second;
}

// The smallest valid input size of dimension i, given its other parameters: an ordinary window
// must fit the padded input; a transposed output must keep at least one element after cropping.
int64_t InputFloor(const ConvProblem& p, int i) {
  const int64_t reach = p.dilation[i] * (p.kernel[i] - 1);
  if (!p.transposed) return std::max<int64_t>(1, reach + 1 - p.pad_begin[i] - p.pad_end[i]);
  const int64_t over = p.pad_begin[i] + p.pad_end[i] - reach - p.output_padding[i];
  return over <= 0 ? 1 : 1 + (over + p.stride[i] - 1) / p.stride[i];
}

// Over the caps of an ordinary case, or with `large`, of a large one.
bool OverCaps(const ConvProblem& p, const ByteDecoderOptions& o, bool large = false) {
  const int64_t max_elements = std::max<int64_t>(o.max_tensor_elements, 1);
  return p.macs() > std::max<int64_t>(large ? LargeMacs(o) : o.max_macs, 1) ||
         NumElements(p.input_shape()) > max_elements ||
         NumElements(p.output_shape()) > max_elements ||
         NumElements(p.weight_shape()) > max_elements;
}

bool RunsGraphs(const std::string& sut, const ByteDecoderOptions& o) {
  return o.runs_graphs && o.runs_graphs(sut);
}

bool ReadsModels(const std::string& sut, const ByteDecoderOptions& o) {
  return o.reads_models && o.reads_models(sut);
}

// The recipe's spelling draw, every value allowed: the fuzzer reaches what a format declines too.
const ByteGen<Spelling>& ByteSpelling() {
  static const ByteGen<Spelling> spelling =
      recipe::SpaceRecipe<ByteChoices>::SpellingOf(SpellingMask::All());
  return spelling;
}

// The form's graph of p (core/case_graphs.h) fits the caps: every convolution's tensors, and their
// multiply-adds together.
bool GraphFitsCaps(const GraphForm& form, const ConvProblem& p, const ByteDecoderOptions& o) {
  Result<std::vector<ConvProblem>> convs = FormConvs(form, p);
  if (!convs.ok()) return false;
  for (const ConvProblem& q : *convs)
    if (OverCaps(q, o)) return false;
  return FormMacs(form, p) <= std::max<int64_t>(o.max_macs, 1);
}

int64_t FormIndex(const GraphForm& form) { return &form - GraphForms().data(); }

// Halves the largest size (batch, groups, channels per group, each input's excess over its floor)
// until the problem fits the caps; then shortens kernels; at last drops padding (a
// generators/fit_budget.h policy). Every step keeps the problem valid; the last one reaches a
// problem of one MAC and one element per tensor.
void FitToCaps(ConvProblem& p, const ByteDecoderOptions& o, bool large) {
  using Halving = FitPolicy<ConvProblem>::Halving;
  auto plainest = [](ConvProblem& x) {
    for (int i = 0; i < x.rank; ++i) {
      x.kernel[i] = 1;
      x.pad_begin[i] = x.pad_end[i] = x.output_padding[i] = 0;
      x.input[i] = InputFloor(x, i);
    }
  };
  auto half = [](int64_t v) { return v - v / 2; };
  // Channel counts are kept as groups × per group; `part` 0 is the groups, 1 and 2 the input and
  // output channels per group.
  auto channels = [half](int part) {
    auto of = [part](const ConvProblem& x) {
      return part == 0 ? x.groups : (part == 1 ? x.in_channels : x.out_channels) / x.groups;
    };
    return Halving{of, [of, part, half](ConvProblem& x) {
                     int64_t g = x.groups, in = x.in_channels / g, out = x.out_channels / g;
                     (part == 0 ? g : part == 1 ? in : out) = half(of(x));
                     x.groups = g;
                     x.in_channels = g * in;
                     x.out_channels = g * out;
                   }};
  };
  FitPolicy<ConvProblem> policy;
  policy.over = [&o, large](const ConvProblem& x) { return OverCaps(x, o, large); };
  // On ties the first of these is halved: batch, groups, channels per group, input excesses.
  policy.halvings = {Halving{[](const ConvProblem& x) { return x.batch; },
                             [half](ConvProblem& x) { x.batch = half(x.batch); }},
                     channels(0), channels(1), channels(2)};
  for (int i = 0; i < p.rank; ++i)
    policy.halvings.push_back(
        Halving{[i](const ConvProblem& x) { return x.input[i] - InputFloor(x, i) + 1; },
                [i](ConvProblem& x) {
                  x.input[i] = InputFloor(x, i) + (x.input[i] - InputFloor(x, i)) / 2;
                }});
  policy.fallbacks = {[](ConvProblem& x) {
                        int widest = -1;
                        for (int i = 0; i < x.rank; ++i)
                          if (x.kernel[i] > 1 && (widest < 0 || x.kernel[i] > x.kernel[widest]))
                            widest = i;
                        if (widest < 0) return FitStep::kNotApplicable;
                        --x.kernel[widest];
                        x.input[widest] = std::max(x.input[widest], InputFloor(x, widest));
                        return FitStep::kApplied;
                      },
                      [plainest](ConvProblem& x) {
                        plainest(x);
                        return FitStep::kLast;
                      }};
  policy.max_steps = 512;
  if (!FitToBudget(
          p, policy)) {  // not reachable with the ranges above; kept so that the promise holds
    p.batch = p.groups = p.in_channels = p.out_channels = 1;
    plainest(p);
  }
}

// The choices, in order: the case's SUT, direction and fill, the problem's recipe, the seed, the
// graph form, the spelling. `t` and `want` are the encoder's target (null when decoding).
ConvCase Build(ByteStream& s, const ConvCase& t, const Recipe* want, const ByteDecoderOptions& o) {
  ConvCase c;
  if (!o.suts.empty()) {
    const auto it = std::find(o.suts.begin(), o.suts.end(), t.sut);
    const int64_t sut = it == o.suts.end() ? -1 : it - o.suts.begin();
    c.sut = o.suts[s.Int(0, static_cast<int64_t>(o.suts.size()) - 1, &sut, "sut")];
  }
  const int64_t direction = static_cast<int>(t.direction), fill = static_cast<int>(t.fill);
  c.direction = static_cast<Direction>(s.Int(0, 2, &direction, "direction"));
  c.fill = static_cast<Fill>(s.Int(0, 3, &fill, "fill"));
  const Recipe r = ByteRecipe(o).run(s, want);
  c.problem = recipe::Assemble(r);
  c.seed = s.U64(&t.seed);
  // Last (see the NOTE in the header). The graph is judged after FitToCaps, on the problem the
  // case ends with; over the caps, it clamps to the convolution alone.
  const int64_t form_wanted = FormIndex(*t.graph);
  const int64_t last_form = static_cast<int64_t>(GraphForms().size()) - 1;
  const GraphForm& form = RunsGraphs(c.sut, o)
                              ? GraphForms()[s.Int(0, last_form, &form_wanted, "graph form")]
                              : ConvForm();
  const Spelling wished = ReadsModels(c.sut, o) ? ByteSpelling().run(s, &t.spelling) : Spelling{};
  FitToCaps(c.problem, o, r.large);
  c.spelling = FitSpelling(wished, c.problem,
                           [&](const ConvProblem& q) { return !OverCaps(q, o, r.large); });
  ConformToSpelling(c.spelling, c.problem);
  if (GraphFitsCaps(form, c.problem, o)) c.graph = &form;
  return c;
}

}  // namespace

int64_t LargeMacs(const ByteDecoderOptions& o) {
  const int64_t max_macs = std::max<int64_t>(o.max_macs, 1);
  if (o.large_factor <= 1) return max_macs;
  return space::LargeCaseMacs(max_macs, o.large_factor);
}

int ChoiceBytes(uint64_t span) {
  int n = 0;
  for (; span > 0; span >>= 8) ++n;
  return n;
}

uint64_t ByteReader::Raw(int bytes) {
  uint64_t v = 0;
  for (int i = 0; i < bytes; ++i, ++pos_)
    if (pos_ < size_) v |= static_cast<uint64_t>(data_[pos_]) << (8 * i);
  return v;
}

int64_t ByteReader::Int(int64_t lo, int64_t hi) {
  if (hi <= lo) return lo;
  const uint64_t span = static_cast<uint64_t>(hi - lo);
  const uint64_t raw = Raw(ChoiceBytes(span));
  return lo + static_cast<int64_t>(span == UINT64_MAX ? raw : raw % (span + 1));
}

uint64_t ByteReader::U64() { return Raw(8); }

ConvCase DecodeCase(const uint8_t* data, size_t size, const ByteDecoderOptions& options,
                    size_t* consumed) {
  ByteStream decoder(data, size);
  ConvCase c = Build(decoder, ConvCase{}, nullptr, options);
  if (consumed != nullptr) *consumed = decoder.consumed();
  return c;
}

Result<std::string> EncodeCase(const ConvCase& c, const ByteDecoderOptions& options) {
  if (c.expect != Verdict::kPassed)
    return Status::Invalid("expect: the byte format carries cases expected to pass only");
  if (!c.note.empty()) return Status::Invalid("note: the byte format carries no note");
  if (!c.origin.empty()) return Status::Invalid("origin: the byte format carries no origin");
  if (c.algorithm != Algorithm::kDirect)
    return Status::Invalid("algorithm: the byte format carries the direct algorithm only");
  if (c.transform) return Status::Invalid("transform: the byte format carries no transform");
  if (options.suts.empty()
          ? c.sut != ConvCase{}.sut
          : std::find(options.suts.begin(), options.suts.end(), c.sut) == options.suts.end())
    return Status::Invalid("sut '" + c.sut + "' is not one of the byte decoder's SUTs");
  if (Status st = Validate(c.problem); !st.ok()) return st.WithContext("problem");
  if (*c.graph != ConvForm() && !RunsGraphs(c.sut, options))
    return Status::Invalid("graph: the byte format carries " + c.graph->name +
                           " cases only for SUTs that run graphs, not '" + c.sut + "'");
  if (*c.graph != ConvForm() && !OverCaps(c.problem, options) &&
      !GraphFitsCaps(*c.graph, c.problem, options))
    return Status::Invalid("graph: the " + c.graph->name + " (" +
                           std::to_string(FormMacs(*c.graph, c.problem)) +
                           " multiply-adds in all) is over the byte "
                           "decoder's caps (max_macs " +
                           std::to_string(options.max_macs) + ", max_tensor_elements " +
                           std::to_string(options.max_tensor_elements) + "); as a conv it fits");
  if (!c.spelling.plain() && !ReadsModels(c.sut, options))
    return Status::Invalid(
        "spelling: the byte format carries spellings only for SUTs that read "
        "models, not '" +
        c.sut + "'");
  if (Status st = CheckSpelling(c.spelling, c.problem); !st.ok())
    return Status::Invalid("spelling: " + st.message());
  const std::optional<recipe::Recipe> want =
      recipe::RecipeOf(c.problem, OverCaps(c.problem, options));
  if (!want)
    return Status::Invalid(
        "input: the byte format carries an ordinary input at least `dilation` long when the "
        "kernel has more taps than one, and a transposed input long enough to keep an output "
        "after cropping");
  ByteStream encoder;
  Build(encoder, c, &*want, options);
  if (!encoder.error().ok()) return encoder.error();
  if (!(DecodeCase(encoder.bytes(), options) == c))
    return Status::Invalid("the problem is over the byte decoder's caps (max_macs " +
                           std::to_string(options.max_macs) + ", max_tensor_elements " +
                           std::to_string(options.max_tensor_elements) + ")");
  return encoder.bytes();
}

}  // namespace convparity
