#include "core/spelling.h"

#include <gtest/gtest.h>

#include <set>
#include <string>

#include "core/conv_case.h"
#include "core/descriptor.h"

namespace convparity {
namespace {

ConvProblem ProblemOf(const std::string& descriptor) {
  Result<ParsedDescriptor> parsed = ParseDescriptor(descriptor);
  EXPECT_TRUE(parsed.ok()) << descriptor << ": " << parsed.status().message();
  return parsed->problem;
}

Spelling SpellingOf(const std::string& text) {
  Result<Spelling> s = ParseSpellingText(text);
  EXPECT_TRUE(s.ok()) << text << ": " << s.status().message();
  return *s;
}

TEST(Spelling, EveryValueRoundTripsAsTextAndJson) {
  for (const SpellingField& f : SpellingFields())
    for (size_t v = 0; v < f.values.size(); ++v) {
      Spelling s;
      f.set(s, static_cast<int>(v));
      EXPECT_EQ(s.plain(), v == 0);
      const std::string text = SpellingText(s);
      EXPECT_EQ(text, v == 0 ? "" : std::string(f.name) + "=" + f.values[v]);
      EXPECT_EQ(*ParseSpellingText(text), s);
      EXPECT_EQ(*SpellingFromJson(SpellingToJson(s)), s);
    }
  const Spelling two = SpellingOf("bias=add,pads=pad_op");
  EXPECT_EQ(SpellingText(two), "pads=pad_op,bias=add");  // the table's order
  EXPECT_TRUE(SpellingOf("plain").plain());
}

TEST(Spelling, BadTextAndJsonAreNamed) {
  EXPECT_EQ(
      ParseSpellingText("pads=same").status().message(),
      "spelling pads is \"same\", expected explicit, same_upper, same_lower, valid or pad_op");
  EXPECT_NE(ParseSpellingText("padz=valid").status().message().find("unknown spelling \"padz\""),
            std::string::npos);
  EXPECT_NE(ParseSpellingText("pads").status().message().find("is not <way>=<value>"),
            std::string::npos);
  EXPECT_FALSE(ParseSpellingText("pads=valid,").ok());
  EXPECT_FALSE(SpellingFromJson(nlohmann::json::array()).ok());
  EXPECT_EQ(SpellingFromJson({{"bias", 1}}).status().message(),
            "field 'spelling.bias' must be a string");
}

TEST(Spelling, AutoPadsAreOnnxAndTensorFlowSame) {
  // in 6, k 3, s 2: output ceil(6/2) = 3, total (3-1)*2 + 3 - 6 = 1, the odd one at the end
  // (SAME_UPPER, TensorFlow's SAME) or the start (SAME_LOWER).
  ConvProblem p = ProblemOf("1d_ic1_oc1_i6_k3_s2");
  Dims begin, end;
  AutoPads(PadsSpelling::kSameUpper, p, begin, end);
  EXPECT_EQ(begin[0], 0);
  EXPECT_EQ(end[0], 1);
  AutoPads(PadsSpelling::kSameLower, p, begin, end);
  EXPECT_EQ(begin[0], 1);
  EXPECT_EQ(end[0], 0);
  // Dilated: reach 2*(3-1)+1 = 5 over 7 at stride 1: total 4.
  p = ProblemOf("1d_ic1_oc1_i7_k3_d2");
  AutoPads(PadsSpelling::kSameUpper, p, begin, end);
  EXPECT_EQ(begin[0], 2);
  EXPECT_EQ(end[0], 2);
  // The kernel fits in the stride: nothing to pad.
  p = ProblemOf("1d_ic1_oc1_i8_k2_s4");
  AutoPads(PadsSpelling::kSameLower, p, begin, end);
  EXPECT_EQ(begin[0] + end[0], 0);
  AutoPads(PadsSpelling::kValid, ProblemOf("1d_ic1_oc1_i7_k3_p1"), begin, end);
  EXPECT_EQ(begin[0] + end[0], 0);
}

TEST(Spelling, ApplyOnlyWhereTheArithmeticIsTheProblems) {
  auto why = [](const std::string& spelling, const std::string& descriptor) {
    return CheckSpelling(SpellingOf(spelling), ProblemOf(descriptor)).message();
  };
  auto fits = [](const std::string& spelling, const std::string& descriptor) {
    return CheckSpelling(SpellingOf(spelling), ProblemOf(descriptor)).ok();
  };
  EXPECT_TRUE(fits("pads=same_upper", "1d_ic1_oc1_i6_k3_s2_pe1"));
  EXPECT_EQ(why("pads=same_upper", "1d_ic1_oc1_i6_k3_s2"),
            "pads=same_upper pads 0 and 1 in dimension 0, the problem 0 and 0");
  EXPECT_TRUE(fits("pads=same_lower", "1d_ic1_oc1_i6_k3_s2_pb1"));
  EXPECT_FALSE(fits("pads=same_lower", "t1d_ic1_oc1_i6_k3_s2_pb1"));
  EXPECT_TRUE(fits("pads=valid", "t1d_ic1_oc1_i6_k3_s2"));
  EXPECT_FALSE(fits("pads=valid", "1d_ic1_oc1_i6_k3_p1"));
  EXPECT_TRUE(fits("pads=pad_op", "1d_ic1_oc1_i6_k3_pb2_pe1"));
  EXPECT_EQ(why("pads=pad_op", "t1d_ic1_oc1_i6_k3_p1"), "pads=pad_op is for ordinary convolutions");
  EXPECT_TRUE(fits("output_size=output_shape", "t1d_ic1_oc1_i6_k3_s2_p1_op1"));
  EXPECT_EQ(why("output_size=output_shape", "t1d_ic1_oc1_i6_k3_s2_pb1"),
            "output_size=output_shape needs both ends padded alike, dimension 0 has 1 and 0");
  EXPECT_FALSE(fits("output_size=output_shape", "1d_ic1_oc1_i6_k3"));
  EXPECT_TRUE(fits("depthwise=multiplier", "1d_g4_ic4_oc8_i6_k3"));
  EXPECT_FALSE(fits("depthwise=multiplier", "1d_g2_ic4_oc8_i6_k3"));
  EXPECT_FALSE(fits("depthwise=multiplier", "t1d_g4_ic4_oc8_i6_k3"));
  EXPECT_TRUE(fits("bias=fused", "1d_ic1_oc1_i6_k3_b"));
  EXPECT_EQ(why("bias=add", "1d_ic1_oc1_i6_k3"), "bias=add needs a bias");
  EXPECT_TRUE(fits("data_format=transposes,weight=transposed,norm=identity_batch_norm",
                   "t2d_ic2_oc3_i5x5_k2x3"));
}

TEST(Spelling, CaseFilesCarryItAndRefuseOneThatDoesNotFit) {
  ConvCase c;
  c.problem = ProblemOf("2d_ic2_oc4_i6x6_k3x3_s2_pe1x1_b");
  c.spelling = SpellingOf("pads=same_upper,bias=add");
  nlohmann::json j = CaseToJson(c);
  EXPECT_EQ(j["spelling"], nlohmann::json({{"pads", "same_upper"}, {"bias", "add"}}));
  EXPECT_EQ(*CaseFromJson(j), c);
  EXPECT_NE(CaseTitle(c).find(" spelled pads=same_upper,bias=add"), std::string::npos);
  EXPECT_FALSE(CaseToJson(ConvCase{}).contains("spelling"));  // plain: as before
  j["spelling"]["pads"] = "same_lower";
  EXPECT_EQ(CaseFromJson(j).status().message(),
            "field 'spelling': pads=same_lower pads 1 and 0 in dimension 0, the problem 0 and 1");
}

TEST(Spelling, AnIllegalProblemIsRefusedForItselfNotByTheSpellingsShapeMath) {
  ConvCase c;
  c.problem = ProblemOf("1d_ic1_oc1_i6_k3_s2_pe1");
  c.spelling = SpellingOf("pads=same_upper");
  nlohmann::json j = CaseToJson(c, /*with_descriptor=*/false);
  j["problem"]["stride"] = {0};  // SAME's math divides by it
  // Case files carry any problem (conv_case_test); validating it is the run's, which refuses it.
  Result<ConvCase> read = CaseFromJson(j);
  ASSERT_TRUE(read.ok()) << read.status().message();
  const Status valid = Validate(read->problem);
  EXPECT_NE(valid.message().find("stride"), std::string::npos) << valid.message();
}

// Every wish (each way's every value, 480 in all) fitted to problems between which every value of
// every way fits somewhere.
std::vector<Spelling> EveryWish() {
  std::vector<Spelling> wishes{Spelling{}};
  for (const SpellingField& f : SpellingFields()) {
    std::vector<Spelling> more;
    for (const Spelling& w : wishes)
      for (size_t v = 0; v < f.values.size(); ++v) {
        Spelling t = w;
        f.set(t, static_cast<int>(v));
        more.push_back(t);
      }
    wishes = std::move(more);
  }
  return wishes;
}

TEST(Spelling, FitsAWishWhereItFitsAndReachesEveryValue) {
  ASSERT_EQ(SpellingFields().size(), kSpellingWays);
  const ConvProblem problems[] = {ProblemOf("2d_g3_ic3_oc6_i7x6_k3x3_s2_pb1x0_b"),
                                  ProblemOf("t2d_ic2_oc3_i4x5_k3x3_s2_p1_op1_b"),
                                  ProblemOf("1d_ic2_oc2_i5_k1")};
  const std::vector<Spelling> wishes = EveryWish();
  ASSERT_EQ(wishes.size(), 480u);
  std::set<std::string> fitted;
  for (const ConvProblem& p : problems)
    for (const Spelling& wish : wishes) {
      const Spelling s = FitSpelling(wish, p);
      ConvProblem conformed = p;
      ConformToSpelling(s, conformed);
      ASSERT_TRUE(Validate(conformed).ok());
      ASSERT_TRUE(CheckSpelling(s, conformed).ok()) << SpellingText(s);
      // Each way is as wished or plain; a wish that fits as a whole is kept whole.
      for (const SpellingField& f : SpellingFields())
        EXPECT_TRUE(f.get(s) == f.get(wish) || f.get(s) == 0) << f.name;
      ConvProblem as_wished = p;
      ConformToSpelling(wish, as_wished);
      if (Validate(as_wished).ok() && CheckSpelling(wish, as_wished).ok()) {
        EXPECT_EQ(s, wish) << SpellingText(wish);
      }
      for (const SpellingField& f : SpellingFields())
        fitted.insert(std::string(f.name) + "=" + f.values[static_cast<size_t>(f.get(s))]);
      // A bound nothing meets keeps every way plain; one that only the problem's own pads meet
      // keeps every way but an auto-pad mode that changes them.
      EXPECT_TRUE(FitSpelling(wish, p, [](const ConvProblem&) { return false; }).plain());
      const Spelling same_pads = FitSpelling(wish, p, [&p](const ConvProblem& q) {
        return q.pad_begin == p.pad_begin && q.pad_end == p.pad_end;
      });
      ConvProblem kept = p;
      ConformToSpelling(same_pads, kept);
      EXPECT_EQ(kept, p) << SpellingText(same_pads);
      EXPECT_EQ(same_pads.norm, s.norm);
    }
  for (const SpellingField& f : SpellingFields())
    for (const char* v : f.values)
      EXPECT_EQ(fitted.count(std::string(f.name) + "=" + v), 1u) << f.name << "=" << v;
}

TEST(Spelling, AMaskAllowsPlainAlwaysAndWhatAFormatWrites) {
  Spelling fused;
  fused.bias = BiasSpelling::kFused;
  const SpellingMask onnx = SpellingMask::AllBut(fused);
  EXPECT_FALSE(onnx.Allows(fused));
  EXPECT_TRUE(onnx.Allows(SpellingOf("bias=add,pads=same_lower")));
  EXPECT_TRUE(SpellingMask::PlainOnly().Allows(Spelling{}));
  EXPECT_FALSE(SpellingMask::PlainOnly().Allows(SpellingOf("norm=identity_batch_norm")));
  SpellingMask both = onnx;
  both |= SpellingMask::AllBut(SpellingOf("pads=same_lower"));
  EXPECT_TRUE(both.Allows(fused));
  for (const Spelling& w : EveryWish()) EXPECT_TRUE(SpellingMask::All().Allows(w));
}

}  // namespace
}  // namespace convparity
