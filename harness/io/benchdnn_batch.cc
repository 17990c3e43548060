#include "harness/io/benchdnn_batch.h"

#include <filesystem>
#include <map>
#include <system_error>
#include <utility>

#include "harness/io/files.h"

namespace convparity {
namespace {

namespace fs = std::filesystem;

constexpr const char* kBatchOption = "--batch=";

// std::istream's >> separates tokens at isspace() characters; benchdnn reads batch files with it.
bool IsSpace(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\v' || c == '\f' || c == '\r';
}

// A path for messages: printable ASCII, other bytes as '?', so an error stays one line.
std::string Printable(const std::string& s) {
  std::string out = s.substr(0, 200);
  for (char& c : out)
    if (static_cast<unsigned char>(c) < 0x20 || static_cast<unsigned char>(c) >= 0x7f) c = '?';
  return s.size() > 200 ? out + "..." : out;
}

class Walker {
 public:
  Walker(BatchVisitor& visitor, const BatchLimits& limits) : visitor_(visitor), limits_(limits) {}

  Status Text(const std::string& text, const std::string& source, std::vector<std::string> via) {
    CP_RETURN_IF_ERROR(Count(text.size(), source));
    Result<std::vector<BatchToken>> tokens = TokenizeBatch(text, source);
    if (!tokens.ok()) return tokens.status();
    return Tokens(*tokens, source, std::move(via));
  }

  Status File(const std::string& path, std::vector<std::string> via, const std::string& where) {
    auto loaded = loaded_.find(path);
    if (loaded == loaded_.end()) {
      Result<Loaded> fresh = Load(path, where);
      if (!fresh.ok()) return fresh.status();
      loaded = loaded_.emplace(path, std::move(*fresh)).first;
    }
    const Loaded& file = loaded->second;
    for (const std::string& open : open_files_) {
      if (open != file.key) continue;
      std::string chain;
      for (const std::string& step : via) chain += step + " -> ";
      return Status::Invalid(where + "including " + Printable(path) +
                             " again makes a cycle: " + Printable(chain + path));
    }
    if (open_files_.size() >= limits_.max_depth)
      return Status::Limit(where + "--batch nests deeper than " +
                           std::to_string(limits_.max_depth) + " files");
    CP_RETURN_IF_ERROR(Count(file.bytes, path));
    open_files_.push_back(file.key);
    Status st = Tokens(file.tokens, path, std::move(via));
    open_files_.pop_back();
    return st;
  }

  void Enter(const std::string& source) {
    std::error_code ec;
    const fs::path canonical = fs::weakly_canonical(source, ec);
    open_files_.push_back(ec ? source : canonical.string());
  }

 private:
  // A file as read once: a batch that includes it many times over (or a hostile one, 10^5 times)
  // costs a lookup per include, not a stat, a canonical path and a read.
  struct Loaded {
    std::string key;  // the canonical path, for the cycle check
    size_t bytes = 0;
    std::vector<BatchToken> tokens;
  };

  Result<Loaded> Load(const std::string& path, const std::string& where) {
    std::error_code ec;
    if (!fs::is_regular_file(path, ec))
      return Status::Invalid(where + Printable(path) +
                             (fs::exists(path, ec) ? ": not a file" : ": no such file"));
    const fs::path canonical = fs::weakly_canonical(path, ec);
    Result<std::string> text = ReadFile(path, limits_.max_file_bytes);
    if (!text.ok()) return Status(text.status().code(), where + text.status().message());
    Result<std::vector<BatchToken>> tokens = TokenizeBatch(*text, path);
    if (!tokens.ok()) return tokens.status();
    return Loaded{ec ? path : canonical.string(), text->size(), std::move(*tokens)};
  }

  // Every include counts its file's bytes again: the bound is on the text walked, not on the files.
  Status Count(size_t bytes, const std::string& source) {
    total_bytes_ += bytes;
    if (total_bytes_ > limits_.max_total_bytes)
      return Status::Limit(source + ": the batch reads more than " +
                           std::to_string(limits_.max_total_bytes) +
                           " bytes in all (a file included many times over?)");
    return Status::Ok();
  }

