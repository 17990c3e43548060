// Systems under test from plugins: shared libraries that implement the C ABI of
// harness/plugin/convparity_plugin.h (`--sut plugin:/path/to/libfoo.so`).
//
// A plugin computes in PyTorch's contiguous layouts, whatever layouts a case names; PluginSut
// converts the harness's buffers (in the problem's memory layouts) to that order and the result
// back, so every case, layout cases included, can run against any plugin.
//
// NOTE: a plugin runs in the calling process. A plugin that crashes takes the process with it:
// campaigns run SUTs in worker processes for that reason.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "core/capabilities.h"
#include "core/conv_problem.h"
#include "core/spelling.h"
#include "core/status.h"
#include "core/sut.h"
#include "harness/plugin/convparity_plugin.h"

namespace convparity {

// The registry's prefix: the SUT "plugin:<path>" is the plugin at <path>, and
// "plugin:<path>#<variant>" one of its variants (ABI 2).
inline constexpr char kPluginSutPrefix[] = "plugin:";
// Separates a SUT's name from the name of a plugin variant: "onednn#2", "plugin:./libfoo.so#fast".
inline constexpr char kVariantSeparator = '#';

struct PluginSutOptions {
  std::string variant;   // "" the plugin itself, else one of its variant_names
  std::string sut_name;  // what name() returns; "" for "plugin:<path>[#<variant>]"
  // RTLD_DEEPBIND: the plugin's own dependencies come before the libraries this process loaded,
  // so that an adapter uses the library it was built against even when LibTorch loaded another
  // version of it. Ignored under AddressSanitizer, which does not support it.
  bool deep_bind = false;
};

class PluginSut : public ConvSut {
 public:
  using Options = PluginSutOptions;

  // Loads the library at `path` (dlopen's rules: a path without '/' is searched for, so write
  // ./libfoo.so for one in the current directory) and checks its table: entry symbol, ABI version
  // (1 to 4), name, directions and their functions, variants, capabilities. Every failure is one
  // line of Invalid that starts with "plugin <path>: " and says what was wrong.
  static Result<std::unique_ptr<PluginSut>> Load(const std::string& path,
                                                 const Options& options = {});

  PluginSut(const PluginSut&) = delete;
  PluginSut& operator=(const PluginSut&) = delete;
  ~PluginSut() override;  // unloads the library

  // Options::sut_name, else "plugin:<path>" with the path as given (not the plugin's own name) and
  // "#<variant>" for a variant: this is what case files record, and a case must load the same
  // library again when it is replayed.
  std::string name() const override;
  // Unsupported when the plugin does not implement `direction` or returns CONVPARITY_UNSUPPORTED;
  // Internal("plugin returned code N…") for any other non-zero return.
  Status Run(const ConvProblem& p, Direction direction, const ConvBuffers& buffers) override;
  // Run with the case's spelling in convparity_problem.spelling, for a plugin that writes its own
  // model of the problem; Run passes the plain spelling ("").
  Status RunSpelled(const ConvProblem& p, Direction direction, const Spelling& spelling,
                    const ConvBuffers& buffers) override;
  // ABI 4: the model format the plugin reads ("onnx"), or "" for a plugin that computes from
  // buffers. A model reader runs every case through RunModel; Run declines it.
  std::string model_format() const;
  // Runs a model of the case's problem p on `input` (`input_shape`, as the model declares it) into
  // `output` (`output_shape`); `result_shape` gets the shape the plugin says it computed (empty
  // when it says nothing). Statuses as Run's.
  Status RunModel(const ConvProblem& p, Direction d, const std::string& spelling,
                  const std::string& model, const float* input, const Shape& input_shape,
                  float* output, const Shape& output_shape, Shape* result_shape);
  // ABI 2: what describe_last_run said (the implementation one printable line of at most 128
  // bytes); empty for a version-1 plugin or one that says nothing.
  RunNotes LastRunNotes() const override { return last_notes_; }

  const std::string& path() const { return path_; }
  const std::string& plugin_name() const { return plugin_name_; }  // what the plugin calls itself
  int abi_version() const;
  uint32_t directions() const;  // bitmask of CONVPARITY_FORWARD, …
  bool Implements(Direction d) const;
  const std::string& variant() const { return variant_; }  // "" for the plugin itself
  std::vector<std::string> variant_names() const;          // what the plugin offers (ABI 2)
  // What the plugin, or its variant, declares it can run (ABI 3; not `declared` when it says
  // nothing), within the conv form and the directions it implements.
  const Capabilities& capabilities() const override { return capabilities_; }

 private:
  PluginSut(std::string path, void* handle, const convparity_plugin* table, std::string variant,
            int32_t variant_index, std::string sut_name);
  std::string MessageOfPlugin() const;  // " (<last_message>)" or ""
  void NoteLastRun();                   // what describe_last_run says (ABI 2)

  std::string path_;
  std::string plugin_name_;
  void* handle_;
  const convparity_plugin* table_;
  std::string variant_;
  int32_t variant_index_;  // convparity_problem.variant
  std::string sut_name_;
  Capabilities capabilities_;
  RunNotes last_notes_;
};

// The registry's factory: MakeSut("plugin:<spec>") is LoadPluginSut(<spec>), where <spec> is a
// path, or "<path>#<variant>" for a variant (a path that itself holds '#' and names an existing
// file is taken whole).
Result<std::unique_ptr<PluginSut>> LoadPluginSut(const std::string& spec);

// The plugin's view of a problem: every field, unused spatial entries set to 1 (sizes, stride,
// dilation) or 0 (padding), output pre-computed, struct_size = sizeof(convparity_problem), the
// spelling plain ("": a caller with a case sets its text). Expects a valid problem (Validate).
convparity_problem PluginStructFromProblem(const ConvProblem& p);

// The reverse, for structs from anywhere (a fuzzer's bytes included): total over every value, and
// Invalid unless the struct is exactly what PluginStructFromProblem makes of a valid problem —
// struct_size large enough, rank 1–3, flags 0/1, known layouts, Validate() passes and `output` is
// the computed output size. Spatial entries beyond rank are ignored.
// ProblemFromPluginStruct(PluginStructFromProblem(p)) == p for every valid p.
Result<ConvProblem> ProblemFromPluginStruct(const convparity_problem& s);

}  // namespace convparity
