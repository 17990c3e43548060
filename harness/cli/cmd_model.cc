// `convparity model`: a case as the model files that show it, for handing a finding over to a
// frontend's maintainers in their own format.
#include <cstdio>
#include <filesystem>
#include <nlohmann/json.hpp>

#include "core/descriptor.h"
#include "harness/cli/commands.h"
#include "harness/engine/check_case.h"
#include "harness/io/case_files.h"
#include "harness/io/files.h"
#include "harness/models/model_formats.h"
#include "harness/models/model_graph.h"

namespace convparity {

int RunModel(const std::string& case_path, const Flags& f, const CheckContext& context) {
  Result<std::vector<LoadedCase>> loaded = LoadCaseFiles({case_path});
  if (!loaded.ok()) return Fail(loaded.status());
  if (loaded->size() != 1)
    return Fail(Status::Invalid(case_path + ": holds " + std::to_string(loaded->size()) +
                                " cases; model writes one"));
  const ConvCase& c = loaded->front().c;
  if (Status st = CheckCaseLimits(c, context.limits).WithContext(case_path); !st.ok())
    return Fail(st);
  const PreparedCase prepared = PrepareInputs(c, context);
  if (prepared.ended) return Fail(Status::Invalid(case_path + ": " + prepared.ended->reason));
  const CaseMemory memory = InMemoryOrder(c.problem, c.direction, *c.graph, prepared.inputs);

  std::vector<const ModelFormat*> formats;
  for (const std::string& name : f.model_formats) formats.push_back(FindModelFormat(name));
  if (formats.empty())
    for (const ModelFormat& format : ModelFormats()) formats.push_back(&format);
  namespace fs = std::filesystem;
  int written = 0;
  for (const ModelFormat* format : formats) {
    Result<std::string> model =
        format->write(c.problem, *c.graph, c.direction, c.spelling, memory.buffers);
    Result<ModelFiles> files = model.ok() ? format->files(*model) : model.status();
    if (!files.ok()) {
      std::printf("%s: not written: %s\n", format->name, files.status().message().c_str());
      continue;
    }
    const fs::path dir = fs::path(f.out) / format->name;
    std::error_code ec;
    fs::create_directories(dir, ec);
    for (const auto& [name, bytes] : *files) {
      if (Status st = WriteFileAtomically((dir / name).string(), bytes); !st.ok()) return Fail(st);
      std::printf("%s\n", (dir / name).c_str());
    }
    ++written;
  }
  if (written == 0) return Fail(Status::Unsupported(case_path + ": no format writes this case"));

  // The input every format's model reads, as its bytes.
  const std::string var = ModelInputVar(c.direction);
  for (const CaseVar& v : CaseVars(*c.graph, c.problem, c.direction)) {
    if (v.name != var) continue;
    const Shape shape = MemoryShape(v.shape, v.memory_order);
    const float* values = memory.buffers.Get(var);
    const std::string bytes(reinterpret_cast<const char*>(values),
                            static_cast<size_t>(NumElements(shape)) * sizeof(float));
    const nlohmann::json info = {{"name", var},
                                 {"shape", shape},
                                 {"dtype", "float32"},
                                 {"file", "input.bin"},
                                 {"case", CaseDescriptor(c.problem, c.direction)},
                                 {"spelling", SpellingText(c.spelling)}};
    for (const auto& [name, content] :
         {std::pair<std::string, std::string>{"input.bin", bytes}, {"input.json", info.dump(1)}}) {
      const std::string path = (fs::path(f.out) / name).string();
      if (Status st = WriteFileAtomically(path, content); !st.ok()) return Fail(st);
      std::printf("%s\n", path.c_str());
    }
  }
  return 0;
}

}  // namespace convparity
