#include "harness/io/files.h"

#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "reports/json_values.h"

namespace convparity {

Status WriteFileAtomically(const std::string& path, const std::string& content) {
  namespace fs = std::filesystem;
  std::error_code ec;
  fs::path target(path);
  if (target.has_parent_path()) fs::create_directories(target.parent_path(), ec);
  if (ec)
    return Status::Invalid("cannot create " + target.parent_path().string() + ": " + ec.message());
  const std::string temp = path + ".tmp." + std::to_string(::getpid());
  {
    std::ofstream out(temp, std::ios::binary | std::ios::trunc);
    out << content;
    out.flush();
    if (!out) return Status::Invalid("cannot write " + temp);
  }
  fs::rename(temp, target, ec);
  if (ec) return Status::Invalid("cannot rename " + temp + " to " + path + ": " + ec.message());
  return Status::Ok();
}

Result<std::string> ReadFile(const std::string& path, size_t max_bytes) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return Status::Invalid(path + ": cannot open");
  std::string text;
  char buf[65536];
  while (in.read(buf, sizeof buf) || in.gcount() > 0) {
    text.append(buf, static_cast<size_t>(in.gcount()));
    if (text.size() > max_bytes)
      return Status::Limit(path + ": larger than " + std::to_string(max_bytes) + " bytes");
  }
  return text;
}

std::string CaseFileName(const ConvCase& c) {
  // FNV-1a over the canonical JSON: stable across machines, enough to collapse duplicates.
  uint64_t h = 0xcbf29ce484222325ull;
  for (unsigned char ch : JsonFileText(CaseToJson(c))) h = (h ^ ch) * 0x100000001b3ull;
  char name[32];
  std::snprintf(name, sizeof name, "%016llx.json", static_cast<unsigned long long>(h));
  return name;
}

Result<std::string> WriteCaseFile(const std::string& dir, const ConvCase& c) {
  const std::string path = dir + "/" + CaseFileName(c);
  CP_RETURN_IF_ERROR(WriteFileAtomically(path, JsonFileText(CaseToJson(c))));
  return path;
}

}  // namespace convparity
