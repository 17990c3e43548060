/* XNNPACK (Debian 12 libxnnpack-dev 0.0~git20220216.ae108ef-2): xnn_create_convolution2d_nchw_f32
 * with XNN_FLAG_INPUT_NHWC accepts any number of input channels, but the only kernel behind that
 * flag (3x3, stride 2, padding 1, "hwc2chw") is written for exactly 3 input channels. With 4 the
 * operator is created, runs, and returns wrong values (it reads the input as if it had 3 channels,
 * and past its end).
 *
 *   cc -O2 repro.c -lXNNPACK -o repro && ./repro
 *
 * Compares the operator's output with a plain loop; exits 1 when they differ.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <xnnpack.h>

enum { kC = 4, kK = 4, kH = 7, kW = 7, kOH = 4, kOW = 4 }; /* 3x3 kernel, stride 2, padding 1 */

int main(void) {
  static float input[kH * kW * kC + 16]; /* NHWC, batch 1, with XNN_EXTRA_BYTES of slack */
  static float weight[kK * 3 * 3 * kC];  /* OHWI */
  static float bias[kK];
  static float output[kK * kOH * kOW]; /* NCHW */
  static float expected[kK * kOH * kOW];
  /* Small integers: every sum is exact in float32, so any difference is an error. */
  for (int i = 0; i < kH * kW * kC; ++i) input[i] = (float)(i % 7 - 3);
  for (int i = 0; i < kK * 9 * kC; ++i) weight[i] = (float)(i % 5 - 2);
  for (int i = 0; i < kK * kOH * kOW; ++i) output[i] = NAN;

  for (int k = 0; k < kK; ++k)
    for (int oy = 0; oy < kOH; ++oy)
      for (int ox = 0; ox < kOW; ++ox) {
        float sum = bias[k];
        for (int ky = 0; ky < 3; ++ky)
          for (int kx = 0; kx < 3; ++kx) {
            const int iy = oy * 2 - 1 + ky, ix = ox * 2 - 1 + kx;
            if (iy < 0 || iy >= kH || ix < 0 || ix >= kW) continue;
            for (int c = 0; c < kC; ++c)
              sum += input[(iy * kW + ix) * kC + c] * weight[((k * 3 + ky) * 3 + kx) * kC + c];
          }
        expected[(k * kOH + oy) * kOW + ox] = sum;
      }

  if (xnn_initialize(NULL) != xnn_status_success) return 2;
  xnn_operator_t op = NULL;
  enum xnn_status s = xnn_create_convolution2d_nchw_f32(
      /*padding top, right, bottom, left=*/1, 1, 1, 1, /*kernel=*/3, 3, /*subsampling=*/2, 2,
      /*dilation=*/1, 1, /*groups=*/1, /*group_input_channels=*/kC, /*group_output_channels=*/kK,
      /*input_channel_stride=*/kC, /*output_channel_stride=*/kK, weight, bias, -INFINITY, INFINITY,
      XNN_FLAG_INPUT_NHWC, &op);
  printf("create with %d input channels: status %d (0 = success)\n", kC, (int)s);
  if (s != xnn_status_success) return 2;
  s = xnn_setup_convolution2d_nchw_f32(op, 1, kH, kW, input, output, NULL);
  if (s != xnn_status_success) return 2;
  if (xnn_run_operator(op, NULL) != xnn_status_success) return 2;
  xnn_delete_operator(op);

  int wrong = 0;
  for (int i = 0; i < kK * kOH * kOW; ++i) {
    if (output[i] == expected[i]) continue;
    if (wrong++ < 5)
      printf("y[k=%d, y=%d, x=%d]: XNNPACK %g, reference %g\n", i / (kOH * kOW), i / kOW % kOH,
             i % kOW, output[i], expected[i]);
  }
  printf("%d of %d outputs differ\n", wrong, kK * kOH * kOW);
  printf(wrong ? "DISCREPANCY\n" : "agrees\n");
  return wrong ? 1 : 0;
}
