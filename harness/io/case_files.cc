#include "harness/io/case_files.h"

#include <algorithm>
#include <filesystem>

#include "harness/io/files.h"

namespace convparity {

Result<CaseFiles> ReadCaseFiles(const std::vector<std::string>& paths) {
  namespace fs = std::filesystem;
  std::vector<std::string> files;
  for (const std::string& path : paths) {
    std::error_code ec;
    if (fs::is_directory(path, ec)) {
      std::vector<std::string> found;
      for (auto it = fs::recursive_directory_iterator(path, ec);
           !ec && it != fs::recursive_directory_iterator(); it.increment(ec))
        if (it->is_regular_file(ec) && it->path().extension() == ".json")
          found.push_back(it->path().string());
      if (ec) return Status::Invalid(path + ": " + ec.message());
      std::sort(found.begin(), found.end());
      files.insert(files.end(), found.begin(), found.end());
    } else if (fs::is_regular_file(path, ec)) {
      files.push_back(path);
    } else {
      return Status::Invalid(path + ": no such file or folder");
    }
  }
  CaseFiles read;
  for (const std::string& file : files) {
    Result<std::string> text = ReadFile(file);  // its errors name the file
    if (!text.ok()) {
      read.unread.push_back({file, text.status()});
      continue;
    }
    Result<ConvCase> c = ParseCaseText(*text);
    if (!c.ok()) {
      read.unread.push_back({file, c.status().WithContext(file)});
      continue;
    }
    read.cases.push_back({file, *c});
  }
  return read;
}

Result<std::vector<LoadedCase>> LoadCaseFiles(const std::vector<std::string>& paths) {
  Result<CaseFiles> read = ReadCaseFiles(paths);
  if (!read.ok()) return read.status();
  if (!read->unread.empty()) return read->unread.front().status;
  return std::move(read).value().cases;
}

}  // namespace convparity
