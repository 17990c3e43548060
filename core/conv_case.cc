#include "core/conv_case.h"

#include "core/descriptor.h"
#include "core/quote.h"

namespace convparity {

const char* FillName(Fill f) {
  switch (f) {
    case Fill::kExact:
      return "exact";
    case Fill::kUniform:
      return "uniform";
    case Fill::kPositive:
      return "positive";
    case Fill::kWide:
      return "wide";
  }
  return "?";
}

std::string CaseTitle(const ConvCase& c) {
  return CaseDescriptor(c.problem, c.direction) +
         (*c.graph != ConvForm() ? " (as a " + c.graph->name + ")" : "") +
         (c.spelling.plain() ? "" : " spelled " + SpellingText(c.spelling));
}

const char* AlgorithmName(Algorithm a) {
  switch (a) {
    case Algorithm::kDirect:
      return "direct";
    case Algorithm::kWinograd:
      return "winograd";
    case Algorithm::kAuto:
      return "auto";
  }
  return "?";
}

Result<Algorithm> ParseAlgorithm(const std::string& s) {
  for (Algorithm a : {Algorithm::kDirect, Algorithm::kWinograd, Algorithm::kAuto})
    if (s == AlgorithmName(a)) return a;
  return Status::Invalid("unknown algorithm " + QuoteForMessage(s, QuoteEscapes::kJson) +
                         ", expected direct, winograd or auto");
}

Result<Fill> ParseFill(const std::string& s) {
  for (Fill f : {Fill::kExact, Fill::kUniform, Fill::kPositive, Fill::kWide})
    if (s == FillName(f)) return f;
  return Status::Invalid("unknown fill " + QuoteForMessage(s, QuoteEscapes::kJson) +
                         ", expected exact, uniform, positive or wide");
}

bool ConvCase::operator==(const ConvCase& o) const {
  return problem == o.problem && direction == o.direction && sut == o.sut && fill == o.fill &&
         seed == o.seed && expect == o.expect && note == o.note && *graph == *o.graph &&
         transform == o.transform && algorithm == o.algorithm && origin == o.origin &&
         spelling == o.spelling;
}

}  // namespace convparity
