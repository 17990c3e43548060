// Bytes ↔ cases for coverage-guided fuzzing (libFuzzer): a decoder that turns any byte string into
// a valid case, and an encoder that turns a case back into bytes, so that corpus cases seed the
// fuzzer and a fuzzer's finding becomes a corpus case (docs/ARCHITECTURE.md, "Generators").
//
// The byte format is a sequence of choices: the case's SUT, direction and fill, then the problem
// drawn with the space's recipe (generators/space_recipe.h, the generator's own, with wider ranges
// and a few options of the format's own; generators/byte_choices.h reads it from bytes: kind and
// size class → rank → per dimension kernel, dilation, stride → output_padding → padding → size;
// then channels, batch, layouts, bias), then the seed and, for a SUT that runs graphs, the graph
// form, and for a SUT that reads models, the spelling (the recipe's wish, fitted to the problem). A
// choice among options is a roll over their weights, so that random bytes draw about as the
// generator does; a value in a range of n takes ⌈log256 n⌉ bytes, little-endian, reduced modulo n;
// missing bytes read as zero, and the zero of every choice is its plainest option. Decoding is
// total: it clamps, it never rejects; every problem it yields passes Validate() and stays under the
// caps, and so does every graph form's whole graph (one over them decodes as the convolution
// alone).
//
// NOTE: the format follows the recipe: a change of the recipe's choices changes what stored
// inputs decode to (they still decode to valid cases). Seeds are built from the corpus, not kept
// (fuzz/make_seeds.sh); fuzz/fuzz_parity.dict is rebuilt with fuzz/make_parity_dict.sh. The graph
// form and then the spelling are the last choices, so that an input without them is a plainly
// spelled conv: inputs stored before either existed decode as they did.
//
// The encoder writes each value as the choice the decoder makes for it, hence
// DecodeCase(*EncodeCase(c)) == c whenever EncodeCase succeeds.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "core/conv_case.h"
#include "core/defaults.h"
#include "core/status.h"

namespace convparity {

struct ByteDecoderOptions {
  // The case's SUT is one of these, chosen by a byte. Empty: the case keeps ConvCase's default SUT.
  std::vector<std::string> suts;
  // Whether a SUT runs graphs (transform pipelines; harness/suts/sut_registry.h RunsGraphs): the
  // cases of those SUTs choose their graph form (core/case_graphs.h). Null: no SUT does, every case
  // is a conv. A predicate, not a list: generators/ knows no SUT; the harness fills it
  // (FuzzDecoderOptions).
  std::function<bool(const std::string&)> runs_graphs;
  // Whether a SUT reads a model format (harness/models/model_sut.h): the cases of those SUTs
  // choose their spelling (core/spelling.h), after the graph form. Null: none does, every case is
  // plainly spelled.
  std::function<bool(const std::string&)> reads_models;
  int64_t max_macs = defaults::kMaxMacs;
  // A large case (one in twenty) may have max_macs × large_factor multiply-adds, as the
  // generators' large cases (generators/problem_gen.h); ≤ 1: none.
  int64_t large_factor = defaults::kLargeCaseFactor;
  int64_t max_tensor_elements = int64_t{1} << 22;  // per tensor: a large stride costs no MACs
  // And at most defaults::kMaxKernelOfRank for the case's rank.
  int64_t max_kernel = defaults::kMaxKernel;
};

// The MAC cap of a large case under `options` (max_macs when there are none); saturates.
int64_t LargeMacs(const ByteDecoderOptions& options);

// Reads choices from bytes: our own FuzzedDataProvider. Past the end every byte is zero.
class ByteReader {
 public:
  ByteReader(const uint8_t* data, size_t size) : data_(data), size_(size) {}
  // An integer in [lo, hi] (hi ≥ lo), from ChoiceBytes(hi − lo) bytes.
  int64_t Int(int64_t lo, int64_t hi);
  uint64_t U64();  // 8 bytes, any value
  size_t consumed() const { return pos_; }

 private:
  uint64_t Raw(int bytes);
  const uint8_t* data_;
  size_t size_;
  size_t pos_ = 0;
};

// Bytes one choice of `span + 1` values takes: 0 for a single value, 1 up to 256 values, …
int ChoiceBytes(uint64_t span);

// Total: any bytes give a case whose problem passes Validate() and the caps of `options` (its
// multiply-adds up to LargeMacs, a chain's whole block up to max_macs), with a
// SUT from options.suts, expect = passed, no note and no transform; a graph form other than conv
// only for a SUT that options.runs_graphs, and only when its whole graph (every convolution's
// tensors, FormMacs) fits the caps too; a spelling other than plain only for a SUT that
// options.reads_models, one that CheckSpelling accepts, the problem conformed to it and within
// the caps. `consumed` (may be null) receives how many bytes the case
// took, so that a caller can read more choices after it.
ConvCase DecodeCase(const uint8_t* data, size_t size, const ByteDecoderOptions& options,
                    size_t* consumed = nullptr);
inline ConvCase DecodeCase(const std::string& bytes, const ByteDecoderOptions& options) {
  return DecodeCase(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size(), options);
}

// The bytes DecodeCase turns into `c`. Invalid, naming the field, when the format cannot carry c:
// a value outside the decoder's ranges or caps, a SUT not in options.suts, an `expect`, `note`
// or `transform` that is not the default, a chain for a SUT that does not run graphs or whose block
// is over the caps, a spelling for a SUT that reads no model or that does not fit the problem.
// Verifies itself: what it returns decodes to c.
Result<std::string> EncodeCase(const ConvCase& c, const ByteDecoderOptions& options);

}  // namespace convparity
