#include "generators/byte_decoder.h"

#include <gtest/gtest.h>
#include <rapidcheck.h>
#include <rapidcheck/gtest.h>

#include <functional>
#include <map>
#include <string>
#include <vector>

#include "core/descriptor.h"
#include "core/prng.h"
#include "generators/problem_gen.h"

namespace convparity {
namespace {

const std::vector<std::string> kSuts{"direct", "direct-reverse", "known-bug:tvm-9465"};

ByteDecoderOptions Options() {
  ByteDecoderOptions o;
  o.suts = kSuts;
  return o;
}

// GenProblem's own caps: every case it draws is one the format must carry.
ByteDecoderOptions GeneratorOptions() {
  ByteDecoderOptions o = Options();
  o.max_macs = ProblemSpace{}.max_macs;
  o.max_tensor_elements = Limits{}.max_tensor_elements;
  return o;
}

bool WithinCaps(const ConvProblem& p, const ByteDecoderOptions& o) {
  return p.macs() <= o.max_macs && NumElements(p.input_shape()) <= o.max_tensor_elements &&
         NumElements(p.output_shape()) <= o.max_tensor_elements &&
         NumElements(p.weight_shape()) <= o.max_tensor_elements;
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

RC_GTEST_PROP(ByteDecoder, AnyBytesDecodeToAValidCaseUnderTheCaps, (const std::string& bytes)) {
  ByteDecoderOptions o = Options();
  o.max_macs = *rc::gen::element<int64_t>(1, 1000, 200000);
  o.max_kernel = *rc::gen::inRange<int64_t>(1, 12);
  const ConvCase c = DecodeCase(bytes, o);
  RC_ASSERT(Validate(c.problem).ok());
  RC_ASSERT(WithinCaps(c.problem, o));
  RC_ASSERT(CheckLimits(c.problem, Limits{}).ok());
  RC_ASSERT(std::find(kSuts.begin(), kSuts.end(), c.sut) != kSuts.end());
  RC_ASSERT(c.expect == Expect::kParity && c.note.empty() && c.transform.is_null());
}

RC_GTEST_PROP(ByteDecoder, DecodeOfEncodeIsIdentityOnGeneratedCases, ()) {
  ConvCase c;
  c.problem = *GenProblem();
  c.direction = *rc::gen::element(Direction::kForward, Direction::kBackwardData,
                                  Direction::kBackwardWeight);
  c.fill = *rc::gen::element(Fill::kExact, Fill::kUniform, Fill::kPositive, Fill::kWide);
  c.seed = *rc::gen::arbitrary<uint64_t>();
  c.sut = *rc::gen::elementOf(kSuts);
  const ByteDecoderOptions o = GeneratorOptions();
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
  c.sut = kSuts[0];
  const ByteDecoderOptions o = GeneratorOptions();
  const Result<std::string> bytes = EncodeCase(c, o);
  RC_ASSERT(bytes.ok());
  std::string mutated = *bytes;
  const size_t at = *rc::gen::inRange<size_t>(0, mutated.size());
  mutated[at] = *rc::gen::arbitrary<char>();
  const ConvCase d = DecodeCase(mutated.substr(0, *rc::gen::inRange<size_t>(0, mutated.size() + 1)),
                                Options());
  RC_ASSERT(Validate(d.problem).ok());
  RC_ASSERT(WithinCaps(d.problem, Options()));
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
      {"stride>1 and dilation>1", any_dim([](const ConvProblem& p, int i) {
         return p.stride[i] > 1 && p.dilation[i] > 1;
       })},
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
      {"3-D transposed kernel>=7", [](const ConvCase& c) {
         return c.problem.rank == 3 && c.problem.transposed && c.problem.kernel[0] >= 7;
       }},
      {"output size 1", any_dim([](const ConvProblem& p, int i) { return p.output()[i] == 1; })},
      {"batch>1", [](const ConvCase& c) { return c.problem.batch > 1; }},
      {"channels_last",
       [](const ConvCase& c) { return c.problem.data_layout == DataLayout::kChannelsLast; }},
      {"bias", [](const ConvCase& c) { return c.problem.bias; }},
  };
  for (WeightLayout w : {WeightLayout::kOI, WeightLayout::kIO, WeightLayout::kSpatialIO,
                         WeightLayout::kOSpatialI})
    features["weight " + WeightLayoutName(w, 2)] = [w](const ConvCase& c) {
      return c.problem.weight_layout == w;
    };
  for (Direction d : AllDirections())
    features[DirectionName(d)] = [d](const ConvCase& c) { return c.direction == d; };
  for (Fill f : {Fill::kExact, Fill::kUniform, Fill::kPositive, Fill::kWide})
    features[std::string("fill ") + FillName(f)] = [f](const ConvCase& c) { return c.fill == f; };
  for (const std::string& s : kSuts)
    features["sut " + s] = [s](const ConvCase& c) { return c.sut == s; };

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

TEST(ByteDecoder, EncoderNamesWhatTheFormatCannotCarry) {
  ConvCase c;
  c.sut = kSuts[1];
  c.problem.kernel[0] = c.problem.kernel[1] = 10;
  c.problem.input[0] = c.problem.input[1] = 12;
  Result<std::string> bytes = EncodeCase(c, Options());
  ASSERT_FALSE(bytes.ok());
  EXPECT_EQ(bytes.status().message(), "kernel=10 is outside the byte decoder's range [1, 9]");

  c = ConvCase{};
  c.sut = "torch-f32";
  EXPECT_NE(EncodeCase(c, Options()).status().message().find("sut 'torch-f32'"), std::string::npos);
  c.sut = kSuts[0];
  c.note = "why";
  EXPECT_FALSE(EncodeCase(c, Options()).ok());
  c.note.clear();
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
}

}  // namespace
}  // namespace convparity
