/* convparity plugin ABI: how to test anyone's convolution kernels with convparity.
 *
 * A plugin is a shared library (.so) that exports ONE function, convparity_plugin_entry(),
 * returning a table that describes the plugin: its ABI version, its name, which directions it
 * implements, and one function per direction. `convparity fuzz --sut plugin:/path/to/libfoo.so`
 * loads it, runs it on generated cases and compares every result with a float64 LibTorch
 * reference. A plugin needs nothing of convparity but this header: it links against no convparity
 * library. harness/plugin/examples/example_plugin.c is a complete one.
 *
 *   #include "convparity_plugin.h"
 *
 *   static int my_forward(const convparity_problem* p, const float* input, const float* weight,
 *                         const float* bias, float* output) { ... return CONVPARITY_OK; }
 *
 *   static const convparity_plugin kPlugin = {
 *       CONVPARITY_PLUGIN_ABI_VERSION, "my-library", CONVPARITY_FORWARD,
 *       my_forward, NULL, NULL, NULL};
 *
 *   CONVPARITY_PLUGIN_EXPORT const convparity_plugin* convparity_plugin_entry(void) {
 *     return &kPlugin;
 *   }
 *
 * Conventions are PyTorch's (torch.nn.functional.conv{1,2,3}d and conv_transpose{1,2,3}d):
 *  - Tensors are dense float32 arrays in PyTorch's contiguous layouts, whatever layouts the case
 *    names (convparity converts):
 *      data: input, output, their gradients   (N, C, spatial...)          NCW, NCHW, NCDHW
 *      weight of an ordinary convolution      (C_out, C_in/groups, k...)  OIW, OIHW, OIDHW
 *      weight of a transposed convolution     (C_in, C_out/groups, k...)  IOW, IOHW, IODHW
 *      bias                                   (C_out)
 *    The spatial axes are the first `rank` entries of the arrays below, outermost first (D, H, W).
 *  - Output size per spatial dimension, with d = dilation, k = kernel:
 *      ordinary    out = (in + pad_begin + pad_end - d*(k-1) - 1) / stride + 1
 *      transposed  out = (in - 1)*stride - pad_begin - pad_end + d*(k-1) + output_padding + 1
 *  - The result buffer holds NaNs when a function is called: every element must be written.
 *  - Buffers never alias. convparity calls a plugin from one thread at a time (parallel campaigns
 *    run worker processes), and may run a plugin's crashing cases in a separate process.
 *
 * Version 2 of this ABI (CONVPARITY_PLUGIN_ABI_VERSION 2) lets a plugin say more about a run: the
 * implementation its library used and whether the result came from an inexact algorithm
 * (describe_last_run), and offer variants of itself that a campaign checks one by one, e.g. the
 * second- and third-choice implementations of its library (variant_count, variant_names). Plugins
 * built against version 1 keep loading: their table ends after last_message.
 *
 * Version 3 lets a plugin declare what it can run (capabilities), in the vocabulary of
 * convparity's docs/INTERFACES.md, "Capabilities". Version-2 tables end after describe_last_run.
 *
 * Version 4 lets a plugin read models instead of buffers (model_format, run_model): a frontend
 * under test. convparity writes each case as a model file of that format, in the case's spelling
 * (docs/INTERFACES.md, "Spellings"), and hands it over with the model's input. Version-3 tables
 * end after variant_capabilities.
 *
 * Also within version 4, convparity_problem carries the case's spelling as text (spelling), for a
 * buffer plugin that writes its own model. A problem field needs no new version: struct_size says
 * whether the calling convparity fills it (CONVPARITY_PROBLEM_HAS), and a plugin built before it
 * never reads past the fields it knows.
 *
 * This is a C99 header, usable from C and C++.
 */
#ifndef CONVPARITY_PLUGIN_H_
#define CONVPARITY_PLUGIN_H_

#include <stddef.h>
#include <stdint.h>

/* The version of this ABI. A loader refuses a plugin that reports a version it does not speak;
 * convparity speaks 1 to 4. Fields are only ever appended, to convparity_problem (see
 * struct_size) and, with a new version, to convparity_plugin. */
#define CONVPARITY_PLUGIN_ABI_VERSION 4

/* The name of the one symbol a plugin exports, for loaders (dlsym). */
#define CONVPARITY_PLUGIN_ENTRY_SYMBOL "convparity_plugin_entry"

#define CONVPARITY_MAX_RANK 3

/* Return codes of the direction functions. Any other non-zero value is an error of the plugin
 * (verdict: crashed, with the code in the report). */
#define CONVPARITY_OK 0
#define CONVPARITY_UNSUPPORTED 1 /* the plugin declines this configuration (verdict: skipped) */
#define CONVPARITY_ERROR (-1)    /* a convenience; any value but 0 and 1 means the same */

