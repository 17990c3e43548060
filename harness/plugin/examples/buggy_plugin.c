/* A plugin with a deliberate, realistic bug, for proving that convparity catches it: the naive
 * convolution of naive_conv.h, except that backward-data loses the dilation on its way to the
 * kernel, the way a frontend loses a parameter it does not forward (docs/BUGS.md has several).
 * Forward and backward-weight are correct, and so is backward-data without dilation.
 *
 * The smallest configurations that show it need dilation > 1 in backward-data, e.g.
 * bwd_data:1d_ic1_oc1_i3_k2_d2. */
#include "convparity_plugin.h"
#include "naive_conv.h"

static int buggy_backward_data(const convparity_problem* p, const float* grad_output,
                               const float* weight, float* grad_input) {
  convparity_problem dropped = *p;
  int i;
  /* BUG (deliberate): the kernel is called as if there were no dilation. The sizes still come from
   * the original problem, so the result has the right shape and wrong values. */
  for (i = 0; i < CONVPARITY_MAX_RANK; ++i) dropped.dilation[i] = 1;
  return naive_backward_data(&dropped, grad_output, weight, grad_input);
}

static const convparity_plugin kPlugin = {
    CONVPARITY_PLUGIN_ABI_VERSION,
    "buggy: backward-data ignores dilation",
    CONVPARITY_ALL_DIRECTIONS,
    naive_forward,
    buggy_backward_data,
    naive_backward_weight,
    NULL,
};

CONVPARITY_PLUGIN_EXPORT const convparity_plugin* convparity_plugin_entry(void) { return &kPlugin; }
