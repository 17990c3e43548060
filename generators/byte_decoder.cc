#include "generators/byte_decoder.h"

#include <algorithm>
#include <array>
#include <climits>

#include "core/graph.h"
#include "generators/fit_budget.h"
#include "generators/space_rules.h"

namespace convparity {
namespace {

// The decoder's ranges (generators/space_rules.h kByteRanges). They cover everything GenProblem
// draws (so every generated case encodes), with room beyond it: padding past the dilated kernel's
// reach, larger strides and dilations. Input sizes are drawn as the excess over the smallest valid
// one.
constexpr space::ChoiceRanges kRanges = space::kByteRanges;
constexpr int64_t kSmallExtra = 16;    // input sizes just above the smallest valid one
constexpr int64_t kLargeExtra = 1023;  // and anything up to this above it (2 bytes)
constexpr int64_t kMaxPlainChannels = 64, kMaxPerGroup = 64;
constexpr int64_t kLargeOneIn = 100 / defaults::kLargeCasePercent;

// One place where the decoder and the encoder make the same choices (see Build): the decoder reads
// a choice from bytes; the encoder is handed the value it wants and writes the bytes that give it.
class Chooser {
 public:
  virtual ~Chooser() = default;
  // A value in [lo, hi]. `want` is the encoder's target (the decoder ignores it); `what` names
  // the field in the encoder's error.
  virtual int64_t Int(int64_t lo, int64_t hi, int64_t want, const char* what) = 0;
  virtual uint64_t U64(uint64_t want) = 0;
  bool Bool(bool want, const char* what) { return Int(0, 1, want ? 1 : 0, what) == 1; }
};

class Decoder : public Chooser {
 public:
  Decoder(const uint8_t* data, size_t size) : reader_(data, size) {}
  int64_t Int(int64_t lo, int64_t hi, int64_t, const char*) override { return reader_.Int(lo, hi); }
  uint64_t U64(uint64_t) override { return reader_.U64(); }
  size_t consumed() const { return reader_.consumed(); }

 private:
  ByteReader reader_;
};

class Encoder : public Chooser {
 public:
  int64_t Int(int64_t lo, int64_t hi, int64_t want, const char* what) override {
    hi = std::max(hi, lo);
    if (want < lo || want > hi) {
      // Keep going with a value in range, so that the choices after this one stay well defined.
      if (error_.ok())
        error_ = Status::Invalid(std::string(what) + "=" + std::to_string(want) +
                                 " is outside the byte decoder's range [" + std::to_string(lo) +
                                 ", " + std::to_string(hi) + "]");
      want = std::clamp(want, lo, hi);
    }
    Write(static_cast<uint64_t>(want - lo), ChoiceBytes(static_cast<uint64_t>(hi - lo)));
    return want;
  }
  uint64_t U64(uint64_t want) override {
    Write(want, 8);
    return want;
  }
  const std::string& bytes() const { return bytes_; }
  const Status& error() const { return error_; }

