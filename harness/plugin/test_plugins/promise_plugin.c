/* A correct plugin (the naive convolution of examples/naive_conv.h) that breaks what it declares,
 * for the tests of declarations kept (tests/harness/plugin/promise_test.cc). Built once per kind
 * with -DPROMISE_PLUGIN_<KIND>:
 *   COMPUTES_OUTSIDE  declares ranks 1 and 2 in every direction, and computes rank 3 too: the
 *                     check it declares is missing
 *   DECLINES_INSIDE   declares every case, and declines transposed ones: a check too strict
 *   KEEPS             declares ranks 1 and 2, and declines rank 3: its word kept */
#include "convparity_plugin.h"
#include "examples/naive_conv.h"

#if defined(PROMISE_PLUGIN_DECLINES_INSIDE)
#define PROMISE_DECLARATION "[{}]"
#define PROMISE_DECLINES(p) ((p)->transposed != 0)
#elif defined(PROMISE_PLUGIN_COMPUTES_OUTSIDE)
#define PROMISE_DECLARATION "[{\"ranks\": [1, 2]}]"
#define PROMISE_DECLINES(p) 0
#else
#define PROMISE_DECLARATION "[{\"ranks\": [1, 2]}]"
#define PROMISE_DECLINES(p) ((p)->rank == 3)
#endif

static int forward(const convparity_problem* p, const float* input, const float* weight,
                   const float* bias, float* output) {
  if (PROMISE_DECLINES(p)) return CONVPARITY_UNSUPPORTED;
  return naive_forward(p, input, weight, bias, output);
}

static int backward_data(const convparity_problem* p, const float* grad_output, const float* weight,
                         float* grad_input) {
  if (PROMISE_DECLINES(p)) return CONVPARITY_UNSUPPORTED;
  return naive_backward_data(p, grad_output, weight, grad_input);
}

static int backward_weight(const convparity_problem* p, const float* input,
                           const float* grad_output, float* grad_weight) {
  if (PROMISE_DECLINES(p)) return CONVPARITY_UNSUPPORTED;
  return naive_backward_weight(p, input, grad_output, grad_weight);
}

static const char* message(void) { return "declined by the test plugin's own rule"; }

static const convparity_plugin kPlugin = {
    CONVPARITY_PLUGIN_ABI_VERSION,
    "promise",
    CONVPARITY_ALL_DIRECTIONS,
    forward,
    backward_data,
    backward_weight,
    message,
    0,
    NULL,
    NULL,
    PROMISE_DECLARATION,
    NULL,
};

CONVPARITY_PLUGIN_EXPORT const convparity_plugin* convparity_plugin_entry(void) { return &kPlugin; }
