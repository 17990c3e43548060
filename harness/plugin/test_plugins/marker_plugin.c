/* A correct plugin (the example's naive convolution) whose load leaves a trace: its constructor
 * runs when the library is loaded, before any symbol is looked up, and creates the file named by
 * $CONVPARITY_MARKER_FILE. For the test that a case file naming a plugin loads nothing unless the
 * command line allows it (tests/sut_approval_test.sh). */
#include <stdio.h>
#include <stdlib.h>

#include "../examples/naive_conv.h"
#include "convparity_plugin.h"

__attribute__((constructor)) static void leave_a_marker(void) {
  const char* path = getenv("CONVPARITY_MARKER_FILE");
  FILE* f = path ? fopen(path, "a") : NULL;
  if (f) {
    fputs("loaded\n", f);
    fclose(f);
  }
}

static const convparity_plugin kPlugin = {CONVPARITY_PLUGIN_ABI_VERSION,
                                          "marker: naive direct convolution",
                                          CONVPARITY_ALL_DIRECTIONS,
                                          naive_forward,
                                          naive_backward_data,
                                          naive_backward_weight,
                                          NULL};

CONVPARITY_PLUGIN_EXPORT const convparity_plugin* convparity_plugin_entry(void) { return &kPlugin; }