/* Bits of convparity_plugin.directions. */
#define CONVPARITY_FORWARD 0x1u         /* y  = conv(x, w) + b */
#define CONVPARITY_BACKWARD_DATA 0x2u   /* dx = gradient of the input, from dy and w */
#define CONVPARITY_BACKWARD_WEIGHT 0x4u /* dw = gradient of the weight, from x and dy */
#define CONVPARITY_ALL_DIRECTIONS 0x7u

/* convparity_problem.data_layout and .weight_layout: the layouts the case under test names. They
 * are hints only, for a plugin that wants to run the matching code path of its library (converting
 * itself); the buffers are always in PyTorch's layouts above. */
#define CONVPARITY_DATA_CHANNELS_FIRST 0 /* N C spatial... */
#define CONVPARITY_DATA_CHANNELS_LAST 1  /* N spatial... C */
#define CONVPARITY_WEIGHT_OI 0           /* O I spatial...  (OIHW) */
#define CONVPARITY_WEIGHT_IO 1           /* I O spatial...  (IOHW) */
#define CONVPARITY_WEIGHT_SPATIAL_IO 2   /* spatial... I O  (HWIO) */
#define CONVPARITY_WEIGHT_O_SPATIAL_I 3  /* O spatial... I  (OHWI) */
/* NOTE: O and I name the operator's own output and input channel axes: a transposed convolution's
 * natural weight (C_in, C_out/groups, k...) is IO. */

/* One convolution. Sizes are in elements; spatial arrays have CONVPARITY_MAX_RANK entries, of which
 * the first `rank` are meaningful; convparity sets the others to 1 (sizes, stride, dilation) or 0
 * (padding). Every problem convparity passes is legal for PyTorch. */
typedef struct convparity_problem {
  /* sizeof(convparity_problem) of the convparity that filled it in. A plugin built against a newer
   * header checks a field it knows of with CONVPARITY_PROBLEM_HAS before reading it. */
  uint32_t struct_size;
  int32_t rank;          /* spatial dimensions: 1, 2 or 3 */
  int32_t transposed;    /* 0: ordinary convolution; 1: transposed ("deconvolution") */
  int32_t has_bias;      /* 1: forward adds bias (never NULL then). Backward directions ignore it:
                            the bias gradient is not asked for. */
  int32_t data_layout;   /* CONVPARITY_DATA_*: a hint, see above */
  int32_t weight_layout; /* CONVPARITY_WEIGHT_*: a hint, see above */
  int64_t batch;         /* N >= 1 */
  int64_t in_channels;   /* C_in >= 1: channels of the operator's input, divisible by groups */
  int64_t out_channels;  /* C_out >= 1: channels of the operator's output, divisible by groups */
  /* >= 1. Input channel group g (channels g*C_in/groups ...) feeds only output channel group g;
   * depthwise convolution is groups == C_in, with C_out = C_in * depth multiplier. */
  int64_t groups;
  int64_t input[CONVPARITY_MAX_RANK];  /* spatial size of the operator's input, >= 1 */
  int64_t kernel[CONVPARITY_MAX_RANK]; /* spatial size of the weight, >= 1 */
  int64_t stride[CONVPARITY_MAX_RANK]; /* >= 1 */
  /* Implicit zero padding, >= 0, before and after each spatial dimension; the two may differ.
   * Transposed: like PyTorch's `padding`, it removes pad_begin / pad_end elements from the start /
   * end of the full transposed output (see the formula above). */
  int64_t pad_begin[CONVPARITY_MAX_RANK];
  int64_t pad_end[CONVPARITY_MAX_RANK];
  /* Spacing between kernel taps, >= 1. NOTE: PyTorch's convention, 1 = no dilation (oneDNN and
   * benchdnn write this minus one). */
  int64_t dilation[CONVPARITY_MAX_RANK];
  /* Transposed only (0 for ordinary): extra elements at the end of each output dimension, smaller
   * than stride or dilation. They are computed like any other output element (they receive
   * contributions where the kernel reaches them, and bias), not zero-filled. */
  int64_t output_padding[CONVPARITY_MAX_RANK];
  /* Spatial size of the operator's output, by the formulas above: a convenience, never an input. */
  int64_t output[CONVPARITY_MAX_RANK];
  /* ABI 2. Which variant of the plugin convparity asks for: 0 is the plugin itself, i in
   * 1..variant_count is variant_names[i-1] (see convparity_plugin). Not part of the problem. */
  int32_t variant;
  int32_t reserved; /* 0 */
  /* How a model file writes this case's convolution, as docs/INTERFACES.md "Spellings" names it,
   * e.g. "pads=same_upper,bias=add"; "" for the plain spelling. Never NULL where
   * CONVPARITY_PROBLEM_HAS(p, spelling); valid for the call. The buffers are the same whatever it
   * says: it is for a plugin that writes its own model of the problem (a frontend adapter). */
  const char* spelling;
} convparity_problem;

