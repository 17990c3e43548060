/* A naive direct convolution in plain C99, written from the definitions in convparity_plugin.h:
 * all three directions, ordinary and transposed, 1-3 spatial dimensions, groups, stride, dilation,
 * asymmetric padding, output_padding and bias. It is the body of the example plugins; it favours
 * being obviously right over being fast.
 *
 * One relation serves all six operations. An ordinary convolution connects a "large" side X (its
 * input) with a "small" side Y (its output): X[n, cx, o*stride - pad_begin + k*dilation] meets
 * Y[n, cy, o] through W[cy, cx mod (Cx/groups), k], for every output position o and kernel tap k
 * whose X position is inside X. A transposed convolution is the same relation with the roles of its
 * tensors swapped: its input is Y, its output is X, and PyTorch's transposed weight
 * (C_in, C_out/groups, k...) is again (Cy, Cx/groups, k...). Each operation sums over it:
 *   ordinary forward,  transposed backward-data:  Y += X * W
 *   ordinary backward-data, transposed forward:   X += Y * W
 *   backward-weight (both):                       W += X * Y
 * pad_end and output_padding need no code of their own: they only set the size of X.
 *
 * Unused spatial dimensions (beyond rank) are treated as size 1, so every loop is 3-D. */
#ifndef CONVPARITY_EXAMPLES_NAIVE_CONV_H_
#define CONVPARITY_EXAMPLES_NAIVE_CONV_H_

#include <stdint.h>

#include "convparity_plugin.h"

/* The relation's geometry, in three spatial dimensions. */
typedef struct {
  int64_t batch, groups;
  int64_t cx, cy;               /* channels of X and Y */
  int64_t x_size[3], y_size[3]; /* spatial sizes of X and Y */
  int64_t kernel[3], stride[3], pad[3], dilation[3]; /* pad = pad_begin */
} naive_geometry;

static naive_geometry naive_geometry_of(const convparity_problem* p) {
  naive_geometry g;
  int i;
  g.batch = p->batch;
  g.groups = p->groups;
  g.cx = p->transposed ? p->out_channels : p->in_channels;
  g.cy = p->transposed ? p->in_channels : p->out_channels;
  for (i = 0; i < 3; ++i) {
    const int used = i < p->rank;
    const int64_t in = used ? p->input[i] : 1, out = used ? p->output[i] : 1;
    g.x_size[i] = p->transposed ? out : in;
    g.y_size[i] = p->transposed ? in : out;
    g.kernel[i] = used ? p->kernel[i] : 1;
    g.stride[i] = used ? p->stride[i] : 1;
    g.pad[i] = used ? p->pad_begin[i] : 0;
    g.dilation[i] = used ? p->dilation[i] : 1;
  }
  return g;
}

/* Offset of element (n, c, pos[0], pos[1], pos[2]) of a contiguous (N, C, s0, s1, s2) tensor; the
 * weight (Cy, Cx/groups, k0, k1, k2) uses it too, with n = cy. */
static int64_t naive_offset(int64_t channels, const int64_t size[3], int64_t n, int64_t c,
                            const int64_t pos[3]) {
  return (((n * channels + c) * size[0] + pos[0]) * size[1] + pos[1]) * size[2] + pos[2];
}

typedef enum { NAIVE_SUM_INTO_Y, NAIVE_SUM_INTO_X, NAIVE_SUM_INTO_W } naive_target;

/* How a term joins its sum. A plugin that plants a bug in the summing (tests/planted) defines
 * NAIVE_ADD(sum, term) before it includes this file. */
#ifndef NAIVE_ADD
#define NAIVE_ADD(sum, term) ((sum) + (term))
#endif

/* Adds every term of the relation into `out` (which holds X, Y or W by `target`); the other two
 * tensors are read. `out` must have been initialized (zero or bias). */
