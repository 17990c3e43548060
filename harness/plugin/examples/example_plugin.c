/* The example convparity plugin: a correct naive direct convolution (naive_conv.h) for every
 * direction and configuration. Start your own plugin from this file: replace the three functions
 * by calls into your library, and return CONVPARITY_UNSUPPORTED for what it does not implement.
 * A plugin that writes its own model of the problem finds the case's spelling in p->spelling.
 *
 *   cc -std=c99 -O2 -shared -fPIC -fvisibility=hidden -I<convparity>/include/convparity \
 *      example_plugin.c -o libexample_plugin.so
 *   convparity fuzz --sut plugin:./libexample_plugin.so
 */
#include "convparity_plugin.h"
#include "naive_conv.h"

static const convparity_plugin kPlugin = {
    CONVPARITY_PLUGIN_ABI_VERSION,
    "example: naive direct convolution",
    CONVPARITY_ALL_DIRECTIONS,
    naive_forward,
    naive_backward_data,
    naive_backward_weight,
    NULL, /* last_message: this plugin never declines nor fails */
};

CONVPARITY_PLUGIN_EXPORT const convparity_plugin* convparity_plugin_entry(void) { return &kPlugin; }
