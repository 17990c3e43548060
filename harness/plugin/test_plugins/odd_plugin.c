/* Plugins that are wrong in one way each, for the loader's tests
 * (tests/harness/plugin/plugin_test.cc, plugin_abi2_test.cc, plugin_abi3_test.cc). One source,
 * built once per kind with -DODD_PLUGIN_<KIND>: ABI_999        reports ABI version 999 NO_ENTRY a
 * shared library without convparity_plugin_entry NULL_ENTRY     the entry returns NULL
 *   NULL_FUNCTION  declares backward-weight but has no function for it
 *   NO_NAME        an empty name
 *   DECLINING      well-formed: forward and backward-data only; forward returns
 *                  CONVPARITY_UNSUPPORTED (with a message), backward-data returns 42
 *   V1             a well-formed ABI-1 plugin (the naive convolution) whose table is followed by
 *                  garbage where version 2 has its fields: a loader must not read them
 *   VARIANT_COUNT  ABI 2, variant_count -1
 *   VARIANT_NULL   ABI 2, two variants but variant_names is NULL
 *   VARIANT_NAME   ABI 2, a variant named "a b"
 *   VARIANT_TWICE  ABI 2, two variants named "fast"
 *   V2             DECLINING as an ABI-2 plugin whose table is followed by garbage where version 3
 *                  has its fields: a loader must not read them
 *   CAPABILITIES_RANK  ABI 3, a declaration with rank 4
 *   CAPABILITIES_JSON  ABI 3, a declaration that is not JSON
 *   VARIANT_DECLARATIONS  ABI 3, variants "own", "none" and "rank1": the plugin's declaration,
 *                  nothing declared, and rank 1 only
 * The ABI-3 kinds without a CAPABILITIES_ in their name declare that they run backward-data only,
 * which DECLINING keeps. */
#include <stdint.h>

#include "convparity_plugin.h"
#if defined(ODD_PLUGIN_V1)
#include "examples/naive_conv.h"
#endif

#if defined(ODD_PLUGIN_NO_ENTRY)

CONVPARITY_PLUGIN_VISIBLE int not_a_convparity_plugin(void) { return 0; }

#else

#if !defined(ODD_PLUGIN_V1)
static int decline(const convparity_problem* p, const float* input, const float* weight,
                   const float* bias, float* output) {
  return CONVPARITY_UNSUPPORTED;
}

static int fail(const convparity_problem* p, const float* grad_output, const float* weight,
                float* grad_input) {
  return 42;
}
#endif

static const char* message(void) { return "this plugin declines everything"; }

#if defined(ODD_PLUGIN_MODEL_FORMAT)
static int run_model(const convparity_problem* p, convparity_model* m) {
  return CONVPARITY_UNSUPPORTED;
}
#endif

#if defined(ODD_PLUGIN_ABI_999)
#define ODD_VERSION 999
#elif defined(ODD_PLUGIN_V1)
#define ODD_VERSION 1
#elif defined(ODD_PLUGIN_V2)
#define ODD_VERSION 2
#elif defined(ODD_PLUGIN_V3)
#define ODD_VERSION 3
#else
#define ODD_VERSION CONVPARITY_PLUGIN_ABI_VERSION
#endif

#if defined(ODD_PLUGIN_NO_NAME)
#define ODD_NAME ""
#else
#define ODD_NAME "odd"
#endif

#if defined(ODD_PLUGIN_NULL_FUNCTION) || defined(ODD_PLUGIN_V1)
#define ODD_DIRECTIONS CONVPARITY_ALL_DIRECTIONS
#else
#define ODD_DIRECTIONS (CONVPARITY_FORWARD | CONVPARITY_BACKWARD_DATA)
#endif

#if defined(ODD_PLUGIN_V1)
/* Where version 2 appends its fields, bytes no plugin of version 1 promises: a count that fails
 * every check, and pointers that crash when followed. */
#define ODD_VERSION_2_FIELDS \
  -1234567, (const char* const*)(uintptr_t)0x10, (void (*)(convparity_run_notes*))(uintptr_t)0x10
#define ODD_FUNCTIONS naive_forward, naive_backward_data, naive_backward_weight
#else
#define ODD_FUNCTIONS decline, fail, NULL
#if defined(ODD_PLUGIN_VARIANT_COUNT)
#define ODD_VERSION_2_FIELDS -1, NULL, NULL
#elif defined(ODD_PLUGIN_VARIANT_NULL)
#define ODD_VERSION_2_FIELDS 2, NULL, NULL
#elif defined(ODD_PLUGIN_VARIANT_NAME)
static const char* const kNames[] = {"fast", "a b"};
#define ODD_VERSION_2_FIELDS 2, kNames, NULL
#elif defined(ODD_PLUGIN_VARIANT_TWICE)
static const char* const kNames[] = {"fast", "fast"};
#define ODD_VERSION_2_FIELDS 2, kNames, NULL
#elif defined(ODD_PLUGIN_VARIANT_DECLARATIONS)
static const char* const kNames[] = {"own", "none", "rank1"};
#define ODD_VERSION_2_FIELDS 3, kNames, NULL
#else
#define ODD_VERSION_2_FIELDS 0, NULL, NULL
#endif
#endif

#if defined(ODD_PLUGIN_V1) || defined(ODD_PLUGIN_V2)
/* Where version 3 appends its fields: pointers that crash when followed. */
#define ODD_VERSION_3_FIELDS (const char*)(uintptr_t)0x10, (const char* const*)(uintptr_t)0x10
#elif defined(ODD_PLUGIN_CAPABILITIES_RANK)
#define ODD_VERSION_3_FIELDS "[{\"ranks\": [4]}]", NULL
#elif defined(ODD_PLUGIN_CAPABILITIES_JSON)
#define ODD_VERSION_3_FIELDS "[{\"ranks\": [1]", NULL
#elif defined(ODD_PLUGIN_VARIANT_DECLARATIONS)
static const char* const kVariantDeclarations[] = {NULL, "null", "[{\"ranks\": [1]}]"};
#define ODD_VERSION_3_FIELDS "[{\"directions\": [\"bwd_data\"]}]", kVariantDeclarations
#else
#define ODD_VERSION_3_FIELDS "[{\"directions\": [\"bwd_data\"]}]", NULL
#endif

#if defined(ODD_PLUGIN_V1) || defined(ODD_PLUGIN_V2) || defined(ODD_PLUGIN_V3)
/* Where version 4 appends its fields: pointers that crash when followed. */
#define ODD_VERSION_4_FIELDS (const char*)(uintptr_t)0x10, (convparity_run_model_fn)(uintptr_t)0x10
#elif defined(ODD_PLUGIN_MODEL_FORMAT)
#define ODD_VERSION_4_FIELDS "tflite", run_model
#elif defined(ODD_PLUGIN_MODEL_NO_RUN)
#define ODD_VERSION_4_FIELDS "onnx", NULL
#else
#define ODD_VERSION_4_FIELDS NULL, NULL
#endif

static const convparity_plugin kPlugin = {
    ODD_VERSION,
    ODD_NAME,
    ODD_DIRECTIONS,
    ODD_FUNCTIONS,
    message,
    ODD_VERSION_2_FIELDS,
    ODD_VERSION_3_FIELDS,
    ODD_VERSION_4_FIELDS,
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
