// Loading a plugin (checking its table against the ABI) and running a case through it in
// PyTorch's contiguous layouts. The problem struct's conversions are in plugin_problem.cc.
#include "harness/plugin/plugin_sut.h"

#include <dlfcn.h>
#include <unistd.h>

#include <algorithm>
#include <cstddef>
#include <cstring>
#include <utility>
#include <vector>

#include "core/case_graphs.h"
#include "core/strict_json.h"
#include "core/tensor.h"
#include "harness/models/model_formats.h"

namespace convparity {
namespace {

// The layouts of ABI versions 1 to 3 are a promise to every plugin already built: these pin them.
// Version 1: the problem ends after `output` (248 bytes), the table after `last_message`.
static_assert(offsetof(convparity_problem, batch) == 24, "convparity_problem's layout is ABI");
static_assert(offsetof(convparity_problem, output) == 224, "convparity_problem's layout is ABI");
static_assert(offsetof(convparity_plugin, abi_version) == 0,
              "a loader reads abi_version before it trusts the rest of the table");
static_assert(offsetof(convparity_plugin, directions) == 16, "convparity_plugin's layout is ABI");
static_assert(offsetof(convparity_plugin, last_message) == 48, "convparity_plugin's layout is ABI");
constexpr size_t kVersion1TableBytes = 56;
// Version 2 appends the variant to the problem, and variants and run notes to the table.
static_assert(offsetof(convparity_problem, variant) == 248, "convparity_problem's layout is ABI");
static_assert(offsetof(convparity_plugin, variant_count) == kVersion1TableBytes,
              "version 2 appends to the version-1 table");
static_assert(offsetof(convparity_plugin, variant_names) == 64,
              "convparity_plugin's layout is ABI");
static_assert(offsetof(convparity_plugin, describe_last_run) == 72,
              "convparity_plugin's layout is ABI");
// Version 3 appends the capabilities to the table.
static_assert(offsetof(convparity_plugin, capabilities) == 80, "version 3 appends to version 2");
static_assert(offsetof(convparity_plugin, variant_capabilities) == 88,
              "convparity_plugin's layout is ABI");
// Version 4 appends the model reader to the table.
static_assert(offsetof(convparity_plugin, model_format) == 96, "version 4 appends to version 3");
static_assert(offsetof(convparity_plugin, run_model) == 104, "convparity_plugin's layout is ABI");
static_assert(sizeof(convparity_plugin) == 112, "convparity_plugin's layout is ABI");
// Within version 4 the problem gains its spelling (struct_size tells a plugin).
static_assert(offsetof(convparity_problem, spelling) == 256, "version 4 appends to the problem");
static_assert(sizeof(convparity_problem) == 264, "convparity_problem's layout is ABI");
static_assert(offsetof(convparity_run_notes, inexact) == 4, "convparity_run_notes is ABI");
static_assert(offsetof(convparity_run_notes, implementation) == 8, "convparity_run_notes is ABI");
static_assert(sizeof(convparity_run_notes) == 16, "convparity_run_notes is ABI");

using EntryFn = const convparity_plugin* (*)();

#if defined(__SANITIZE_ADDRESS__)
constexpr bool kAddressSanitizer = true;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
constexpr bool kAddressSanitizer = true;
#else
constexpr bool kAddressSanitizer = false;
#endif
#else
constexpr bool kAddressSanitizer = false;
#endif

constexpr int32_t kOldestAbiVersion = 1;
constexpr size_t kMaxNameBytes = 128;
constexpr size_t kMaxMessageBytes = 200;
constexpr size_t kMaxImplementationBytes = 128;
constexpr int32_t kMaxVariants = 64;
constexpr size_t kMaxVariantNameBytes = 32;

// Makes text from a library (dlerror, a plugin's name or message) one printable line.
std::string OneLine(const char* text, size_t max_bytes) {
  std::string s;
  for (size_t i = 0; text[i] != '\0' && i < max_bytes; ++i) {
    const unsigned char c = static_cast<unsigned char>(text[i]);
    s += (c < 0x20 || c == 0x7f) ? ' ' : static_cast<char>(c);
  }
  return s;
}

std::string DlError(const std::string& path) {
  const char* e = dlerror();
  std::string s = e ? OneLine(e, 1000) : "unknown dlopen error";
  // glibc starts the message with the path; the caller's prefix names it already.
  if (s.rfind(path + ": ", 0) == 0) s = s.substr(path.size() + 2);
  return s;
}

uint32_t DirectionBit(Direction d) {
  switch (d) {
    case Direction::kForward:
      return CONVPARITY_FORWARD;
    case Direction::kBackwardData:
      return CONVPARITY_BACKWARD_DATA;
    case Direction::kBackwardWeight:
      return CONVPARITY_BACKWARD_WEIGHT;
  }
  return 0;
}

bool IsVariantNameChar(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
         c == '.' || c == '-';
}

// The variant names of a version-2 table; the message completes "plugin <path>: ". Reads no
// further than the declared count, and no name further than its limit.
Result<std::vector<std::string>> VariantNames(const convparity_plugin* t) {
  std::vector<std::string> names;
  if (t->variant_count == 0) return names;
  if (t->variant_count < 0 || t->variant_count > kMaxVariants)
    return Status::Invalid("variant_count must be 0 to " + std::to_string(kMaxVariants) +
                           ", but it is " + std::to_string(t->variant_count));
  if (t->variant_names == nullptr)
    return Status::Invalid("variant_count is " + std::to_string(t->variant_count) +
                           " but variant_names is NULL");
  for (int32_t i = 0; i < t->variant_count; ++i) {
    const char* name = t->variant_names[i];
    const std::string where = "variant_names[" + std::to_string(i) + "]";
    if (name == nullptr) return Status::Invalid(where + " is NULL");
    size_t n = 0;
    while (n <= kMaxVariantNameBytes && name[n] != '\0') ++n;
    const std::string shown = OneLine(name, kMaxVariantNameBytes);
    if (n == 0 || n > kMaxVariantNameBytes)
      return Status::Invalid(where + " must have 1 to " + std::to_string(kMaxVariantNameBytes) +
                             " characters, but it has " + (n == 0 ? "none" : "more"));
    for (size_t k = 0; k < n; ++k)
      if (!IsVariantNameChar(name[k]))
        return Status::Invalid(where + " '" + shown + "' must be made of [A-Za-z0-9_.-]");
    for (const std::string& earlier : names)
      if (earlier == shown) return Status::Invalid(where + " '" + shown + "' is not unique");
    names.push_back(shown);
  }
  return names;
}

constexpr size_t kMaxCapabilitiesBytes = 65536;

// A declaration of a version-3 table (NULL: none); the message completes "plugin <path>: ".
Result<Capabilities> Declaration(const char* text, const std::string& where) {
  if (text == nullptr) return Capabilities{};
  const size_t n = strnlen(text, kMaxCapabilitiesBytes + 1);
  if (n > kMaxCapabilitiesBytes)
    return Status::Invalid(where + " is longer than " + std::to_string(kMaxCapabilitiesBytes) +
                           " bytes");
  Result<nlohmann::json> j = ParseStrictJson(std::string(text, n), 16, where);
  if (!j.ok()) return j.status();
  return CapabilitiesFromJson(*j, where);
}

// The declaration of the plugin (variant_index 0) or of one of its variants.
Result<Capabilities> DeclarationOf(const convparity_plugin* t, int32_t variant_index) {
  if (t->abi_version < 3) return Capabilities{};
  if (variant_index > 0 && t->variant_capabilities != nullptr &&
      t->variant_capabilities[variant_index - 1] != nullptr)
    return Declaration(t->variant_capabilities[variant_index - 1],
                       "variant_capabilities[" + std::to_string(variant_index - 1) + "]");
  return Declaration(t->capabilities, "capabilities");
}

bool ReadsModels(const convparity_plugin* t) {
  return t->abi_version >= 4 && t->model_format != nullptr && t->run_model != nullptr;
}

// What a plugin declares, within what it is: it runs single convolutions (ConvForm, the first of
// GraphForms), or any form as a model reader, in the directions its table lists.
Capabilities WithinTable(Capabilities caps, const convparity_plugin* t) {
  std::vector<Direction> listed;
  for (Direction d : AllDirections())
    if (t->directions & DirectionBit(d)) listed.push_back(d);
  return Within(std::move(caps), ReadsModels(t) ? ~0u : kConvFormBit, DirectionMask(listed));
}

// Checks what the entry returned; the message completes "plugin <path>: ".
Status CheckTable(const convparity_plugin* t) {
  if (t == nullptr) return Status::Invalid("convparity_plugin_entry() returned NULL");
  if (t->abi_version < kOldestAbiVersion || t->abi_version > CONVPARITY_PLUGIN_ABI_VERSION)
    return Status::Invalid("ABI version " + std::to_string(t->abi_version) +
                           ", this convparity speaks " + std::to_string(kOldestAbiVersion) +
                           " to " + std::to_string(CONVPARITY_PLUGIN_ABI_VERSION));
  if (t->name == nullptr || t->name[0] == '\0')
    return Status::Invalid("the plugin has no name (convparity_plugin.name is NULL or empty)");
  if (std::strlen(t->name) > kMaxNameBytes)
    return Status::Invalid("the plugin's name must be at most " + std::to_string(kMaxNameBytes) +
                           " bytes, but it has " + std::to_string(std::strlen(t->name)));
  if (t->directions == 0)
    return Status::Invalid("the plugin implements no direction (directions is 0)");
  if ((t->directions & ~CONVPARITY_ALL_DIRECTIONS) != 0)
    return Status::Invalid("unknown bits in directions: " + std::to_string(t->directions) +
                           " (known: 1 forward, 2 backward_data, 4 backward_weight)");
  // A model reader (ABI 4) runs every direction through run_model.
  const bool reads_models = ReadsModels(t);
  if (t->abi_version >= 4 && t->model_format != nullptr) {
    if (!IsModelFormat(t->model_format))
      return Status::Invalid("model_format is \"" + OneLine(t->model_format, 32) +
                             "\"; convparity writes " + ModelFormatList());
    if (t->run_model == nullptr)
      return Status::Invalid("model_format is set but run_model is NULL");
  }
  const std::pair<uint32_t, bool> declared[] = {
      {CONVPARITY_FORWARD, t->forward != nullptr},
      {CONVPARITY_BACKWARD_DATA, t->backward_data != nullptr},
      {CONVPARITY_BACKWARD_WEIGHT, t->backward_weight != nullptr}};
  const char* names[] = {"forward", "backward_data", "backward_weight"};
  for (int i = 0; i < 3; ++i)
    if ((t->directions & declared[i].first) && !declared[i].second && !reads_models)
      return Status::Invalid(std::string("directions declares ") + names[i] +
                             " but its function pointer is NULL");
  // NOTE: a version-1 table may end here: nothing below reads it.
  if (t->abi_version >= 2) CP_RETURN_IF_ERROR(VariantNames(t).status());
  // A version-2 table ends here: DeclarationOf reads no further for one.
  for (int32_t i = 0; i <= (t->abi_version >= 2 ? t->variant_count : 0); ++i)
    CP_RETURN_IF_ERROR(DeclarationOf(t, i).status());
  return Status::Ok();
}

// A buffer of the problem's memory layout as the plugin sees it, in PyTorch's contiguous order:
// the memory itself when the two orders agree (the common case), a converted copy otherwise.
class PyTorchOrder {
 public:
  PyTorchOrder(const float* memory, Shape shape, const std::vector<int>& memory_order)
      : memory_(memory),
        shape_(std::move(shape)),
        strides_(StridesFor(shape_, memory_order)),
        same_(strides_ == ContiguousStrides(shape_)) {
    if (same_ || memory == nullptr) return;
    copy_.resize(NumElements(shape_));
    // The result buffer is converted too, so that the plugin sees its poison.
    ForEachIndex(shape_,
                 [&](const int64_t* idx, int64_t linear) { copy_[linear] = memory_[Offset(idx)]; });
  }