static void naive_sum(const naive_geometry* g, naive_target target, const float* x, const float* y,
                      const float* w, float* out) {
  const int64_t cx_per_group = g->cx / g->groups, cy_per_group = g->cy / g->groups;
  int64_t n, grp, cyl, cxl, o[3], k[3], xi[3];
  for (n = 0; n < g->batch; ++n)
    for (grp = 0; grp < g->groups; ++grp)
      for (cyl = 0; cyl < cy_per_group; ++cyl)
        for (cxl = 0; cxl < cx_per_group; ++cxl) {
          const int64_t cy = grp * cy_per_group + cyl, cx = grp * cx_per_group + cxl;
          for (o[0] = 0; o[0] < g->y_size[0]; ++o[0])
            for (o[1] = 0; o[1] < g->y_size[1]; ++o[1])
              for (o[2] = 0; o[2] < g->y_size[2]; ++o[2])
                for (k[0] = 0; k[0] < g->kernel[0]; ++k[0])
                  for (k[1] = 0; k[1] < g->kernel[1]; ++k[1])
                    for (k[2] = 0; k[2] < g->kernel[2]; ++k[2]) {
                      int64_t xo, yo, wo;
                      int d, inside = 1;
                      for (d = 0; d < 3; ++d) {
                        xi[d] = o[d] * g->stride[d] - g->pad[d] + k[d] * g->dilation[d];
                        inside = inside && xi[d] >= 0 && xi[d] < g->x_size[d];
                      }
                      if (!inside) continue; /* the tap reads padding: a zero term */
                      xo = naive_offset(g->cx, g->x_size, n, cx, xi);
                      yo = naive_offset(g->cy, g->y_size, n, cy, o);
                      wo = naive_offset(cx_per_group, g->kernel, cy, cxl, k);
                      switch (target) {
                        case NAIVE_SUM_INTO_Y: out[yo] = NAIVE_ADD(out[yo], x[xo] * w[wo]); break;
                        case NAIVE_SUM_INTO_X: out[xo] = NAIVE_ADD(out[xo], y[yo] * w[wo]); break;
                        case NAIVE_SUM_INTO_W: out[wo] = NAIVE_ADD(out[wo], x[xo] * y[yo]); break;
                      }
                    }
        }
}

/* Sets every element of a (batch, channels, size...) tensor to bias[c], or to 0 without bias. */
static void naive_init(float* t, int64_t batch, int64_t channels, const int64_t size[3],
                       const float* bias) {
  const int64_t plane = size[0] * size[1] * size[2];
  int64_t n, c, i;
  for (n = 0; n < batch; ++n)
    for (c = 0; c < channels; ++c)
      for (i = 0; i < plane; ++i) t[(n * channels + c) * plane + i] = bias ? bias[c] : 0.0f;
}

static int naive_forward(const convparity_problem* p, const float* input, const float* weight,
                         const float* bias, float* output) {
  const naive_geometry g = naive_geometry_of(p);
  if (!p->has_bias) bias = NULL;
  if (p->transposed) {
    naive_init(output, g.batch, g.cx, g.x_size, bias);
    naive_sum(&g, NAIVE_SUM_INTO_X, NULL, input, weight, output);
  } else {
    naive_init(output, g.batch, g.cy, g.y_size, bias);
    naive_sum(&g, NAIVE_SUM_INTO_Y, input, NULL, weight, output);
  }
  return CONVPARITY_OK;
}

static int naive_backward_data(const convparity_problem* p, const float* grad_output,
                               const float* weight, float* grad_input) {
  const naive_geometry g = naive_geometry_of(p);
  if (p->transposed) {
    naive_init(grad_input, g.batch, g.cy, g.y_size, NULL);
    naive_sum(&g, NAIVE_SUM_INTO_Y, grad_output, NULL, weight, grad_input);
  } else {
    naive_init(grad_input, g.batch, g.cx, g.x_size, NULL);
    naive_sum(&g, NAIVE_SUM_INTO_X, NULL, grad_output, weight, grad_input);
  }
  return CONVPARITY_OK;
}

static int naive_backward_weight(const convparity_problem* p, const float* input,
                                 const float* grad_output, float* grad_weight) {
  const naive_geometry g = naive_geometry_of(p);
  /* The weight (Cy, Cx/groups, k...) as a "tensor" of batch Cy, Cx/groups channels. */
  naive_init(grad_weight, g.cy, g.cx / g.groups, g.kernel, NULL);
  if (p->transposed)
    naive_sum(&g, NAIVE_SUM_INTO_W, grad_output, input, NULL, grad_weight);
  else
    naive_sum(&g, NAIVE_SUM_INTO_W, input, grad_output, NULL, grad_weight);
  return CONVPARITY_OK;
}

#endif /* CONVPARITY_EXAMPLES_NAIVE_CONV_H_ */
