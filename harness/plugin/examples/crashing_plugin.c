/* A plugin that dies or hangs on some configurations and is correct on all others, for testing
 * convparity's worker isolation: a campaign must record a crashed or hung verdict and go on.
 * NEVER call its bad configurations in the harness's own process.
 *
 * The configurations, in every direction (the first that applies wins):
 *   groups > 1               writes through a null pointer: SIGSEGV
 *   some stride == 3         spins forever: hung (until the worker's timeout)
 *   some dilation == 3       calls abort(): SIGABRT
 *   anything else            the correct naive convolution (naive_conv.h) */
#include <stdlib.h>

#include "convparity_plugin.h"
#include "naive_conv.h"

static int has_value(const int64_t* values, int rank, int64_t v) {
  int i;
  for (i = 0; i < rank; ++i)
    if (values[i] == v) return 1;
  return 0;
}

/* Misbehaves when the problem says so; returns only for the well-behaved ones. */
static void misbehave_on(const convparity_problem* p) {
  if (p->groups > 1) {
    /* Both volatile: the pointer so the compiler cannot prove it null, the target so the store is
     * not dropped (a store through null is undefined, and gcc removes a plain one). */
    volatile int* volatile nowhere = NULL;
    *nowhere = 1;
  }
  if (has_value(p->stride, p->rank, 3)) {
    volatile unsigned long spins = 0;
    for (;;) ++spins;
  }
  if (has_value(p->dilation, p->rank, 3)) abort();
}

static int crashing_forward(const convparity_problem* p, const float* input, const float* weight,
                            const float* bias, float* output) {
  misbehave_on(p);
  return naive_forward(p, input, weight, bias, output);
}

static int crashing_backward_data(const convparity_problem* p, const float* grad_output,
                                  const float* weight, float* grad_input) {
  misbehave_on(p);
  return naive_backward_data(p, grad_output, weight, grad_input);
}

static int crashing_backward_weight(const convparity_problem* p, const float* input,
                                    const float* grad_output, float* grad_weight) {
  misbehave_on(p);
  return naive_backward_weight(p, input, grad_output, grad_weight);
}

static const convparity_plugin kPlugin = {
    CONVPARITY_PLUGIN_ABI_VERSION,
    "crashing: SIGSEGV on groups > 1, hangs on stride 3, SIGABRT on dilation 3",
    CONVPARITY_ALL_DIRECTIONS,
    crashing_forward,
    crashing_backward_data,
    crashing_backward_weight,
    NULL,
};

CONVPARITY_PLUGIN_EXPORT const convparity_plugin* convparity_plugin_entry(void) { return &kPlugin; }
