/* A library of planted bugs, one ABI-2 variant per class of bug a campaign must triage
 * (issue 16), kept apart from the project's own kernels. The plugin itself (no variant) is the
 * correct naive convolution of naive_conv.h; each variant breaks it in one way, in every direction.
 *
 * - everywhere: every result element is one too large, on every case.
 * - narrow: one too large only for a grouped problem whose first spatial dimension has kernel 3
 *   and stride 2.
 * - crash: stores through NULL when a group has 3 input channels and the first spatial dimension a
 *   stride of 2 or more.
 * - heap-overflow: writes 8 bytes past a 32-byte heap block it frees at once, when the first
 *   spatial dimension has kernel 2 and stride 2 and the problem has a bias. The bytes are within
 *   glibc's rounding of the block, so the plain malloc never notices; under MALLOC_CHECK_=3
 *   (--malloc-check) the free aborts that very case.
 * - hang: spins forever when the last spatial dimension has dilation 3 and kernel 2.
 * - unwritten: leaves the last result element unwritten when the batch is 2 or more.
 * - large-kernel: one too large when any kernel size exceeds 16 (public bugs showed only beyond 16
 *   taps).
 * - slow: no bug: correct, but it first burns 1.5 s of CPU time on a problem of 1,000,000
 *   multiply-adds or more, as a slow reference kernel or an interpreter does on a large case. A
 *   time limit must tell it from a hang (issue 24).
 * - bf16-accumulator: sums in bfloat16: every partial sum is rounded to bfloat16 (to nearest,
 *   ties to even). Wrong on every case of a random fill; on an exact fill only where a partial sum
 *   leaves bfloat16's integers (beyond 256), i.e. wherever the reduction is long enough, whatever
 *   the problem's features: one cause that many different minimal cases show.
 * - two-bugs: the bfloat16 accumulator, and one too large when the first spatial dimension has a
 *   stride of 2 or more: two causes in one kernel.
 *
 * Each condition holds on the plainest problem that has its feature, so a 1-minimal case shows it
 * plainly: that is what the triage tests assert (tests/harness/engine/triage_test.cc). */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "convparity_plugin.h"

/* Whether the current call sums in bfloat16 (run() sets it for each call; a plugin's calls come
 * one at a time). */
static int g_sum_in_bfloat16;

/* `x` rounded to the nearest bfloat16, ties to even: float32 with its low 16 bits rounded off. */
static float to_bfloat16(float x) {
  uint32_t bits;
  memcpy(&bits, &x, sizeof bits);
  if ((bits & 0x7F800000u) != 0x7F800000u) { /* infinity and NaN stay as they are */
    bits += 0x7FFFu + ((bits >> 16) & 1u);
    bits &= 0xFFFF0000u;
  }
  memcpy(&x, &bits, sizeof x);
  return x;
}

static float planted_add(float sum, float term) {
  return g_sum_in_bfloat16 ? to_bfloat16(sum + term) : sum + term;
}

#define NAIVE_ADD(sum, term) planted_add((sum), (term))
#include "examples/naive_conv.h"

enum {
  CORRECT = 0,
  EVERYWHERE,
  NARROW,
  CRASH,
  HEAP_OVERFLOW,
  HANG,
  UNWRITTEN,
  LARGE_KERNEL,
  SLOW,
  BF16_ACCUMULATOR,
  TWO_BUGS,
};

static const char* const kVariantNames[] = {
    "everywhere", "narrow",      "crash", "heap-overflow",    "hang",
    "unwritten",  "large-kernel", "slow", "bf16-accumulator", "two-bugs"};

static volatile int64_t g_spin;

static int64_t count_of(int64_t a, int64_t b, const int64_t* sizes, int rank) {
  int64_t n = a * b;
  int i;
  for (i = 0; i < rank; ++i) n *= sizes[i];
  return n;
}

static int any_kernel_above(const convparity_problem* p, int64_t k) {
  int i;
  for (i = 0; i < p->rank; ++i)
    if (p->kernel[i] > k) return 1;
  return 0;
}

/* Whether the variant's wrong-value condition holds; the other variants act in run(). */
static int off_by_one(const convparity_problem* p) {
  switch (p->variant) {
    case EVERYWHERE:
      return 1;
    case NARROW:
      return p->groups > 1 && p->kernel[0] == 3 && p->stride[0] == 2;
    case LARGE_KERNEL:
      return any_kernel_above(p, 16);
    case TWO_BUGS:
      return p->stride[0] >= 2;
    default:
      return 0;
  }
}

