#include "harness/io/files.h"

#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

#include "reports/json_values.h"

namespace convparity {
namespace {

// Test-only: $CONVPARITY_TEST_STALL_WRITE=k stops the k-th write of this process halfway for a
// minute, after a line on stderr naming the file, so that tests/cli/killed_campaign_test.sh can
// kill the process in the middle of a write (unaided, a campaign's writes take a few milliseconds
// of its first second, and no kill at a random moment lands in one).
bool StallThisWrite() {
  static const int stall_at = [] {
    const char* env = std::getenv("CONVPARITY_TEST_STALL_WRITE");
    return env ? std::atoi(env) : 0;
  }();
  static std::atomic<int> writes{0};
  return stall_at > 0 && ++writes == stall_at;
}

}  // namespace

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
    const bool stall = StallThisWrite();
    const size_t first = stall ? content.size() / 2 : content.size();
    out.write(content.data(), static_cast<std::streamsize>(first));
    if (stall) {
      out.flush();
      std::fprintf(stderr, "convparity: test stall in the middle of writing %s\n", temp.c_str());
      std::this_thread::sleep_for(std::chrono::seconds(60));
    }
    out.write(content.data() + first, static_cast<std::streamsize>(content.size() - first));
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

Status WriteCasePerDirectionAndFill(const std::string& dir, ConvCase c,
                                    const std::vector<Direction>& directions,
                                    const std::vector<Fill>& fills, std::set<std::string>* paths) {
  for (Direction d : directions)
    for (Fill fill : fills) {
      c.direction = d;
      c.fill = fill;
      Result<std::string> path = WriteCaseFile(dir, c);
      if (!path.ok()) return path.status();
      paths->insert(*path);
    }
  return Status::Ok();
}

Result<std::string> WriteCaseFile(const std::string& dir, const ConvCase& c) {
  const std::string path = dir + "/" + CaseFileName(c);
  CP_RETURN_IF_ERROR(WriteFileAtomically(path, JsonFileText(CaseToJson(c))));
  return path;
}

}  // namespace convparity
