/* An ABI-2 plugin that says its results are inexact, for the tests of inexact judging
 * (tests/harness/plugin/plugin_abi2_test.cc). It computes the naive convolution of naive_conv.h and
 * then perturbs every element i of the result by an amount tied to A_i, the same operation on
 * absolute values (the magnitude of convparity's error bound c*u*sqrt(K)*A_i, c = 4, u = 2^-24):
 *
 *   the plugin itself   +1.5*u*A_i on every element, flagged inexact: within the bound for every
 *                       K >= 1 (bound use <= 0.625 after rounding), yet never bitwise exact where
 *                       A_i > 0 (the step exceeds half an ulp of the result)
 *   variant "beyond"    the same, plus 1e-3*A_i + 0.5 on the first element, flagged inexact: a real
 *                       error hidden in an inexact result, over the bound while sqrt(K) < 4000
 *   variant "unflagged" the plugin itself without the flag: exact fills must compare it bitwise
 *
 * Every run names its implementation ("noise-within" or "noise-beyond"). */
#include <math.h>
#include <stdlib.h>

#include "convparity_plugin.h"
#include "examples/naive_conv.h"

enum { VARIANT_WITHIN = 0, VARIANT_BEYOND = 1, VARIANT_UNFLAGGED = 2 };

static const char* const kVariantNames[] = {"beyond", "unflagged"};

static int g_last_variant = VARIANT_WITHIN;

static int64_t count_of(int64_t a, int64_t b, const int64_t* sizes, int rank) {
  int64_t n = a * b;
  int i;
  for (i = 0; i < rank; ++i) n *= sizes[i];
  return n;
}

static int64_t input_elements(const convparity_problem* p) {
  return count_of(p->batch, p->in_channels, p->input, p->rank);
}
static int64_t output_elements(const convparity_problem* p) {
  return count_of(p->batch, p->out_channels, p->output, p->rank);
}
static int64_t weight_elements(const convparity_problem* p) {
  return count_of(p->transposed ? p->in_channels : p->out_channels,
                  (p->transposed ? p->out_channels : p->in_channels) / p->groups, p->kernel,
                  p->rank);
}

static float* absolute_copy(const float* t, int64_t n) {
  float* copy;
  int64_t i;
  if (t == NULL) return NULL;
  copy = (float*)malloc((size_t)(n > 0 ? n : 1) * sizeof(float));
  if (copy != NULL)
    for (i = 0; i < n; ++i) copy[i] = fabsf(t[i]);
  return copy;
}

/* Perturbs `result` by the variant's noise, `magnitude` holding A. */
static void perturb(const convparity_problem* p, float* result, const float* magnitude, int64_t n) {
  const double u = 1.0 / 16777216.0;
  int64_t i;
  for (i = 0; i < n; ++i) result[i] = (float)(result[i] + 1.5 * u * magnitude[i]);
  if (p->variant == VARIANT_BEYOND && n > 0)
    result[0] = (float)(result[0] + 1e-3 * magnitude[0] + 0.5);
  g_last_variant = p->variant;
}

static int noisy_forward(const convparity_problem* p, const float* input, const float* weight,
                         const float* bias, float* output) {
  const int64_t n = output_elements(p);
  float *ax = absolute_copy(input, input_elements(p)),
        *aw = absolute_copy(weight, weight_elements(p));
  float *ab = p->has_bias ? absolute_copy(bias, p->out_channels) : NULL, *a;
  a = (float*)malloc((size_t)(n > 0 ? n : 1) * sizeof(float));
  if (ax == NULL || aw == NULL || a == NULL || (p->has_bias && ab == NULL)) {
    free(ax), free(aw), free(ab), free(a);
    return CONVPARITY_ERROR;
  }
  naive_forward(p, input, weight, bias, output);
  naive_forward(p, ax, aw, ab, a);
  perturb(p, output, a, n);
  free(ax), free(aw), free(ab), free(a);
  return CONVPARITY_OK;
}

static int noisy_backward_data(const convparity_problem* p, const float* grad_output,
                               const float* weight, float* grad_input) {
  const int64_t n = input_elements(p);
  float* ady = absolute_copy(grad_output, output_elements(p));
  float *aw = absolute_copy(weight, weight_elements(p)), *a;
  a = (float*)malloc((size_t)(n > 0 ? n : 1) * sizeof(float));
  if (ady == NULL || aw == NULL || a == NULL) {
    free(ady), free(aw), free(a);
    return CONVPARITY_ERROR;
  }
  naive_backward_data(p, grad_output, weight, grad_input);
  naive_backward_data(p, ady, aw, a);
  perturb(p, grad_input, a, n);
  free(ady), free(aw), free(a);
  return CONVPARITY_OK;
}

static int noisy_backward_weight(const convparity_problem* p, const float* input,
                                 const float* grad_output, float* grad_weight) {
  const int64_t n = weight_elements(p);
  float* ax = absolute_copy(input, input_elements(p));
  float *ady = absolute_copy(grad_output, output_elements(p)), *a;
  a = (float*)malloc((size_t)(n > 0 ? n : 1) * sizeof(float));
  if (ax == NULL || ady == NULL || a == NULL) {
    free(ax), free(ady), free(a);
    return CONVPARITY_ERROR;
  }
  naive_backward_weight(p, input, grad_output, grad_weight);
  naive_backward_weight(p, ax, ady, a);
  perturb(p, grad_weight, a, n);
  free(ax), free(ady), free(a);
  return CONVPARITY_OK;
}

static void describe_last_run(convparity_run_notes* notes) {
  notes->inexact = g_last_variant != VARIANT_UNFLAGGED;
  notes->implementation = g_last_variant == VARIANT_BEYOND ? "noise-beyond" : "noise-within";
}

static const convparity_plugin kPlugin = {
    CONVPARITY_PLUGIN_ABI_VERSION,
    "inexact: naive convolution plus noise tied to the error bound",
    CONVPARITY_ALL_DIRECTIONS,
    noisy_forward,
    noisy_backward_data,
    noisy_backward_weight,
    NULL,
    2,
    kVariantNames,
    describe_last_run,
};

CONVPARITY_PLUGIN_EXPORT const convparity_plugin* convparity_plugin_entry(void) { return &kPlugin; }
