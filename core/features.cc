#include "core/features.h"

#include <algorithm>

#include "core/defaults.h"

namespace convparity {
namespace {

bool Any(const ConvProblem& p, bool (*pred)(const ConvProblem&, int)) {
  for (int i = 0; i < p.rank; ++i)
    if (pred(p, i)) return true;
  return false;
}

// 8, 16, 32, 64 … and one off them: where libraries' blocked paths and their tails are.
bool NearBlockSize(int64_t channels) {
  if (channels < 7) return false;
  const int64_t r = channels % 8;
  return r == 7 || r == 0 || r == 1;
}

}  // namespace

std::vector<std::string> FeatureTags(const ConvProblem& p) {
  std::vector<std::string> tags{"rank" + std::to_string(p.rank)};
  if (p.transposed) tags.push_back("transposed");
  if (p.depthwise())
    tags.push_back("depthwise");
  else if (p.groups > 1)
    tags.push_back("grouped");
  if (p.depthwise() && p.depth_multiplier() > 1) tags.push_back("multiplier>1");
  if (Any(p, [](const ConvProblem& q, int i) { return q.stride[i] > 1; }))
    tags.push_back("stride>1");
  if (Any(p, [](const ConvProblem& q, int i) { return q.stride[i] > q.kernel[i]; }))
    tags.push_back("stride>kernel");
  if (Any(p, [](const ConvProblem& q, int i) { return q.dilation[i] > 1 && q.kernel[i] > 1; }))
    tags.push_back("dilation>1");
  if (Any(p, [](const ConvProblem& q, int i) { return q.output_padding[i] > 0; }))
    tags.push_back("output_padding>0");
  if (Any(p, [](const ConvProblem& q, int i) { return q.pad_begin[i] != q.pad_end[i]; }))
    tags.push_back("asymmetric_padding");
  if (p.data_layout == DataLayout::kChannelsLast) tags.push_back("channels_last");
  if (p.weight_layout != p.natural_weight_layout())
    tags.push_back("weight:" + WeightLayoutName(p.weight_layout, 2));
  if (Any(p, [](const ConvProblem& q, int i) { return q.kernel[i] > 5; }))
    tags.push_back("kernel>5");
  if (Any(p, [](const ConvProblem& q, int i) { return q.kernel[i] > 9; }))
    tags.push_back("kernel>9");
  if (Any(p, [](const ConvProblem& q, int i) { return q.kernel[i] > 16; }))
    tags.push_back("kernel>16");
  if (NearBlockSize(p.in_channels) || NearBlockSize(p.out_channels) ||
      NearBlockSize(p.in_channels / p.groups) || NearBlockSize(p.out_channels / p.groups))
    tags.push_back("channels_near_block");
  if (p.macs() > defaults::kMaxMacs) tags.push_back("large");
  if (p.batch > 1) tags.push_back("batch>1");
  if (p.bias) tags.push_back("bias");
  const Dims out = p.output();
  if (std::all_of(out.begin(), out.begin() + p.rank, [](int64_t o) { return o == 1; }))
    tags.push_back("output_size_1");
  return tags;
}

const std::vector<std::string>& AllFeatureTagNames() {
  // clang-format off
  static const std::vector<std::string> names{
      "rank1", "rank2", "rank3", "transposed", "depthwise", "grouped", "multiplier>1", "stride>1",
      "stride>kernel", "dilation>1", "output_padding>0", "asymmetric_padding", "channels_last",
      "weight:oihw", "weight:iohw", "weight:hwio", "weight:ohwi", "kernel>5", "kernel>9",
      "kernel>16", "channels_near_block", "large", "batch>1", "bias", "output_size_1"};
  // clang-format on
  return names;
}

std::string BucketSignature(const ConvCase& c, Verdict verdict, Symptom symptom) {
  const ConvProblem& p = c.problem;
  std::string sig = c.sut + "/" + DirectionName(c.direction) + "/" + VerdictName(verdict) + "/";
  if (verdict == Verdict::kFailed && symptom != Symptom::kNone) {
    sig += SymptomName(symptom);
    // A narrower type's rounding is one cause wherever the sums are long enough: its minimal
    // cases differ in rank, kernel and groups, none of which says anything about it.
    if (symptom == Symptom::kPrecision) return sig;
    sig += "/";
  }
  // A spelling is a way a frontend reads the model: a bucket of its own.
  if (!c.spelling.plain()) sig += "spelled:" + SpellingText(c.spelling) + "/";
  sig += (*c.graph != ConvForm() ? c.graph->name + "." : "") + (p.transposed ? "t" : "") +
         std::to_string(p.rank) + "d";
  for (const std::string& tag : FeatureTags(p)) {
    // Rank and kind are in the prefix; sizes (batch, bias, output 1) describe the case, not the
    // bug. The space's wider bins (issue 16) are coverage only: the signature stays as it was.
    if (tag.rfind("rank", 0) == 0 || tag == "transposed" || tag == "batch>1" ||
        tag == "output_size_1" || tag == "kernel>9" || tag == "kernel>16" ||
        tag == "channels_near_block" || tag == "large")
      continue;
    sig += "." + tag;
  }
  return sig;
}

}  // namespace convparity
