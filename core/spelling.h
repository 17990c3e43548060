// How a model file writes a case's convolution: its spelling (docs/INTERFACES.md, "Spellings").
//
// A model format can write one convolution in many ways with the same arithmetic: explicit pads or
// an auto-pad mode, output_padding or the output's shape, a Pad node in front, the bias as the op's
// operand or a separate Add, an identity BatchNormalization after, the weight as a constant or as a
// Transpose of one, a depthwise convolution as a grouped one or as TensorFlow's multiplier op. The
// code that reads a model (a frontend) has to understand each the same way, and the bugs this
// project was started for were frontends that did not. A spelling is one choice per way, each
// plain by default (its first value). SUTs that read a model format honour it (harness/models/
// writes the model); every other SUT runs the same buffers whatever the spelling. A rewrite that
// changes the arithmetic is not a spelling: CheckSpelling allows a choice only where it computes
// the problem's convolution exactly.
#pragma once

#include <cstdint>
#include <functional>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "core/conv_problem.h"
#include "core/status.h"

namespace convparity {

// The padding: the op's explicit pads; an auto-pad mode (ONNX auto_pad SAME_UPPER / SAME_LOWER /
// VALID, TensorFlow's SAME and VALID) where it gives the problem's pads; or a Pad node in front of
// an unpadded op (ordinary convolutions).
enum class PadsSpelling : uint8_t { kExplicit, kSameUpper, kSameLower, kValid, kPadOp };
// A transposed convolution's size: output_padding, or the output's shape (ONNX output_shape) from
// which the format derives the padding. NOTE: ONNX's texts of ConvTranspose split an odd total
// padding in opposite ways (opset 1 and opset 11 disagree), so output_shape is allowed only where
// both ends are padded alike; and ONNX's shape inference gives up on an output smaller than the
// input.
enum class OutputSizeSpelling : uint8_t { kOutputPadding, kOutputShape };
// The data layout: the op reads the problem's layout itself where the format can say so
// (TensorFlow's data_format), or always in the format's default with Transposes around it. Where
// the op cannot read the problem's layout (ONNX's Conv reads channels-first only), both write the
// Transposes.
enum class DataFormatSpelling : uint8_t { kOp, kTransposes };
// The weight: a constant in the op's layout, or a constant in the problem's weight layout followed
// by a Transpose into the op's, which a frontend folds (the same where the two layouts agree).
enum class WeightSpelling : uint8_t { kConstant, kTransposed };
// A depthwise convolution (groups = C_in, multiplier m): a grouped convolution, or the format's
// depthwise form over the weight (C_in, m, k…) (TensorFlow's DepthwiseConv2dNative, HWIM; ONNX: a
// Reshape of that constant into the grouped weight).
enum class DepthwiseSpelling : uint8_t { kGroups, kMultiplier };
// The bias: the op's operand, a separate Add (BiasAdd) after it, or a fused op (TensorFlow's
// _FusedConv2D).
enum class BiasSpelling : uint8_t { kOperand, kAdd, kFused };
// After the op: nothing, or a BatchNormalization that computes the identity exactly (scale 1,
// shift 0, mean 0, variance 1 − ε with ε = 2⁻¹⁰, so that variance + ε is 1 in float32).
enum class NormSpelling : uint8_t { kNone, kIdentityBatchNorm };

struct Spelling {
  PadsSpelling pads = PadsSpelling::kExplicit;
  OutputSizeSpelling output_size = OutputSizeSpelling::kOutputPadding;
  DataFormatSpelling data_format = DataFormatSpelling::kOp;
  WeightSpelling weight = WeightSpelling::kConstant;
  DepthwiseSpelling depthwise = DepthwiseSpelling::kGroups;
  BiasSpelling bias = BiasSpelling::kOperand;
  NormSpelling norm = NormSpelling::kNone;

  bool operator==(const Spelling& o) const;
  bool operator!=(const Spelling& o) const { return !(*this == o); }
  bool plain() const { return *this == Spelling{}; }
};

// The ways, each a member of Spelling and an entry of SpellingFields().
inline constexpr size_t kSpellingWays = 7;

// One way of writing, by name: its values' names (the first plain) and access by index. Case
// files, descriptors' companions, the process protocol, the plugin ABI and the shrinker walk this
// table instead of naming fields.
struct SpellingField {
  const char* name;                 // "pads"
  std::vector<const char*> values;  // "explicit", "same_upper", …
  int (*get)(const Spelling&);
  void (*set)(Spelling&, int);
};
const std::vector<SpellingField>& SpellingFields();

// "pads=same_upper,bias=add": the fields that are not plain, in the table's order; "" when plain.
std::string SpellingText(const Spelling& s);
// The same syntax back; "" and "plain" are the plain spelling. kInvalid naming the bad part.
Result<Spelling> ParseSpellingText(const std::string& text);
// Case files: {"pads": "same_upper", "bias": "add"}, the fields that are not plain.
nlohmann::json SpellingToJson(const Spelling& s);
// Strict: an object of known fields with known values; kInvalid naming what is wrong.
Result<Spelling> SpellingFromJson(const nlohmann::json& j);

// Ok when `s` writes p's convolution exactly (in any direction: a format that writes no backward
// direction declines those itself); kUnsupported naming the field and why
// it does not apply, e.g. "pads=same_upper pads 1 and 1 here, the problem 0 and 0". Every spelling
// applies to every direction a format can write; a format that writes no backward direction
// declines those itself.
Status CheckSpelling(const Spelling& s, const ConvProblem& p);
// The pads an auto-pad mode gives an ordinary convolution p (ONNX's Conv and TensorFlow's SAME:
// the output is ceil(input / stride), the total padding split evenly with the odd one at the end
// for SAME_UPPER, at the start for SAME_LOWER; VALID pads nothing).
void AutoPads(PadsSpelling mode, const ConvProblem& p, Dims& begin, Dims& end);
// Makes p what `s` needs where it can (an auto-pad mode's pads), after a reduction changed p:
// the shrinker keeps a spelling while it reduces the problem.
void ConformToSpelling(const Spelling& s, ConvProblem& p);
// The values a draw of spellings may choose: bit v of values[f] allows value v of
// SpellingFields()[f]. Plain is always allowed. A campaign draws what its model readers' formats
// write (harness/models/model_formats.h).
struct SpellingMask {
  std::vector<uint32_t> values;  // by SpellingFields() index

  static SpellingMask PlainOnly();
  static SpellingMask All();
  // All but the values that `s` spells (its fields that are not plain).
  static SpellingMask AllBut(const Spelling& s);
  SpellingMask& operator|=(const SpellingMask& o);
  bool Allows(int field, int value) const;
  bool Allows(const Spelling& s) const;
};

// The spelling of p nearest to `wished` (a draw of the generators, generators/problem_gen.h
// GenSpelling): each way as wished where it fits p once conformed (ConformToSpelling; the ways in
// SpellingFields()' order), else plain. `within` (when given) must hold of p conformed too: a cap
// on the work, which SAME's pads can grow (its output is ⌈in/s⌉). CheckSpelling(result, p
// conformed to it) holds whenever p is valid.
Spelling FitSpelling(const Spelling& wished, const ConvProblem& p,
                     const std::function<bool(const ConvProblem&)>& within = {});

}  // namespace convparity
