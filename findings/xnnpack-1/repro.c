/* XNNPACK (Debian 12 libxnnpack-dev 0.0~git20220216.ae108ef-2): xnn_setup_deconvolution2d_nhwc_f32
 * crashes when the deconvolution's output is narrower than stride - 1 (possible only with padding).
 *
 * The problem, in PyTorch's terms: conv_transpose2d of a 1x1x1x2 input with a 1x1x1x4 weight,
 * stride (1, 3), padding (0, 3): output width (2 - 1) * 3 + 4 - 3 - 3 = 1, a single element,
 * y = x[0] * w[3] + x[1] * w[0]. XNNPACK takes its stride-3 "subconvolution" path and computes the
 * width of each of the 3 column phases as ceil((output_width - start) / stride) with start up to 2:
 * for start 2 the unsigned subtraction 1 - 2 wraps around.
 *
 *   cc -O2 repro.c -lXNNPACK -o repro && ./repro
 *
 * Prints the library's answer against a plain loop's and exits 1 when they differ; on this version
 * it dies of SIGSEGV inside xnn_setup_deconvolution2d_nhwc_f32 instead.
 */
#include <math.h>
#include <stdio.h>
#include <xnnpack.h>

enum { kInW = 2, kKernelW = 4, kStrideW = 3, kPadL = 3, kPadR = 3 };

int main(void) {
  /* XNN_EXTRA_BYTES of slack after the input, as xnnpack.h asks. */
  float input[kInW + 16] = {2.0f, 3.0f};                              /* NHWC, N = H = C = 1 */
  const float weight[kKernelW] = {5.0f, 7.0f, 11.0f, 13.0f};          /* OHWI, O = I = H = 1 */
  const int out_w = (kInW - 1) * kStrideW + kKernelW - kPadL - kPadR; /* 1 */
  float output[8] = {NAN, NAN, NAN, NAN, NAN, NAN, NAN, NAN};

  /* The reference: every input element scatters its kernel taps; out[o] for o = i*s - pad + k. */
  float expected[8] = {0};
  for (int i = 0; i < kInW; ++i)
    for (int k = 0; k < kKernelW; ++k) {
      const int o = i * kStrideW - kPadL + k;
      if (o >= 0 && o < out_w) expected[o] += input[i] * weight[k];
    }

  if (xnn_initialize(NULL) != xnn_status_success) return 2;
  xnn_operator_t op = NULL;
  enum xnn_status s = xnn_create_deconvolution2d_nhwc_f32(
      /*output_padding_top=*/0, kPadR, /*bottom=*/0, kPadL, /*kernel=*/1, kKernelW,
      /*stride=*/1, kStrideW, /*dilation=*/1, 1, /*groups=*/1, /*group_input_channels=*/1,
      /*group_output_channels=*/1, /*input_pixel_stride=*/1, /*output_pixel_stride=*/1, weight,
      /*bias=*/NULL, -INFINITY, INFINITY, /*flags=*/0, &op);
  printf("create: status %d\n", (int)s);
  if (s != xnn_status_success) return 2;
  printf("setup: batch 1, input 1x%d, output 1x%d expected ...\n", kInW, out_w);
  fflush(stdout);
  s = xnn_setup_deconvolution2d_nhwc_f32(op, 1, 1, kInW, 0, 0, input, output, NULL);
  printf("setup: status %d\n", (int)s);
  if (s != xnn_status_success) return 2;
  s = xnn_run_operator(op, NULL);
  if (s != xnn_status_success) return 2;
  xnn_delete_operator(op);

  int wrong = 0;
  for (int o = 0; o < out_w; ++o) {
    printf("y[%d]: XNNPACK %g, reference %g\n", o, output[o], expected[o]);
    wrong += !(output[o] == expected[o]);
  }
  printf(wrong ? "DISCREPANCY\n" : "agrees\n");
  return wrong ? 1 : 0;
}