/* One direction's naive computation: two inputs, forward's bias, the result. */
typedef int (*compute_fn)(const convparity_problem* p, const float* a, const float* b,
                          const float* bias, float* out);

static int forward(const convparity_problem* p, const float* a, const float* b, const float* bias,
                   float* out) {
  return naive_forward(p, a, b, bias, out);
}
static int backward_data(const convparity_problem* p, const float* a, const float* b,
                         const float* bias, float* out) {
  return naive_backward_data(p, a, b, out);
}
static int backward_weight(const convparity_problem* p, const float* a, const float* b,
                           const float* bias, float* out) {
  return naive_backward_weight(p, a, b, out);
}

/* The problem's multiply-adds: every output element of every output channel reduces over the
 * input channels of its group and the kernel's taps (a transposed problem: the same, swapped). */
static int64_t macs_of(const convparity_problem* p) {
  const int64_t* spatial = p->transposed ? p->input : p->output;
  const int64_t channels = p->transposed ? p->in_channels : p->out_channels;
  const int64_t per_group = (p->transposed ? p->out_channels : p->in_channels) / p->groups;
  return count_of(p->batch, channels, spatial, p->rank) *
         count_of(per_group, 1, p->kernel, p->rank);
}

static void burn_cpu_seconds(double seconds) {
  const clock_t start = clock();
  while ((double)(clock() - start) < seconds * CLOCKS_PER_SEC) ++g_spin;
}

/* Runs `compute` into `out` (n elements), then plants the variant's bug. */
static int run(const convparity_problem* p, compute_fn compute, const float* a, const float* b,
               const float* bias, float* out, int64_t n) {
  int64_t i;
  g_sum_in_bfloat16 = p->variant == BF16_ACCUMULATOR || p->variant == TWO_BUGS;
  if (p->variant == CRASH && p->in_channels / p->groups == 3 && p->stride[0] >= 2)
    *(volatile int*)0 = 1;
  if (p->variant == HANG && p->dilation[p->rank - 1] == 3 && p->kernel[p->rank - 1] == 2)
    for (;;) ++g_spin;
  if (p->variant == SLOW && macs_of(p) >= 1000000) burn_cpu_seconds(1.5);
  if (p->variant == HEAP_OVERFLOW && p->kernel[0] == 2 && p->stride[0] == 2 && p->has_bias) {
    volatile char* block = (volatile char*)malloc(32);
    if (block != NULL) {
      for (i = 0; i < 32 + 8; ++i) block[i] = (char)0xA5;
      free((void*)block);
    }
  }
  if (p->variant == UNWRITTEN && p->batch >= 2 && n > 0) {
    float* scratch = (float*)malloc((size_t)n * sizeof(float));
    int rc;
    if (scratch == NULL) return CONVPARITY_ERROR;
    rc = compute(p, a, b, bias, scratch);
    memcpy(out, scratch, (size_t)(n - 1) * sizeof(float));
    free(scratch);
    return rc;
  }
  if (compute(p, a, b, bias, out) != CONVPARITY_OK) return CONVPARITY_ERROR;
  if (off_by_one(p))
    for (i = 0; i < n; ++i) out[i] += 1.0f;
  return CONVPARITY_OK;
}

static int planted_forward(const convparity_problem* p, const float* input, const float* weight,
                           const float* bias, float* output) {
  return run(p, forward, input, weight, bias, output,
             count_of(p->batch, p->out_channels, p->output, p->rank));
}

static int planted_backward_data(const convparity_problem* p, const float* grad_output,
                                 const float* weight, float* grad_input) {
  return run(p, backward_data, grad_output, weight, NULL, grad_input,
             count_of(p->batch, p->in_channels, p->input, p->rank));
}

static int planted_backward_weight(const convparity_problem* p, const float* input,
                                   const float* grad_output, float* grad_weight) {
  return run(
      p, backward_weight, input, grad_output, NULL, grad_weight,
      count_of(p->transposed ? p->in_channels : p->out_channels,
               (p->transposed ? p->out_channels : p->in_channels) / p->groups, p->kernel, p->rank));
}

static const convparity_plugin kPlugin = {
    CONVPARITY_PLUGIN_ABI_VERSION,
    "planted: the naive convolution, and one planted bug per variant",
    CONVPARITY_ALL_DIRECTIONS,
    planted_forward,
    planted_backward_data,
    planted_backward_weight,
    NULL,
    (int32_t)(sizeof kVariantNames / sizeof kVariantNames[0]),
    kVariantNames,
    NULL,
};

CONVPARITY_PLUGIN_EXPORT const convparity_plugin* convparity_plugin_entry(void) { return &kPlugin; }
