#include "harness/io/onnx_conv_node.h"

#include <cstdlib>

#include "harness/io/import_tally.h"

namespace convparity {
namespace {

constexpr int64_t kMaxValue = int64_t{1} << 30;  // larger values are skipped: no overflow below

OnnxConvConversion Skip(const std::string& category, const std::string& detail) {
  OnnxConvConversion c;
  c.skip = {category + ": " + NumbersAsN(detail), detail};
  return c;
}

std::string Count(const Shape& s) { return std::to_string(s.size()); }

// An attribute's values: `size` of them, or `fill` each where it is absent.
Shape Values(const std::optional<Shape>& a, size_t size, int64_t fill) {
  return a ? *a : Shape(size, fill);
}

// Total padding split as ONNX's ConvTranspose text (opset 11 on) says: the odd one at the end for
// SAME_UPPER, else at the beginning. A negative total adds output_padding instead.
void SplitTransposedPadding(int64_t total, bool same_upper, int64_t& begin, int64_t& end,
                            int64_t& output_padding) {
  if (total < 0) {
    begin = end = 0;
    output_padding -= total;
    return;
  }
  begin = same_upper ? total / 2 : total - total / 2;
  end = total - begin;
}

}  // namespace

std::string OnnxShapeText(const Shape& shape) {
  std::string s = "[";
  for (size_t i = 0; i < shape.size(); ++i)
    s += (i ? "," : "") + (shape[i] < 0 ? std::string("?") : std::to_string(shape[i]));
  return s + "]";
}

Spelling FittingSpelling(const Spelling& wanted, const ConvProblem& p) {
  Spelling explicit_pads = wanted, output_padding = wanted;
  explicit_pads.pads = PadsSpelling::kExplicit;
  output_padding.output_size = OutputSizeSpelling::kOutputPadding;
  for (const Spelling& s : {wanted, explicit_pads, output_padding})
    if (CheckSpelling(s, p).ok()) return s;
  return Spelling{};
}

OnnxConvConversion ProblemFromOnnxConv(const OnnxConvNode& n) {
  const std::string op = n.transposed ? "ConvTranspose" : "Conv";
  if (n.input.size() < 3 || n.input.size() > 2 + kMaxSpatialRank) {
    OnnxConvConversion c;
    c.skip = {kOnnxRankReason,
              std::to_string(static_cast<int64_t>(n.input.size()) - 2) + " spatial dimensions"};
    return c;
  }
  const size_t r = n.input.size() - 2;
  if (n.weight.size() != n.input.size())
    return Skip("attribute",
                "the weight has " + Count(n.weight) + " dimensions, the input " + Count(n.input));
  for (const auto& [name, a, size] :
       {std::make_tuple("kernel_shape", &n.kernel_shape, r),
        std::make_tuple("strides", &n.strides, r), std::make_tuple("dilations", &n.dilations, r),
        std::make_tuple("pads", &n.pads, 2 * r),
        std::make_tuple("output_padding", &n.output_padding, r)})
    if (*a && (*a)->size() != size)
      return Skip("attribute", std::string(name) + " has " + Count(**a) + " values for " +
                                   std::to_string(r) + " spatial dimensions");
  // output_shape may name the batch and channels too (opset 1's text); they are not used.
  Shape output_shape;
  if (n.transposed && n.output_shape) {
    output_shape = *n.output_shape;
    if (output_shape.size() == r + 2)
      output_shape.erase(output_shape.begin(), output_shape.begin() + 2);
    if (output_shape.size() != r)
      return Skip("attribute", "output_shape has " + Count(*n.output_shape) + " values for " +
                                   std::to_string(r) + " spatial dimensions");
  }
  const int64_t group = n.group.value_or(1);
  std::vector<const Shape*> all = {&n.input, &n.weight, &output_shape};
  for (const std::optional<Shape>* a :
       {&n.kernel_shape, &n.strides, &n.dilations, &n.pads, &n.output_padding})
    if (*a) all.push_back(&**a);
  const Shape group_value = {group};
  all.push_back(&group_value);
  for (const Shape* s : all)
    for (int64_t v : *s)
      if (v > kMaxValue || v < -kMaxValue)
        return Skip("size", "a value over 2^30: " + std::to_string(v));
  const std::string mode = n.auto_pad.value_or("NOTSET");
  if (mode != "NOTSET" && mode != "SAME_UPPER" && mode != "SAME_LOWER" && mode != "VALID")
    return Skip("attribute",
                "auto_pad '" + mode + "' is not NOTSET, SAME_UPPER, SAME_LOWER or VALID");
  if (group < 1) return Skip("attribute", "group is " + std::to_string(group));

  const Shape kernel(n.weight.begin() + 2, n.weight.end());
  if (n.kernel_shape && *n.kernel_shape != kernel)
    return Skip("attribute", "kernel_shape " + OnnxShapeText(*n.kernel_shape) +
                                 " is not the weight's " + OnnxShapeText(kernel));
  ConvProblem p;
  p.rank = static_cast<int>(r);
  p.transposed = n.transposed;
  p.groups = group;
  p.batch = n.input[0];
  p.in_channels = n.input[1];
  if (n.transposed) {
    if (n.weight[0] != n.input[1])
      return Skip("attribute", "the weight's first dimension " + std::to_string(n.weight[0]) +
                                   " is not the input's " + std::to_string(n.input[1]) +
                                   " channels");
    p.out_channels = n.weight[1] * group;
  } else {
    if (n.weight[1] * group != n.input[1])
      return Skip("attribute", "the weight's " + std::to_string(n.weight[1]) +
                                   " input channels per group times group " +
                                   std::to_string(group) + " are not the input's " +
                                   std::to_string(n.input[1]) + " channels");
    p.out_channels = n.weight[0];
  }
  p.bias = n.bias;
  p.weight_layout = p.natural_weight_layout();
  const Shape strides = Values(n.strides, r, 1), dilations = Values(n.dilations, r, 1);
  const Shape pads = Values(n.pads, 2 * r, 0), output_padding = Values(n.output_padding, r, 0);
  for (size_t i = 0; i < r; ++i) {
    p.input[i] = n.input[i + 2];
    p.kernel[i] = kernel[i];
    p.stride[i] = strides[i];
    p.dilation[i] = dilations[i];
    p.pad_begin[i] = pads[i];
    p.pad_end[i] = pads[i + r];
    if (n.transposed) p.output_padding[i] = output_padding[i];
  }

  OnnxConvConversion c;
  Spelling& s = c.spelling;
  if (mode == "SAME_UPPER") s.pads = PadsSpelling::kSameUpper;
  if (mode == "SAME_LOWER") s.pads = PadsSpelling::kSameLower;
  if (mode == "VALID") s.pads = PadsSpelling::kValid;
  if (mode == "VALID") p.pad_begin = p.pad_end = Dims{0, 0, 0};
  if (!n.transposed && (mode == "SAME_UPPER" || mode == "SAME_LOWER"))
    AutoPads(s.pads, p, p.pad_begin, p.pad_end);
  if (n.transposed && (!output_shape.empty() || mode == "SAME_UPPER" || mode == "SAME_LOWER")) {
    if (!output_shape.empty()) s.output_size = OutputSizeSpelling::kOutputShape;
    bool odd = false, beyond = false;
    for (size_t i = 0; i < r; ++i) {
      const int64_t out = output_shape.empty() ? p.input[i] * p.stride[i] : output_shape[i];
      const int64_t total = p.stride[i] * (p.input[i] - 1) + p.output_padding[i] +
                            p.dilation[i] * (p.kernel[i] - 1) + 1 - out;
      odd |= total > 0 && total % 2 != 0;
      beyond |= total < 0;
      SplitTransposedPadding(total, mode == "SAME_UPPER", p.pad_begin[i], p.pad_end[i],
                             p.output_padding[i]);
    }
    const std::string derived = output_shape.empty() ? "auto_pad " + mode : "output_shape";
    if (odd)
      c.changes.push_back(
          {"pads: an odd total padding from " + derived +
               " split as ONNX's ConvTranspose says from opset 11 on",
           op + " pads " + OnnxShapeText(Shape(p.pad_begin.begin(), p.pad_begin.begin() + r)) +
               " at the beginning, " +
               OnnxShapeText(Shape(p.pad_end.begin(), p.pad_end.begin() + r)) + " at the end"});
    if (beyond)
      c.changes.push_back(
          {"output_padding: " + derived + " beyond the full output",
           op + " output_padding " +
               OnnxShapeText(Shape(p.output_padding.begin(), p.output_padding.begin() + r)) +
               " for the rows past the full output"});
  }
  if (Status st = Validate(p); !st.ok()) return Skip("illegal", st.message());
  const Spelling fits = FittingSpelling(s, p);
  if (fits != s) {
    const std::string as = fits.plain() ? "explicit pads" : SpellingText(fits);
    c.changes.push_back({"spelling: " + SpellingText(s) + " of a " + op + " written as " + as,
                         CheckSpelling(s, p).message()});
    s = fits;
  }
  c.problem = p;
  return c;
}

}  // namespace convparity
