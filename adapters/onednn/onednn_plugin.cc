// The oneDNN adapter: a convparity plugin (ABI 3, convparity_plugin.h) around oneDNN's
// convolution and deconvolution primitives, in every direction. The plugin itself runs oneDNN's
// first choice of implementation; its variants "2" … "12" run the second to twelfth implementations
// that accept a problem, and "winograd" the Winograd algorithm where oneDNN has it. Every run names
// the implementation used, and a Winograd result is flagged inexact. See README.md.
#include <array>
#include <cstdio>
#include <oneapi/dnnl/dnnl.hpp>
#include <string>

#include "convparity_plugin.h"
#include "onednn_runner.h"

namespace convparity_onednn {
namespace {

// The variants after the plugin itself (convparity_problem.variant 1, 2, …): oneDNN's 2nd … 12th
// choice, then the Winograd algorithm. oneDNN 2.6 offers up to nine implementations of one
// convolution on x86-64 with AVX-512 (a 1×1 one: brgemm 1×1, jit 1×1 and jit for three ISAs each,
// gemm, reference); the spare ones cost a decline each.
const char* const kVariantNames[] = {"2", "3", "4",  "5",  "6",  "7",
                                     "8", "9", "10", "11", "12", "winograd"};
constexpr int kVariantCount = sizeof kVariantNames / sizeof kVariantNames[0];
constexpr int kWinogradVariant = kVariantCount;

// What the last call said, for last_message and describe_last_run (convparity calls a plugin from
// one thread at a time; thread-local all the same, as the ABI describes it).
thread_local std::string g_message;
thread_local std::string g_implementation;
thread_local bool g_inexact = false;

Choice ChoiceOf(const convparity_problem* p) {
  const int variant = CONVPARITY_PROBLEM_HAS(p, variant) ? p->variant : 0;
  if (variant == kWinogradVariant) return {true, 0};
  return {false, variant};  // 0 → oneDNN's first choice, 1 → its second, …
}

int Finish(const Outcome& outcome) {
  g_message = outcome.message;
  g_implementation = outcome.implementation;
  g_inexact = outcome.inexact;
  return outcome.code;
}

int Forward(const convparity_problem* p, const float* input, const float* weight, const float* bias,
            float* output) {
  Buffers b;
  b.src = input;
  b.weights = weight;
  b.bias = p->has_bias ? bias : nullptr;
  b.result = output;
  return Finish(Run(*p, Direction::kForward, ChoiceOf(p), b));
}

int BackwardData(const convparity_problem* p, const float* grad_output, const float* weight,
                 float* grad_input) {
  Buffers b;
  b.diff_dst = grad_output;
  b.weights = weight;
  b.result = grad_input;
  return Finish(Run(*p, Direction::kBackwardData, ChoiceOf(p), b));
}

int BackwardWeight(const convparity_problem* p, const float* input, const float* grad_output,
                   float* grad_weight) {
  Buffers b;
  b.src = input;
  b.diff_dst = grad_output;
  b.result = grad_weight;
  return Finish(Run(*p, Direction::kBackwardWeight, ChoiceOf(p), b));
}

const char* LastMessage() { return g_message.c_str(); }

void DescribeLastRun(convparity_run_notes* notes) {
  notes->inexact = g_inexact ? 1 : 0;
  notes->implementation = g_implementation.c_str();
}

// "oneDNN 2.6.3": the version of the library actually loaded, not of the headers.
const char* Name() {
  static char name[64];
  const dnnl_version_t* v = dnnl_version();
  std::snprintf(name, sizeof name, "oneDNN %d.%d.%d", v->major, v->minor, v->patch);
  return name;
}

}  // namespace
}  // namespace convparity_onednn

namespace convparity_onednn {
namespace {

// "null" for every variant: nothing declared.
const char* const* NothingDeclaredOfVariants() {
  static const std::array<const char*, kVariantCount> none = [] {
    std::array<const char*, kVariantCount> a;
    a.fill("null");
    return a;
  }();
  return none.data();
}

}  // namespace
}  // namespace convparity_onednn

CONVPARITY_PLUGIN_EXPORT const convparity_plugin* convparity_plugin_entry(void) {
  using namespace convparity_onednn;
  static const convparity_plugin plugin = {
      CONVPARITY_PLUGIN_ABI_VERSION,
      Name(),
      CONVPARITY_ALL_DIRECTIONS,
      Forward,
      BackwardData,
      BackwardWeight,
      LastMessage,
      kVariantCount,
      kVariantNames,
      DescribeLastRun,
      // Every direction, but an output_padding that needs oneDNN's end padding below -(stride - 1)
      // (onednn_mapping.cc). A variant also declines where its library has no k-th (or Winograd)
      // implementation, which only the library can say: variants declare nothing.
      R"([{"output_padding": "below_stride_plus_end_pad"}])",
      NothingDeclaredOfVariants(),
  };
  return &plugin;
}
