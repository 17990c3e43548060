/* A buffer plugin that records the spelling convparity_problem carries, for the tests of the field
 * (tests/harness/plugin/plugin_abi4_test.cc). It computes the naive convolution of naive_conv.h in
 * every direction and names what it received as its implementation (describe_last_run):
 * "spelling [<text>]" ("spelling []" for the plain spelling), "spelling NULL", or "no spelling
 * field" when CONVPARITY_PROBLEM_HAS says the calling convparity does not fill it. The text is
 * copied during the call: the string is valid for the call only. */
#include <stdio.h>

#include "convparity_plugin.h"
#include "examples/naive_conv.h"

static char g_received[256];

static void record(const convparity_problem* p) {
  if (!CONVPARITY_PROBLEM_HAS(p, spelling))
    snprintf(g_received, sizeof g_received, "no spelling field");
  else if (p->spelling == NULL)
    snprintf(g_received, sizeof g_received, "spelling NULL");
  else
    snprintf(g_received, sizeof g_received, "spelling [%s]", p->spelling);
}

static int forward(const convparity_problem* p, const float* input, const float* weight,
                   const float* bias, float* output) {
  record(p);
  return naive_forward(p, input, weight, bias, output);
}

static int backward_data(const convparity_problem* p, const float* grad_output, const float* weight,
                         float* grad_input) {
  record(p);
  return naive_backward_data(p, grad_output, weight, grad_input);
}

static int backward_weight(const convparity_problem* p, const float* input,
                           const float* grad_output, float* grad_weight) {
  record(p);
  return naive_backward_weight(p, input, grad_output, grad_weight);
}

static void describe_last_run(convparity_run_notes* notes) { notes->implementation = g_received; }

static const convparity_plugin kPlugin = {
    CONVPARITY_PLUGIN_ABI_VERSION,
    "spelling: naive convolution that names the spelling it received",
    CONVPARITY_ALL_DIRECTIONS,
    forward,
    backward_data,
    backward_weight,
    NULL,
    0,
    NULL,
    describe_last_run,
};

CONVPARITY_PLUGIN_EXPORT const convparity_plugin* convparity_plugin_entry(void) { return &kPlugin; }
