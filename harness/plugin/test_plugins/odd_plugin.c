/* Plugins that are wrong in one way each, for the loader's tests (tests/harness/plugin/plugin_test.cc).
 * One source, built once per kind with -DODD_PLUGIN_<KIND>:
 *   ABI_999        reports ABI version 999
 *   NO_ENTRY       a shared library without convparity_plugin_entry
 *   NULL_ENTRY     the entry returns NULL
 *   NULL_FUNCTION  declares backward-weight but has no function for it
 *   NO_NAME        an empty name
 *   DECLINING      well-formed: forward and backward-data only; forward returns
 *                  CONVPARITY_UNSUPPORTED (with a message), backward-data returns 42 */
#include "convparity_plugin.h"

#if defined(ODD_PLUGIN_NO_ENTRY)

CONVPARITY_PLUGIN_VISIBLE int not_a_convparity_plugin(void) { return 0; }

#else

static int decline(const convparity_problem* p, const float* input, const float* weight,
                   const float* bias, float* output) {
  return CONVPARITY_UNSUPPORTED;
}

static int fail(const convparity_problem* p, const float* grad_output, const float* weight,
                float* grad_input) {
  return 42;
}

static const char* message(void) { return "this plugin declines everything"; }

#if defined(ODD_PLUGIN_ABI_999)
#define ODD_VERSION 999
#else
#define ODD_VERSION CONVPARITY_PLUGIN_ABI_VERSION
#endif

#if defined(ODD_PLUGIN_NO_NAME)
#define ODD_NAME ""
#else
#define ODD_NAME "odd"
#endif

#if defined(ODD_PLUGIN_NULL_FUNCTION)
#define ODD_DIRECTIONS CONVPARITY_ALL_DIRECTIONS
#else
#define ODD_DIRECTIONS (CONVPARITY_FORWARD | CONVPARITY_BACKWARD_DATA)
#endif

static const convparity_plugin kPlugin = {
    ODD_VERSION, ODD_NAME, ODD_DIRECTIONS, decline, fail, NULL, message,
};

CONVPARITY_PLUGIN_EXPORT const convparity_plugin* convparity_plugin_entry(void) {
#if defined(ODD_PLUGIN_NULL_ENTRY)
  (void)kPlugin;
  return NULL;
#else
  return &kPlugin;
#endif
}

#endif