  Status Tokens(const std::vector<BatchToken>& tokens, const std::string& source,
                std::vector<std::string> via) {
    BatchPlace place{source, 0, std::move(via)};
    for (const BatchToken& token : tokens) {
      place.line = token.line;
      if (token.text.rfind(kBatchOption, 0) == 0) {
        CP_RETURN_IF_ERROR(Include(token.text.substr(std::string(kBatchOption).size()), place));
      } else {
        CP_RETURN_IF_ERROR(visitor_.Visit(token.text, place));
      }
    }
    return Status::Ok();
  }

  Status Include(const std::string& name, const BatchPlace& place) {
    const std::string where = place.Where() + ": --batch=" + Printable(name) + ": ";
    if (name.empty()) return Status::Invalid(place.Where() + ": --batch= names no file");
    if (++includes_ > limits_.max_includes)
      return Status::Limit(where + "more than " + std::to_string(limits_.max_includes) +
                           " --batch includes in all (a file included many times over?)");
    std::vector<std::string> via = place.via;
    via.push_back(place.Where());
    return File(Resolve(name, place.file), std::move(via), where);
  }

  // benchdnn looks for a relative name beside the including file, then in the current folder.
  std::string Resolve(const std::string& name, const std::string& including) {
    fs::path path = name;
    if (!path.is_relative()) return name;
    const fs::path beside = fs::path(including).parent_path() / path;
    auto known = resolved_.find(beside.string());
    if (known != resolved_.end()) return known->second;
    std::error_code ec;
    if (fs::exists(beside, ec) || !fs::exists(path, ec)) path = beside;
    return resolved_[beside.string()] = path.string();
  }

  BatchVisitor& visitor_;
  const BatchLimits& limits_;
  size_t total_bytes_ = 0;
  size_t includes_ = 0;
  std::vector<std::string> open_files_;          // the include chain, for the cycle check
  std::map<std::string, Loaded> loaded_;         // by the name as resolved
  std::map<std::string, std::string> resolved_;  // a relative name beside its file -> where found
};

}  // namespace

Result<std::vector<BatchToken>> TokenizeBatch(const std::string& text, const std::string& source) {
  std::vector<BatchToken> tokens;
  bool continued = false;
  int line = 1;
  size_t pos = 0;
  while (pos < text.size()) {
    if (IsSpace(text[pos])) {
      if (text[pos++] == '\n') ++line;
      continue;
    }
    const size_t begin = pos;
    while (pos < text.size() && !IsSpace(text[pos])) ++pos;
    std::string token = text.substr(begin, pos - begin);
    if (token.front() == '#') {  // a comment: the rest of the line
      while (pos < text.size() && text[pos] != '\n') ++pos;
      continue;
    }
    int token_line = line;
    if (continued) {
      if (tokens.empty())
        return Status::Invalid(source + ":" + std::to_string(line) +
                               ": a line continuation '\\' with nothing before it");
      token = tokens.back().text + token;
      token_line = tokens.back().line;
      tokens.pop_back();
    }
    continued = token.back() == '\\';
    if (continued) {
      token.pop_back();
      // A lone '\' continues the token before it; that token goes back on the list to be glued.
      if (token.empty()) {
        if (tokens.empty())
          return Status::Invalid(source + ":" + std::to_string(line) +
                                 ": a line continuation '\\' with nothing before it");
        continue;
      }
    }
    tokens.push_back({std::move(token), token_line});
  }
  return tokens;
}

Status WalkBatchFile(const std::string& path, BatchVisitor& visitor, const BatchLimits& limits) {
  Walker walker(visitor, limits);
  return walker.File(path, {}, "");
}

Status WalkBatchText(const std::string& text, const std::string& source, BatchVisitor& visitor,
                     const BatchLimits& limits) {
  Walker walker(visitor, limits);
  walker.Enter(source);
  return walker.Text(text, source, {});
}

}  // namespace convparity