/* True when the convparity that filled in `p` knows `field` (see struct_size). */
#define CONVPARITY_PROBLEM_HAS(p, field) \
  ((size_t)(p)->struct_size >= offsetof(convparity_problem, field) + sizeof((p)->field))

/* The direction functions. Every one returns CONVPARITY_OK, CONVPARITY_UNSUPPORTED or an error
 * code, and writes every element of its last argument (unless it fails).
 *
 * Ordinary convolution, x = input (N, C_in, in...), y = output (N, C_out, out...):
 *   y[n, co, o] = bias[co] + sum over k and over the C_in/groups input channels ci of co's group of
 *                 x[n, ci, o*stride - pad_begin + k*dilation] * w[co, ci mod (C_in/groups), k]
 *   (per spatial dimension; a term whose input position falls into the padding is zero)
 * Transposed convolution is the gradient of that with respect to x (plus bias): its input plays the
 * role of y above (C_in channels) and its output that of x (C_out channels), with the weight
 * (C_in, C_out/groups, k...). */

/* y = conv(x, w) + b. input (N, C_in, input...), weight (see above), bias (C_out) or NULL when
 * !has_bias, output (N, C_out, output...). */
typedef int (*convparity_forward_fn)(const convparity_problem* p, const float* input,
                                     const float* weight, const float* bias, float* output);

/* dx = d(loss)/d(input) given dy = d(loss)/d(output). grad_output (N, C_out, output...), weight,
 * grad_input (N, C_in, input...). */
typedef int (*convparity_backward_data_fn)(const convparity_problem* p, const float* grad_output,
                                           const float* weight, float* grad_input);

/* dw = d(loss)/d(weight) given x and dy. input (N, C_in, input...), grad_output (N, C_out,
 * output...), grad_weight in the weight's layout. */
typedef int (*convparity_backward_weight_fn)(const convparity_problem* p, const float* input,
                                             const float* grad_output, float* grad_weight);

/* What a plugin says about its last successful call (ABI 2, convparity_plugin.describe_last_run).
 * convparity zero-fills it and sets struct_size; a plugin writes only fields that end within
 * struct_size, so that later versions can append fields. */
typedef struct convparity_run_notes {
  uint32_t struct_size; /* sizeof(convparity_run_notes) of the convparity that asks */
  /* 1: the result came from an algorithm that is not exact even on small integers (Winograd's
   * transforms, FFT, a lower-precision accumulation). convparity then judges a case filled with
   * small integers within the random-mode error bound instead of bitwise. */
  int32_t inexact;
  /* The implementation the library used, e.g. "jit:avx2" or "gemm:jit": printable, at most 128
   * bytes, valid until the plugin's next call. NULL or "" when the plugin cannot tell. */
  const char* implementation;
} convparity_run_notes;

/* The most axes of a model's input or output tensor. */
#define CONVPARITY_MAX_MODEL_RANK 8

/* A case as a model (ABI 4, convparity_plugin.run_model). convparity zero-fills it and sets
 * struct_size; a plugin reads and writes only fields that end within struct_size. */
typedef struct convparity_model {
  uint32_t struct_size; /* sizeof(convparity_model) of the convparity that calls */
  const char* format;   /* the plugin's model_format: "onnx" or "tfjs-graph" */
  const void* bytes;    /* the model file, `size` bytes: the weights are constants in it */
  uint64_t size;
  /* How the model writes the convolution, as docs/INTERFACES.md "Spellings" names it, e.g.
   * "pads=same_upper,bias=add"; "" for the plain spelling. The model says it already: for logs. */
  const char* spelling;
  /* The model's one input ("x"; backward-data "grad_output") and its result "y", dense float32 in
   * the shapes the model declares (the case's layouts: (N, C, spatial...) or (N, spatial..., C)).
   */
  const char* input_name;
  int32_t input_rank;
  int64_t input_shape[CONVPARITY_MAX_MODEL_RANK];
  const float* input;
  const char* output_name;
  int32_t output_rank;
  int64_t output_shape[CONVPARITY_MAX_MODEL_RANK];
  float* output; /* holds NaNs when run_model is called; write every element */
  /* Written by the plugin: the shape of the result the stack computed. When it differs from
   * output_shape the verdict is shape_mismatch (output is then not read); result_rank 0 says
   * nothing. */
  int32_t result_rank;
  int64_t result_shape[CONVPARITY_MAX_MODEL_RANK];
} convparity_model;