 private:
  void Write(uint64_t v, int n) {
    for (int i = 0; i < n; ++i) bytes_.push_back(static_cast<char>((v >> (8 * i)) & 0xff));
  }
  std::string bytes_;
  Status error_;
};

// The smallest valid input size of dimension i, given its other parameters: an ordinary window
// must fit the padded input; a transposed output must keep at least one element after cropping.
int64_t InputFloor(const ConvProblem& p, int i) {
  const int64_t reach = p.dilation[i] * (p.kernel[i] - 1);
  if (!p.transposed) return std::max<int64_t>(1, reach + 1 - p.pad_begin[i] - p.pad_end[i]);
  const int64_t over = p.pad_begin[i] + p.pad_end[i] - reach - p.output_padding[i];
  return over <= 0 ? 1 : 1 + (over + p.stride[i] - 1) / p.stride[i];
}

// One of a few options, by the target's value; option 0 is the plainest.
int Mode(bool first, bool second) { return first ? 0 : second ? 1 : 2; }

void BuildDim(Chooser& ch, const ConvProblem& t, int i, const ByteDecoderOptions& o,
              ConvProblem& p) {
  const int64_t max_kernel = std::min(o.max_kernel, defaults::kMaxKernelOfRank[p.rank]);
  p.kernel[i] = ch.Int(1, std::max<int64_t>(max_kernel, 1), t.kernel[i], "kernel");
  p.dilation[i] = ch.Bool(t.dilation[i] > 1, "dilation>1")
                      ? ch.Int(2, kRanges.max_dilation, t.dilation[i], "dilation")
                      : 1;
  p.stride[i] = ch.Bool(t.stride[i] > 1, "stride>1")
                    ? ch.Int(2, kRanges.max_stride, t.stride[i], "stride")
                    : 1;
  const int64_t reach = p.dilation[i] * (p.kernel[i] - 1);
  p.output_padding[i] = 0;
  if (p.transposed) {
    // ATen: output_padding < max(stride, dilation); its maximum is an edge of its own.
    const int64_t op_max = space::MaxOutputPadding(p.stride[i], p.dilation[i]);
    if (op_max > 0) {
      const int64_t want = t.output_padding[i];
      const auto options = space::OutputPaddingOptions(op_max);
      const space::ChoiceOption& o =
          options[ch.Int(0, 2, space::OptionOf(options, want), "output_padding mode")];
      p.output_padding[i] = ch.Int(o.lo, o.hi, want, "output_padding");
    }
  }
  const int64_t begin_max = reach + kRanges.pad_beyond_reach;
  const int64_t end_max = reach + p.output_padding[i] + kRanges.pad_beyond_reach;
  const int64_t tb = t.pad_begin[i], te = t.pad_end[i];
  const int pad_mode = ch.Int(0, 2, Mode(tb == 0 && te == 0, tb == te), "padding mode");
  if (pad_mode == 0) {
    p.pad_begin[i] = p.pad_end[i] = 0;
  } else if (pad_mode == 1) {
    p.pad_begin[i] = p.pad_end[i] = ch.Int(1, std::min(begin_max, end_max), tb, "padding");
  } else {
    p.pad_begin[i] = ch.Int(0, begin_max, tb, "pad_begin");
    p.pad_end[i] = ch.Int(0, end_max, te, "pad_end");
  }
  const int64_t floor = InputFloor(p, i);
  const int64_t extra = t.input[i] - floor;
  const int size_mode = ch.Int(0, 2, Mode(extra == 0, extra <= kSmallExtra), "input size mode");
  p.input[i] = floor + (size_mode == 0   ? 0
                        : size_mode == 1 ? ch.Int(1, kSmallExtra, extra, "input size")
                                         : ch.Int(0, kLargeExtra, extra, "input size"));
}

void BuildChannels(Chooser& ch, const ConvProblem& t, ConvProblem& p) {
  const int64_t tg = std::max<int64_t>(t.groups, 1);
  const int64_t t_in = t.in_channels / tg, t_out = t.out_channels / tg;
  // Depthwise (groups = C_in, C_out = multiplier · C_in) has its own option: frontends break on it.
  const bool depthwise =
      t_in == 1 && tg <= kRanges.max_depthwise_groups && t_out <= kRanges.max_multiplier;
  const int mode = ch.Int(0, 2, tg == 1 ? 0 : depthwise ? 2 : 1, "channel mode");
  int64_t g = 1, in = 1, out = 1;
  if (mode == 0) {
    in = ch.Int(1, kMaxPlainChannels, t_in, "in_channels");
    out = ch.Int(1, kMaxPlainChannels, t_out, "out_channels");
  } else if (mode == 1) {
    g = ch.Int(2, kRanges.max_groups, tg, "groups");
    in = ch.Int(1, kMaxPerGroup, t_in, "in_channels per group");
    out = ch.Int(1, kMaxPerGroup, t_out, "out_channels per group");
  } else {
    g = ch.Int(2, kRanges.max_depthwise_groups, tg, "depthwise groups");
    out = ch.Int(1, kRanges.max_multiplier, t_out, "depth multiplier");
  }
  p.groups = g;
  p.in_channels = g * in;
  p.out_channels = g * out;
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

// The residual block of p (core/graph.h ChainGraph) fits the caps: both convolutions' multiply-adds
// together, and the second one's tensors (its input and output have p's output shape; its weight
// is C_out × C_out/g × kernel).
bool ChainFitsCaps(const ConvProblem& p, const ByteDecoderOptions& o) {
  return !OverCaps(p, o) && !OverCaps(ResidualConv(p), o) &&
         CaseGraphMacs(p, GraphForm::kChain) <= std::max<int64_t>(o.max_macs, 1);
}

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

// The choices, in order. `t` is the encoder's target (any case when decoding).
ConvCase Build(Chooser& ch, const ConvCase& t, const ByteDecoderOptions& o) {
  ConvCase c;
  if (!o.suts.empty()) {
    const auto it = std::find(o.suts.begin(), o.suts.end(), t.sut);
    const int64_t want = it == o.suts.end() ? -1 : it - o.suts.begin();
    c.sut = o.suts[ch.Int(0, static_cast<int64_t>(o.suts.size()) - 1, want, "sut")];
  }
  c.direction = static_cast<Direction>(ch.Int(0, 2, static_cast<int>(t.direction), "direction"));
  c.fill = static_cast<Fill>(ch.Int(0, 3, static_cast<int>(t.fill), "fill"));
  const ConvProblem& tp = t.problem;
  ConvProblem& p = c.problem;
  p.transposed = ch.Bool(tp.transposed, "transposed");
  p.rank = static_cast<int>(ch.Int(1, kMaxSpatialRank, tp.rank, "rank"));
  for (int i = 0; i < p.rank; ++i) BuildDim(ch, tp, i, o, p);
  BuildChannels(ch, tp, p);
  p.batch = ch.Int(1, kRanges.max_batch, tp.batch, "batch");
  p.data_layout = ch.Bool(tp.data_layout == DataLayout::kChannelsLast, "data layout")
                      ? DataLayout::kChannelsLast
                      : DataLayout::kChannelsFirst;
  // The natural weight layout first: the plainest choice is zero.
  const std::array<WeightLayout, 4> weights = space::WeightLayoutOptions(p.transposed);
  const int64_t want_weight =
      std::find(weights.begin(), weights.end(), tp.weight_layout) - weights.begin();
  p.weight_layout = weights[ch.Int(0, 3, want_weight, "weight layout")];
  p.bias = ch.Bool(tp.bias, "bias");
  c.seed = ch.U64(t.seed);
  // Last (see the NOTE in the header). The block is judged after FitToCaps, on the problem the
  // case ends with; over the caps, the chain clamps to the convolution alone.
  const bool chain = RunsGraphs(c.sut, o) && ch.Bool(t.graph == GraphForm::kChain, "graph chain");
  // One value in kLargeOneIn is large, as about one generated case in twenty: random bytes then
  // cost the fuzzer about as much as a campaign's cases.
  const bool large =
      LargeMacs(o) > o.max_macs &&
      ch.Int(0, kLargeOneIn - 1, OverCaps(tp, o) ? kLargeOneIn - 1 : 0, "large") == kLargeOneIn - 1;
  FitToCaps(p, o, large);
  if (chain && ChainFitsCaps(p, o)) c.graph = GraphForm::kChain;
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
  Decoder decoder(data, size);
  ConvCase c = Build(decoder, ConvCase{}, options);
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
  if (c.graph == GraphForm::kChain && !RunsGraphs(c.sut, options))
    return Status::Invalid("graph: the byte format carries chains only for SUTs that run " +
                           std::string("graphs, not '") + c.sut + "'");
  if (c.graph == GraphForm::kChain && !OverCaps(c.problem, options) &&
      !ChainFitsCaps(c.problem, options))
    return Status::Invalid("graph: the chain (" +
                           std::to_string(CaseGraphMacs(c.problem, GraphForm::kChain)) +
                           " multiply-adds with its residual convolution) is over the byte "
                           "decoder's caps (max_macs " +
                           std::to_string(options.max_macs) + ", max_tensor_elements " +
                           std::to_string(options.max_tensor_elements) + "); as a conv it fits");
  Encoder encoder;
  Build(encoder, c, options);
  if (!encoder.error().ok()) return encoder.error();
  if (!(DecodeCase(encoder.bytes(), options) == c))
    return Status::Invalid("the problem is over the byte decoder's caps (max_macs " +
                           std::to_string(options.max_macs) + ", max_tensor_elements " +
                           std::to_string(options.max_tensor_elements) + ")");
  return encoder.bytes();
}

}  // namespace convparity
