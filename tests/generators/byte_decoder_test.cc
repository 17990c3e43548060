#include "generators/byte_decoder.h"

#include <gtest/gtest.h>
#include <rapidcheck.h>
#include <rapidcheck/gtest.h>

#include <functional>
#include <map>
#include <string>
#include <vector>

#include "core/descriptor.h"
#include "core/graph.h"
#include "core/prng.h"
#include "generators/problem_gen.h"

namespace convparity {
namespace {

// The fourth runs graphs (its cases may be chains), the last reads models (chains and spellings);
// the harness's own predicates are harness/suts/sut_registry.h RunsGraphs and ReadsModels, which
// unit_tests do not link.
const std::vector<std::string> kSuts{"direct", "direct-reverse", "known-bug:tvm-9465",
                                     "transform:legalize", "opencv-dnn"};
const std::string& kGraphSut = kSuts[3];
const std::string& kModelSut = kSuts[4];

ByteDecoderOptions Options() {
  ByteDecoderOptions o;
  o.suts = kSuts;
  o.runs_graphs = [](const std::string& sut) { return sut == kGraphSut || sut == kModelSut; };
  o.reads_models = [](const std::string& sut) { return sut == kModelSut; };
  return o;
}

// A drawn wish fitted to c's problem, which is conformed to it, as a campaign draws a spelling:
// no auto-pad mode whose pads take the problem over the caps of `o`.
void Spell(ConvCase& c, const Spelling& wished, const ByteDecoderOptions& o) {
  c.spelling =
      FitSpelling(wished, c.problem, [&o](const ConvProblem& q) { return q.macs() <= o.max_macs; });
  ConformToSpelling(c.spelling, c.problem);
}

// GenProblem's own caps: every case it draws is one the format must carry.
ByteDecoderOptions GeneratorOptions() {
  ByteDecoderOptions o = Options();
  o.max_macs = ProblemSpace{}.max_macs;
  o.max_tensor_elements = Limits{}.max_tensor_elements;
  return o;
}

// A single convolution may be large (LargeMacs); a chain's block stays under max_macs.
bool WithinCaps(const ConvProblem& p, const ByteDecoderOptions& o) {
  return p.macs() <= LargeMacs(o) && NumElements(p.input_shape()) <= o.max_tensor_elements &&
         NumElements(p.output_shape()) <= o.max_tensor_elements &&
         NumElements(p.weight_shape()) <= o.max_tensor_elements;
}

// A case's whole graph under the caps: for a chain, both convolutions' MACs together and the
// residual convolution's tensors.
bool CaseWithinCaps(const ConvCase& c, const ByteDecoderOptions& o) {
  if (!WithinCaps(c.problem, o)) return false;
  if (c.graph == &ConvForm()) return true;
  ByteDecoderOptions tensors = o;
  tensors.max_macs = INT64_MAX;
  return c.problem.macs() <= o.max_macs && WithinCaps(ResidualConv(c.problem), tensors) &&
         FormMacs(ChainForm(), c.problem) <= o.max_macs;
}

std::string RandomBytes(Prng& prng, size_t n) {
  std::string s(n, '\0');
  for (char& ch : s) ch = static_cast<char>(prng.Next() & 0xff);
  return s;
}

TEST(ByteDecoder, ChoiceBytesIsTheWidthOfTheSpan) {
  EXPECT_EQ(ChoiceBytes(0), 0);
  EXPECT_EQ(ChoiceBytes(1), 1);
  EXPECT_EQ(ChoiceBytes(255), 1);
  EXPECT_EQ(ChoiceBytes(256), 2);
  EXPECT_EQ(ChoiceBytes(UINT64_MAX), 8);
}

TEST(ByteDecoder, ReaderReducesModuloTheRangeAndReadsZerosPastTheEnd) {
  const uint8_t data[] = {7, 0x34, 0x12};
  ByteReader r(data, sizeof data);
  EXPECT_EQ(r.Int(1, 3), 1 + 7 % 3);
  EXPECT_EQ(r.Int(0, 0xffff), 0x1234);  // two bytes, little-endian
  EXPECT_EQ(r.Int(5, 9), 5);            // past the end
  EXPECT_EQ(r.U64(), 0u);
  EXPECT_EQ(r.consumed(), 3u + 1 + 8);
}

TEST(ByteDecoder, NoBytesDecodeToThePlainestCase) {
  const ConvCase c = DecodeCase(std::string(), Options());
  ConvCase plain;
  plain.problem.rank = 1;
  plain.sut = kSuts[0];
  EXPECT_EQ(c, plain) << CaseDescriptor(c.problem, c.direction);
}

RC_GTEST_PROP(ByteDecoder, AnyBytesDecodeToAValidCaseUnderTheCaps, (const std::string& head)) {
  // Half of them long enough to reach the last choice (the graph form, after the 8 seed bytes).
  const std::string bytes =
      head + *rc::gen::container<std::string>(*rc::gen::element<size_t>(0, 64),
                                              rc::gen::arbitrary<char>());
  ByteDecoderOptions o = Options();
  o.max_macs = *rc::gen::element<int64_t>(1, 1000, 200000);
  o.max_kernel = *rc::gen::inRange<int64_t>(1, 12);
  const ConvCase c = DecodeCase(bytes, o);
  RC_ASSERT(Validate(c.problem).ok());
  RC_ASSERT(CaseWithinCaps(c, o));  // a chain's whole block included
  RC_ASSERT(CheckLimits(c.problem, Limits{}).ok());
  RC_ASSERT(std::find(kSuts.begin(), kSuts.end(), c.sut) != kSuts.end());
  RC_ASSERT(c.expect == Verdict::kPassed && c.note.empty() && !c.transform);
  RC_ASSERT(c.spelling.plain() || c.sut == kModelSut);
  RC_ASSERT(CheckSpelling(c.spelling, c.problem).ok());
  if (c.graph == &ChainForm()) {
    RC_ASSERT(c.sut == kGraphSut || c.sut == kModelSut);
    RC_ASSERT(CheckLimits(ResidualConv(c.problem), Limits{}).ok());
  }
  RC_TAG(c.graph->name);
}

// The same for chains, in volume: uniform bytes for a graph SUT under a random MAC cap. A chain's
// whole block fits the caps (both convolutions' MACs, the residual convolution's tensors).
RC_GTEST_PROP(ByteDecoder, EveryDecodedChainIsAGraphSutsAndFitsTheCaps, (uint64_t seed)) {
  ByteDecoderOptions o = Options();
  o.suts = {kSuts[0], kGraphSut};
  o.max_macs = *rc::gen::inRange<int64_t>(1, 400001);
  Prng prng(seed);
  int chains = 0;
  for (int n = 0; n < 50; ++n) {
    const ConvCase c = DecodeCase(RandomBytes(prng, 8 + prng.Below(64)), o);
    if (c.graph == &ConvForm()) continue;
    ++chains;
    RC_ASSERT(c.sut == kGraphSut || c.sut == kModelSut);
    RC_ASSERT(CaseWithinCaps(c, o));
    RC_ASSERT(Validate(ResidualConv(c.problem)).ok());
    RC_ASSERT(CheckLimits(ResidualConv(c.problem), Limits{}).ok());
  }
  RC_CLASSIFY(chains > 0, "some chains");
}

RC_GTEST_PROP(ByteDecoder, DecodeOfEncodeIsIdentityOnGeneratedCases, ()) {
  ConvCase c;
  c.problem = *GenProblem();
  c.direction =
      *rc::gen::element(Direction::kForward, Direction::kBackwardData, Direction::kBackwardWeight);
  c.fill = *rc::gen::element(Fill::kExact, Fill::kUniform, Fill::kPositive, Fill::kWide);
  c.seed = *rc::gen::arbitrary<uint64_t>();
  c.sut = *rc::gen::elementOf(kSuts);
  const ByteDecoderOptions o = GeneratorOptions();
  // Spellings only where the format carries them: a model reader.
  if (c.sut == kModelSut) Spell(c, *GenSpelling(), o);
  // Chains only where the format carries them: a graph SUT, the whole block under the caps.
  c.graph = &ChainForm();
  if (!o.runs_graphs(c.sut) || !CaseWithinCaps(c, o) || *rc::gen::arbitrary<bool>())
    c.graph = &ConvForm();
  RC_TAG(c.graph->name);
  RC_TAG(c.spelling.plain() ? "plain" : "spelled");
  const Result<std::string> bytes = EncodeCase(c, o);
  RC_ASSERT(bytes.ok());  // a failure prints the field and the rule
  size_t consumed = 0;
  const std::string with_more = *bytes + "trailing choices";
  RC_ASSERT(DecodeCase(reinterpret_cast<const uint8_t*>(with_more.data()), with_more.size(), o,
                       &consumed) == c);
  RC_ASSERT(consumed == bytes->size());  // what follows is left to the caller (fuzz_transforms)
}

// Decoding is also a way to draw cases: flipping any one byte of an encoded case still gives a
// valid case (nothing in the format depends on a byte being what the encoder wrote).
RC_GTEST_PROP(ByteDecoder, MutatedEncodingsStillDecodeToValidCases, ()) {
  ConvCase c;
  c.problem = *GenProblem();
  c.sut = *rc::gen::elementOf(kSuts);
  const ByteDecoderOptions o = GeneratorOptions();
  c.graph = o.runs_graphs(c.sut) ? &ChainForm() : &ConvForm();
  if (c.sut == kModelSut) Spell(c, *GenSpelling(), o);
  if (!CaseWithinCaps(c, o)) c.graph = &ConvForm();
  const Result<std::string> bytes = EncodeCase(c, o);
  RC_ASSERT(bytes.ok());
  std::string mutated = *bytes;
  const size_t at = *rc::gen::inRange<size_t>(0, mutated.size());
  mutated[at] = *rc::gen::arbitrary<char>();
  const ConvCase d =
      DecodeCase(mutated.substr(0, *rc::gen::inRange<size_t>(0, mutated.size() + 1)), Options());
  RC_ASSERT(Validate(d.problem).ok());
  RC_ASSERT(CaseWithinCaps(d, Options()));
  RC_ASSERT(CheckSpelling(d.spelling, d.problem).ok());
}

// Every feature the generators reach is reachable from random bytes, and not rarely: a fuzzer
// starting from nothing finds each one in its first few thousand inputs.
TEST(ByteDecoder, RandomBytesReachEveryFeature) {
  using Check = std::function<bool(const ConvCase&)>;
  auto any_dim = [](const std::function<bool(const ConvProblem&, int)>& f) -> Check {
    return [f](const ConvCase& c) {
      for (int i = 0; i < c.problem.rank; ++i)
        if (f(c.problem, i)) return true;
      return false;
    };
  };
  std::map<std::string, Check> features{
      {"rank1", [](const ConvCase& c) { return c.problem.rank == 1; }},
      {"rank2", [](const ConvCase& c) { return c.problem.rank == 2; }},
      {"rank3", [](const ConvCase& c) { return c.problem.rank == 3; }},
      {"transposed", [](const ConvCase& c) { return c.problem.transposed; }},
      {"groups>1 not depthwise",
       [](const ConvCase& c) { return c.problem.groups > 1 && !c.problem.depthwise(); }},
      {"depthwise multiplier>1",
       [](const ConvCase& c) { return c.problem.depthwise() && c.problem.depth_multiplier() > 1; }},
      {"stride>1", any_dim([](const ConvProblem& p, int i) { return p.stride[i] > 1; })},
      {"dilation>1", any_dim([](const ConvProblem& p, int i) { return p.dilation[i] > 1; })},
      {"stride>1 and dilation>1",
       any_dim([](const ConvProblem& p, int i) { return p.stride[i] > 1 && p.dilation[i] > 1; })},
      {"asymmetric padding",
       any_dim([](const ConvProblem& p, int i) { return p.pad_begin[i] != p.pad_end[i]; })},
      {"padding beyond the kernel's reach", any_dim([](const ConvProblem& p, int i) {
         return p.pad_begin[i] > p.dilation[i] * (p.kernel[i] - 1);
       })},
      {"output_padding at its maximum", any_dim([](const ConvProblem& p, int i) {
         return p.transposed && p.output_padding[i] > 0 &&
                p.output_padding[i] == std::max(p.stride[i], p.dilation[i]) - 1;
       })},
      {"kernel 9", any_dim([](const ConvProblem& p, int i) { return p.kernel[i] == 9; })},
      {"3-D transposed kernel>=7",
       [](const ConvCase& c) {
         return c.problem.rank == 3 && c.problem.transposed && c.problem.kernel[0] >= 7;
       }},
      {"output size 1", any_dim([](const ConvProblem& p, int i) { return p.output()[i] == 1; })},
      {"batch>1", [](const ConvCase& c) { return c.problem.batch > 1; }},
      {"channels_last",
       [](const ConvCase& c) { return c.problem.data_layout == DataLayout::kChannelsLast; }},
      {"bias", [](const ConvCase& c) { return c.problem.bias; }},
      {"chain", [](const ConvCase& c) { return c.graph == &ChainForm(); }},
  };
  for (WeightLayout w :
       {WeightLayout::kOI, WeightLayout::kIO, WeightLayout::kSpatialIO, WeightLayout::kOSpatialI})
    features["weight " + WeightLayoutName(w, 2)] = [w](const ConvCase& c) {
      return c.problem.weight_layout == w;
    };
  for (Direction d : AllDirections())
    features[DirectionName(d)] = [d](const ConvCase& c) { return c.direction == d; };
  for (Fill f : {Fill::kExact, Fill::kUniform, Fill::kPositive, Fill::kWide})
    features[std::string("fill ") + FillName(f)] = [f](const ConvCase& c) { return c.fill == f; };
  for (const std::string& s : kSuts)
    features["sut " + s] = [s](const ConvCase& c) { return c.sut == s; };
  for (const SpellingField& f : SpellingFields())
    for (size_t v = 1; v < f.values.size(); ++v)
      features[std::string("spelled ") + f.name + "=" + f.values[v]] = [&f, v](const ConvCase& c) {
        return f.get(c.spelling) == static_cast<int>(v);
      };

  std::map<std::string, int> seen;
  Prng prng(20261122);
  constexpr int kInputs = 5000;
  for (int n = 0; n < kInputs; ++n) {
    const ConvCase c = DecodeCase(RandomBytes(prng, 16 + prng.Below(48)), Options());
    for (const auto& [name, has] : features)
      if (has(c)) ++seen[name];
  }
  for (const auto& [name, has] : features)
    EXPECT_GE(seen[name], 5) << name << " in " << kInputs << " random inputs";
}

// The spelling is the very last choice, made for model readers only: an input that ends before it
// is plainly spelled, and so were the stored inputs from before spellings. An auto-pad mode's pads
// are the problem's once decoded, whatever pads the recipe drew.
TEST(ByteDecoder, TheSpellingIsTheLastChoiceAndFitsTheProblem) {
  ConvCase c;
  c.sut = kModelSut;
  c.problem.in_channels = 2;
  c.problem.out_channels = 4;
  c.problem.bias = true;
  c.problem.kernel = {3, 1, 1};
  c.problem.stride = {2, 1, 1};
  c.problem.input = {8, 1, 1};
  c.problem.pad_end = {1, 0, 0};  // SAME_UPPER's: 7 + 3 − 8 = 1 in all, at the end
  const Result<std::string> plain = EncodeCase(c, Options());
  ASSERT_TRUE(plain.ok()) << plain.status().message();
  c.spelling.pads = PadsSpelling::kSameUpper;
  c.spelling.bias = BiasSpelling::kAdd;
  const Result<std::string> spelled = EncodeCase(c, Options());
  ASSERT_TRUE(spelled.ok()) << spelled.status().message();
  // They differ in the spelling's bytes only, the plain one's zeros that an input may leave out.
  ASSERT_EQ(spelled->size(), plain->size());
  size_t k = 0;
  while (k < plain->size() && (*plain)[k] == (*spelled)[k]) ++k;
  ASSERT_LT(k, plain->size());
  EXPECT_EQ(plain->substr(k), std::string(plain->size() - k, '\0'));
  EXPECT_LE(plain->size() - k, kSpellingWays);  // a byte per way at most
  EXPECT_EQ(DecodeCase(*spelled, Options()), c);
  ConvCase plainly = c;
  plainly.spelling = Spelling{};
  EXPECT_EQ(DecodeCase(plain->substr(0, k), Options()), plainly);
  const std::string wish = spelled->substr(k);

  // The same wish after a problem with other pads: SAME_UPPER's pads replace them.
  ConvCase padded = c;
  padded.spelling = Spelling{};
  padded.problem.pad_begin = {2, 0, 0};
  const Result<std::string> other = EncodeCase(padded, Options());
  ASSERT_TRUE(other.ok()) << other.status().message();
  ASSERT_EQ(other->size(), plain->size());
  EXPECT_EQ(DecodeCase(other->substr(0, k) + wish, Options()), c);

  // A wish that does not fit is dropped way by way: no bias, so no bias=add.
  ConvCase unbiased = c;
  unbiased.problem.bias = false;
  unbiased.spelling = Spelling{};
  const Result<std::string> no_bias = EncodeCase(unbiased, Options());
  ASSERT_TRUE(no_bias.ok());
  EXPECT_EQ(SpellingText(DecodeCase(no_bias->substr(0, k) + wish, Options()).spelling),
            "pads=same_upper");

  // Only model readers are spelled, and only as the problem allows.
  ConvCase kernel = c;
  kernel.sut = kSuts[0];
  kernel.graph = &ConvForm();
  EXPECT_EQ(EncodeCase(kernel, Options()).status().message(),
            "spelling: the byte format carries spellings only for SUTs that read models, not "
            "'direct'");
  ConvCase first;
  first.sut = kSuts[0];
  const Result<std::string> unspelled = EncodeCase(first, Options());
  ASSERT_TRUE(unspelled.ok());
  EXPECT_TRUE(DecodeCase(*unspelled + wish, Options()).spelling.plain());
  ConvCase unfit = c;
  unfit.spelling.pads = PadsSpelling::kSameLower;
  EXPECT_NE(EncodeCase(unfit, Options()).status().message().find("spelling: pads=same_lower"),
            std::string::npos);
}

// The graph form is the last choice, made for graph SUTs only: an input that ends before it decodes
// to the conv, and a chain whose block is over the caps clamps to its conv. The size class (large
// or not) comes early, after the kind: it weighs the options of the sizes and channel counts.
TEST(ByteDecoder, TheGraphFormIsTheLastChoiceAndChainsClampToConv) {
  ConvCase c;
  c.sut = kGraphSut;
  c.problem.in_channels = c.problem.out_channels = 4;
  c.problem.kernel = {3, 3, 1};
  c.problem.input = {6, 6, 1};
  c.graph = &ChainForm();
  const Result<std::string> chain = EncodeCase(c, Options());
  ASSERT_TRUE(chain.ok()) << chain.status().message();
  c.graph = &ConvForm();
  const Result<std::string> conv = EncodeCase(c, Options());
  ASSERT_TRUE(conv.ok()) << conv.status().message();
  ASSERT_EQ(chain->size(), conv->size());
  const size_t n = conv->size();
  EXPECT_EQ(chain->substr(0, n - 1), conv->substr(0, n - 1));
  EXPECT_EQ(chain->back(), '\x01');
  EXPECT_EQ(DecodeCase(conv->substr(0, n - 1), Options()), c);  // the graph choice left out

  c.sut = kSuts[0];  // runs single convolutions: no graph choice at all
  const Result<std::string> kernel = EncodeCase(c, Options());
  ASSERT_TRUE(kernel.ok());
  EXPECT_EQ(kernel->size(), n - 1);
  EXPECT_EQ(DecodeCase(*kernel + '\x01', Options()).graph, &ConvForm());

  // A large case: over max_macs, under LargeMacs. The size class is the fifth choice (after the
  // SUT, direction, fill and kind, a byte each), a roll over 100 whose last 5 values are large;
  // with a roll of 0 the same choices are fitted to max_macs.
  ConvCase big = c;
  big.problem.in_channels = big.problem.out_channels = 64;  // 64·64·9·16 = 589824 MACs
  const Result<std::string> large = EncodeCase(big, Options());
  ASSERT_TRUE(large.ok()) << large.status().message();
  EXPECT_EQ((*large)[4], '\x5f');  // 95, the first roll of the large option
  EXPECT_EQ(DecodeCase(*large, Options()), big);
  std::string ordinary = *large;
  ordinary[4] = '\0';
  EXPECT_LE(DecodeCase(ordinary, Options()).problem.macs(), Options().max_macs);

  // p alone: 4·4·9·16 = 2304 MACs; with the residual convolution 2304 + 4·4·9·16 = 4608.
  ByteDecoderOptions tight = Options();
  tight.max_macs = 3000;
  ASSERT_EQ(FormMacs(ChainForm(), DecodeCase(*chain, Options()).problem), 4608);
  const ConvCase clamped = DecodeCase(*chain, tight);
  EXPECT_EQ(clamped.graph, &ConvForm());
  EXPECT_EQ(clamped.problem, c.problem);
}

TEST(ByteDecoder, EncoderNamesWhatTheFormatCannotCarry) {
  ConvCase c;
  c.sut = kSuts[1];
  c.problem.kernel[0] = c.problem.kernel[1] = 16;  // 2-D kernels go up to 15
  c.problem.input[0] = c.problem.input[1] = 18;
  Result<std::string> bytes = EncodeCase(c, Options());
  ASSERT_FALSE(bytes.ok());
  EXPECT_EQ(bytes.status().message(), "kernel=16 is outside the byte decoder's range [1, 15]");

  c = ConvCase{};
  c.sut = "torch-f32";
  EXPECT_NE(EncodeCase(c, Options()).status().message().find("sut 'torch-f32'"), std::string::npos);
  c.sut = kSuts[0];
  c.note = "why";
  EXPECT_FALSE(EncodeCase(c, Options()).ok());
  c.note.clear();
  c.origin = {"benchdnn", "shapes_basic", 3, "", "", {}};
  EXPECT_EQ(EncodeCase(c, Options()).status().message(),
            "origin: the byte format carries no origin");
  c.origin = {};
  c.algorithm = Algorithm::kWinograd;
  EXPECT_EQ(EncodeCase(c, Options()).status().message(),
            "algorithm: the byte format carries the direct algorithm only");
  c.algorithm = Algorithm::kDirect;
  c.problem.groups = 3;  // invalid: 1 channel in 3 groups
  EXPECT_NE(EncodeCase(c, Options()).status().message().find("problem: "), std::string::npos);

  c = ConvCase{};
  c.sut = kSuts[0];
  c.problem.in_channels = c.problem.out_channels = 32;
  c.problem.input = {300, 300, 1};
  ByteDecoderOptions small = Options();
  small.max_macs = 1000;
  EXPECT_NE(EncodeCase(c, small).status().message().find("over the byte decoder's caps"),
            std::string::npos);

  // Chains: for graph SUTs only, and with the whole block under the caps (what decoding gives
  // back otherwise is the conv, not c).
  c = ConvCase{};
  c.graph = &ChainForm();
  c.sut = kSuts[0];
  EXPECT_EQ(EncodeCase(c, Options()).status().message(),
            "graph: the byte format carries chain cases only for SUTs that run graphs, not "
            "'direct'");
  c.sut = kGraphSut;
  c.problem.in_channels = c.problem.out_channels = 8;
  c.problem.input = {20, 20, 1};
  c.problem.kernel = {3, 3, 1};  // 8·8·9·18·18 = 186624 MACs; twice that with its residual conv
  ByteDecoderOptions large = Options();
  large.max_macs = 400000;
  EXPECT_TRUE(EncodeCase(c, large).ok());
  const Result<std::string> over = EncodeCase(c, Options());  // max_macs 200000
  ASSERT_FALSE(over.ok());
  EXPECT_NE(over.status().message().find("graph: the chain (373248 multiply-adds"),
            std::string::npos)
      << over.status().message();
  c.graph = &ConvForm();
  EXPECT_TRUE(EncodeCase(c, Options()).ok());
}

}  // namespace
}  // namespace convparity
