#include "core/strict_json.h"

#include <algorithm>
#include <exception>
#include <set>
#include <utility>

#include "core/quote.h"

namespace convparity {

using nlohmann::json;

std::optional<uint64_t> WholeNumber(const json& v) {
  if (v.is_number_unsigned()) return v.get<uint64_t>();
  if (v.is_number_integer() && v.get<int64_t>() >= 0) return v.get<uint64_t>();
  return std::nullopt;
}

std::optional<std::string> FirstUnknownField(const json& object,
                                             const std::vector<std::string>& names) {
  if (!object.is_object()) return std::nullopt;
  for (const auto& item : object.items())
    if (std::find(names.begin(), names.end(), item.key()) == names.end()) return item.key();
  return std::nullopt;
}

std::string NameList(const std::vector<std::string>& names) {
  std::string list;
  for (const std::string& name : names) list += (list.empty() ? "" : ", ") + name;
  return list;
}

bool DeeperThan(const json& root, int limit) {
  std::vector<std::pair<const json*, int>> stack{{&root, 1}};
  while (!stack.empty()) {
    auto [v, depth] = stack.back();
    stack.pop_back();
    if (!v->is_structured()) continue;
    if (depth > limit) return true;
    for (const json& child : *v) stack.push_back({&child, depth + 1});
  }
  return false;
}

Result<json> ParseStrictJson(const std::string& text, int max_depth, const std::string& what) {
  std::vector<std::set<std::string>> keys;  // one set per open object
  std::string problem;
  auto callback = [&](int depth, json::parse_event_t event, json& parsed) {
    if (!problem.empty()) return false;  // already failed: build nothing more
    switch (event) {
      case json::parse_event_t::object_start:
      case json::parse_event_t::array_start:
        if (depth >= max_depth) {
          problem = "nests deeper than " + std::to_string(max_depth) + " levels";
          return false;
        }
        if (event == json::parse_event_t::object_start) keys.emplace_back();
        return true;
      case json::parse_event_t::object_end:
        if (!keys.empty()) keys.pop_back();
        return true;
      case json::parse_event_t::key:
        if (!keys.empty() && !keys.back().insert(parsed.get<std::string>()).second) {
          problem = "has a duplicate field " +
                    QuoteForMessage(parsed.get<std::string>(), QuoteEscapes::kJson);
          return false;
        }
        return true;
      default:
        return true;
    }
  };
  json j;
  try {
    j = json::parse(text, callback);
  } catch (const json::parse_error& e) {
    // e.what() is "[json.exception.parse_error.101] parse error at line L, column C: …".
    std::string message = e.what();
    size_t bracket = message.find("] ");
    if (message.rfind("[json.exception.", 0) == 0 && bracket != std::string::npos)
      message = message.substr(bracket + 2);
    // Its "last read" excerpt can hold a whole unterminated string.
    constexpr size_t kMaxMessage = 300;
    if (message.size() > kMaxMessage) message = message.substr(0, kMaxMessage) + "...";
    return Status::Invalid("malformed " + what + " JSON: " + message);
  } catch (const std::exception& e) {
    return Status::Invalid("malformed " + what + " JSON: " + e.what());
  }
  if (!problem.empty()) return Status::Invalid(what + " JSON " + problem);
  return j;
}

}  // namespace convparity