  const float* data() const {
    return memory_ == nullptr ? nullptr : same_ ? memory_ : copy_.data();
  }
  // Only for the result, whose memory the caller passed as float*.
  float* mutable_data() { return same_ ? const_cast<float*>(memory_) : copy_.data(); }

  // Writes a result computed in PyTorch's order back into the memory layout.
  void WriteBack(float* memory) const {
    if (same_) return;
    ForEachIndex(shape_,
                 [&](const int64_t* idx, int64_t linear) { memory[Offset(idx)] = copy_[linear]; });
  }

 private:
  int64_t Offset(const int64_t* idx) const {
    int64_t off = 0;
    for (size_t i = 0; i < strides_.size(); ++i) off += idx[i] * strides_[i];
    return off;
  }

  const float* memory_;
  Shape shape_;
  Shape strides_;
  bool same_;
  std::vector<float> copy_;
};

}  // namespace

Result<std::unique_ptr<PluginSut>> PluginSut::Load(const std::string& path,
                                                   const Options& options) {
  const std::string where = "plugin " + path;
  if (path.empty())
    return Status::Invalid("plugin: no path given (write plugin:/path/to/libfoo.so)");
  dlerror();  // clears an error left by someone else
  // RTLD_NOW: an unresolved symbol is a load error now, not a crash in the middle of a case.
  // RTLD_LOCAL: the plugin's symbols cannot interpose on ours or another plugin's.
  int flags = RTLD_NOW | RTLD_LOCAL;
  if (options.deep_bind && !kAddressSanitizer) flags |= RTLD_DEEPBIND;
  void* handle = dlopen(path.c_str(), flags);
  if (handle == nullptr) return Status::Invalid(where + ": cannot load: " + DlError(path));
  auto close = [&](Status st) {
    dlclose(handle);
    return st.WithContext(where);
  };
  void* symbol = dlsym(handle, CONVPARITY_PLUGIN_ENTRY_SYMBOL);
  if (symbol == nullptr)
    return close(Status::Invalid(std::string("not a convparity plugin (no symbol ") +
                                 CONVPARITY_PLUGIN_ENTRY_SYMBOL + ")"));
  const convparity_plugin* table = reinterpret_cast<EntryFn>(symbol)();
  if (Status st = CheckTable(table); !st.ok()) return close(st);
  int32_t variant_index = 0;
  if (!options.variant.empty()) {
    std::vector<std::string> names;
    if (table->abi_version >= 2) names = *VariantNames(table);  // CheckTable passed
    for (size_t i = 0; i < names.size() && variant_index == 0; ++i)
      if (names[i] == options.variant) variant_index = static_cast<int32_t>(i + 1);
    if (variant_index == 0) {
      std::string offered;
      for (const std::string& n : names) offered += (offered.empty() ? "" : ", ") + n;
      return close(Status::Invalid("no variant '" + options.variant + "' (it offers " +
                                   (offered.empty() ? std::string("none") : offered) + ")"));
    }
  }
  return std::unique_ptr<PluginSut>(
      new PluginSut(path, handle, table, options.variant, variant_index, options.sut_name));
}

Result<std::unique_ptr<PluginSut>> LoadPluginSut(const std::string& spec) {
  PluginSut::Options options;
  std::string path = spec;
  const size_t separator = spec.rfind(kVariantSeparator);
  if (separator != std::string::npos && access(spec.c_str(), F_OK) != 0) {
    path = spec.substr(0, separator);
    options.variant = spec.substr(separator + 1);
    if (options.variant.empty())
      return Status::Invalid("plugin " + spec + ": no variant name after '#'");
  }
  return PluginSut::Load(path, options);
}

PluginSut::PluginSut(std::string path, void* handle, const convparity_plugin* table,
                     std::string variant, int32_t variant_index, std::string sut_name)
    : path_(std::move(path)),
      plugin_name_(OneLine(table->name, kMaxNameBytes)),
      handle_(handle),
      table_(table),
      variant_(std::move(variant)),
      variant_index_(variant_index),
      sut_name_(std::move(sut_name)),
      capabilities_(WithinTable(*DeclarationOf(table, variant_index),  // CheckTable read it
                                table)) {}

PluginSut::~PluginSut() { dlclose(handle_); }

std::string PluginSut::name() const {
  if (!sut_name_.empty()) return sut_name_;
  return kPluginSutPrefix + path_ + (variant_.empty() ? "" : kVariantSeparator + variant_);
}

int PluginSut::abi_version() const { return table_->abi_version; }

std::vector<std::string> PluginSut::variant_names() const {
  if (table_->abi_version < 2) return {};
  Result<std::vector<std::string>> names = VariantNames(table_);
  return names.ok() ? *names : std::vector<std::string>{};
}

uint32_t PluginSut::directions() const { return table_->directions; }

bool PluginSut::Implements(Direction d) const {
  return (table_->directions & DirectionBit(d)) != 0;
}

std::string PluginSut::MessageOfPlugin() const {
  if (table_->last_message == nullptr) return "";
  const char* m = table_->last_message();
  if (m == nullptr || m[0] == '\0') return "";
  return " (" + OneLine(m, kMaxMessageBytes) + ")";
}

std::string PluginSut::model_format() const {
  return ReadsModels(table_) ? OneLine(table_->model_format, 32) : "";
}

Status PluginSut::RunModel(const ConvProblem& p, Direction d, const std::string& spelling,
                           const std::string& model, const float* input, const Shape& input_shape,
                           float* output, const Shape& output_shape, Shape* result_shape) {
  last_notes_ = RunNotes{};
  result_shape->clear();
  if (!ReadsModels(table_)) return Status::Internal(plugin_name_ + " reads no models");
  if (!Implements(d))
    return Status::Unsupported(plugin_name_ + " does not implement " + DirectionName(d));
  if (input_shape.size() > CONVPARITY_MAX_MODEL_RANK ||
      output_shape.size() > CONVPARITY_MAX_MODEL_RANK)
    return Status::Unsupported("a model tensor has more than " +
                               std::to_string(CONVPARITY_MAX_MODEL_RANK) + " axes");
  CP_RETURN_IF_ERROR(Validate(p));
  convparity_problem s = PluginStructFromProblem(p);
  s.variant = variant_index_;
  convparity_model m{};
  m.struct_size = sizeof m;
  m.format = table_->model_format;
  m.bytes = model.data();
  m.size = model.size();
  s.spelling = m.spelling = spelling.c_str();
  m.input_name = d == Direction::kBackwardData ? kGradOutputVar : kInputVar;  // ModelInputVar
  m.input_rank = static_cast<int32_t>(input_shape.size());
  std::copy(input_shape.begin(), input_shape.end(), m.input_shape);
  m.input = input;
  m.output_name = "y";
  m.output_rank = static_cast<int32_t>(output_shape.size());
  std::copy(output_shape.begin(), output_shape.end(), m.output_shape);
  m.output = output;
  const int code = table_->run_model(&s, &m);
  if (code == CONVPARITY_UNSUPPORTED)
    return Status::Unsupported(plugin_name_ + " refused the model" + MessageOfPlugin());
  if (code != CONVPARITY_OK)
    return Status::Internal("plugin returned code " + std::to_string(code) + MessageOfPlugin());
  if (m.result_rank > 0 && m.result_rank <= CONVPARITY_MAX_MODEL_RANK)
    result_shape->assign(m.result_shape, m.result_shape + m.result_rank);
  NoteLastRun();
  return Status::Ok();
}

void PluginSut::NoteLastRun() {
  if (table_->abi_version < 2 || table_->describe_last_run == nullptr) return;
  convparity_run_notes notes{};
  notes.struct_size = sizeof notes;
  table_->describe_last_run(&notes);
  last_notes_.inexact = notes.inexact != 0;
  if (notes.implementation != nullptr)
    last_notes_.implementation = OneLine(notes.implementation, kMaxImplementationBytes);
}

Status PluginSut::Run(const ConvProblem& p, Direction d, const ConvBuffers& b) {
  return RunSpelled(p, d, Spelling{}, b);
}

Status PluginSut::RunSpelled(const ConvProblem& p, Direction d, const Spelling& spelling,
                             const ConvBuffers& b) {
  last_notes_ = RunNotes{};
  if (ReadsModels(table_))
    return Status::Unsupported(plugin_name_ + " reads " + model_format() +
                               " models, not buffers (convparity runs it as a model reader)");
  if (!Implements(d))
    return Status::Unsupported(plugin_name_ + " does not implement " + DirectionName(d));
  CP_RETURN_IF_ERROR(Validate(p));
  const bool reads_x = d != Direction::kBackwardData, reads_w = d != Direction::kBackwardWeight;
  const bool reads_dy = d != Direction::kForward, reads_b = d == Direction::kForward && p.bias;
  if ((reads_x && !b.input) || (reads_w && !b.weight) || (reads_dy && !b.grad_output) ||
      (reads_b && !b.bias) || !b.result)
    return Status::Internal(std::string("a buffer that ") + DirectionName(d) + " reads is missing");

  const std::string spelling_text = SpellingText(spelling);  // outlives the call below
  convparity_problem s = PluginStructFromProblem(p);
  s.variant = variant_index_;
  s.spelling = spelling_text.c_str();
  const std::vector<int> data_order = DataMemoryOrder(p), weight_order = WeightMemoryOrder(p);
  const PyTorchOrder x(reads_x ? b.input : nullptr, p.input_shape(), data_order);
  const PyTorchOrder w(reads_w ? b.weight : nullptr, p.weight_shape(), weight_order);
  const PyTorchOrder dy(reads_dy ? b.grad_output : nullptr, p.output_shape(), data_order);
  PyTorchOrder result(b.result, ResultShape(p, d), ResultMemoryOrder(p, d));

  int code = CONVPARITY_ERROR;
  switch (d) {
    case Direction::kForward:
      code = table_->forward(&s, x.data(), w.data(), reads_b ? b.bias : nullptr,
                             result.mutable_data());
      break;
    case Direction::kBackwardData:
      code = table_->backward_data(&s, dy.data(), w.data(), result.mutable_data());
      break;
    case Direction::kBackwardWeight:
      code = table_->backward_weight(&s, x.data(), dy.data(), result.mutable_data());
      break;
  }
  if (code == CONVPARITY_UNSUPPORTED)
    return Status::Unsupported(plugin_name_ + " declined the configuration" + MessageOfPlugin());
  if (code != CONVPARITY_OK)
    return Status::Internal("plugin returned code " + std::to_string(code) + MessageOfPlugin());
  result.WriteBack(b.result);
  NoteLastRun();
  return Status::Ok();
}

}  // namespace convparity