/* Runs a model (ABI 4). Returns CONVPARITY_OK, CONVPARITY_UNSUPPORTED (the stack refuses the model:
 * skipped, with last_message as the reason) or an error code, like the direction functions. `p`
 * is the case's problem (its convolution), for logs and declines. */
typedef int (*convparity_run_model_fn)(const convparity_problem* p, convparity_model* model);

/* What a plugin's entry returns. It must stay valid until the library is unloaded (a static
 * constant is the natural choice). Fields the plugin leaves zero (NULL) are absent. */
typedef struct convparity_plugin {
  /* CONVPARITY_PLUGIN_ABI_VERSION. The first field in every version of this struct, so that a
   * loader can read it before it knows the rest of the layout. */
  int32_t abi_version;
  /* Non-empty, printable, at most 128 bytes: shown in reports ("my-library 2.1, avx2 path"). */
  const char* name;
  /* Bitmask of CONVPARITY_FORWARD, _BACKWARD_DATA, _BACKWARD_WEIGHT: the directions implemented.
   * A direction not listed is reported as skipped; its function may be NULL. */
  uint32_t directions;
  convparity_forward_fn forward;
  convparity_backward_data_fn backward_data;
  convparity_backward_weight_fn backward_weight;
  /* Optional (may be NULL): a short, human-readable reason for the last non-zero return of a
   * direction function on this thread, e.g. "groups > 1 is not implemented". Reports show it. */
  const char* (*last_message)(void);

  /* ---- ABI version 2 appends the fields below; a version-1 table ends above. ---- */

  /* Variants: other ways the plugin can run a problem, e.g. its library's second-choice
   * implementation, or an algorithm on request. Names are 1 to 32 characters of [A-Za-z0-9_.-],
   * distinct; variant_names holds variant_count of them (0 and NULL: no variants). The SUT
   * "<name of the plugin's SUT>#<variant name>" runs variant i (convparity_problem.variant = i for
   * variant_names[i-1]); a variant that does not apply to a problem returns CONVPARITY_UNSUPPORTED
   * with a message like any other decline. */
  int32_t variant_count;
  const char* const* variant_names;
  /* Optional: called after a direction function returned CONVPARITY_OK, on the same thread, to
   * describe that run (see convparity_run_notes). */
  void (*describe_last_run)(convparity_run_notes* notes);

  /* ---- ABI version 3 appends the fields below; a version-2 table ends above. ---- */

  /* Optional (NULL or "null": nothing declared): what the plugin can run, as convparity's
   * capabilities JSON (docs/INTERFACES.md, "Capabilities"), at most 65536 bytes, e.g.
   *   "[{\"directions\": [\"fwd\"], \"ranks\": [1, 2], \"output_padding\": \"below_stride\"}]"
   * for a plugin that runs forward 1-D and 2-D convolutions with output_padding below the stride.
   * Everything the plugin declines (CONVPARITY_UNSUPPORTED) must be outside it, and everything
   * outside it declined: a case inside that it declines, or one outside that it computes, is the
   * verdict broken_promise. Campaigns draw their cases inside it (and a few just outside).
   * convparity reads it on load: a declaration that is not valid JSON of that vocabulary refuses
   * the plugin. */
  const char* capabilities;
  /* Optional: one declaration per variant, in variant_names' order (variant_count of them). A NULL
   * array, or a NULL entry, means the plugin's own; "null", nothing declared. */
  const char* const* variant_capabilities;

  /* ---- ABI version 4 appends the fields below; a version-3 table ends above. ---- */

  /* Optional (NULL: the plugin computes from buffers, as above). A model format convparity writes
   * ("onnx", "tfjs-graph": harness/exec/PROTOCOL.md "Models" says what each is): convparity then
   * hands every case of a listed direction to run_model as a model, of any graph form it can
   * write, and never calls the direction functions, which may be NULL. */
  const char* model_format;
  convparity_run_model_fn run_model;
} convparity_plugin;

/* Marks the entry point for export, with C linkage also when the plugin is written in C++, and
 * visible when the library is compiled with -fvisibility=hidden. */
#if defined(_WIN32)
#define CONVPARITY_PLUGIN_VISIBLE __declspec(dllexport)
#else
#define CONVPARITY_PLUGIN_VISIBLE __attribute__((visibility("default")))
#endif
#ifdef __cplusplus
#define CONVPARITY_PLUGIN_EXPORT extern "C" CONVPARITY_PLUGIN_VISIBLE
#else
#define CONVPARITY_PLUGIN_EXPORT CONVPARITY_PLUGIN_VISIBLE
#endif

/* The one symbol a plugin defines. Declared here so that a definition with another signature does
 * not compile. It is called once per load; returning NULL means "refuse to load". */
CONVPARITY_PLUGIN_EXPORT const convparity_plugin* convparity_plugin_entry(void);

#endif /* CONVPARITY_PLUGIN_H_ */
