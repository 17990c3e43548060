// What an import of another tool's problems read, imported and skipped (why, how often, where
// first), and the cases it wrote: the summary of `convparity import-benchdnn` (benchdnn_import.h)
// and `convparity import-onnx` (onnx_import.h).
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <utility>

namespace convparity {

// How often a reason came up, and its first occurrence.
struct TallyEntry {
  int64_t count = 0;
  std::string where;  // benchdnn: "file:line", then " via file:line" for each include, innermost
                      // first; ONNX: "file node N"
  std::string what;   // what was there (the token, the option's value), or why it is ignored
};

struct ImportTally {
  int64_t read = 0;      // problems read (benchdnn: descriptors × their option combinations)
  int64_t imported = 0;  // problems imported (benchdnn: a run may give two layouts or directions)
  // "category: detail" → count; the categories are each reader's (its header lists them).
  std::map<std::string, TallyEntry> skipped;
  // "--option" → count; `what` says why it does not change the convolution (benchdnn).
  std::map<std::string, TallyEntry> ignored;
  // "category: detail" → count: imported otherwise than written, with the same arithmetic or a
  // size the model left open (ONNX: a spelling that does not fit as explicit pads, a dynamic batch
  // as 1).
  std::map<std::string, TallyEntry> changed;

  int64_t SkippedTotal() const {
    int64_t n = 0;
    for (const auto& [reason, entry] : skipped) n += entry.count;
    return n;
  }

  void Merge(const ImportTally& other) {
    read += other.read;
    imported += other.imported;
    for (auto [mine, theirs] :
         {std::make_pair(&skipped, &other.skipped), std::make_pair(&ignored, &other.ignored),
          std::make_pair(&changed, &other.changed)}) {
      for (const auto& [key, entry] : *theirs) {
        TallyEntry& e = (*mine)[key];
        if (e.count == 0) e = {0, entry.where, entry.what};
        e.count += entry.count;
      }
    }
  }
};

// A reason with its numbers as N ("descriptor: ic N is not a multiple of g N"): one kind of reason
// is one line of a tally.
inline std::string NumbersAsN(const std::string& reason) {
  std::string s;
  for (char c : reason) {
    if (c < '0' || c > '9') {
      s += c;
    } else if (s.empty() || s.back() != 'N') {
      s += 'N';
    }
  }
  return s;
}

struct WrittenCases {
  int64_t written = 0;   // one per (problem, direction, fill)
  int64_t distinct = 0;  // files: equal cases share one (content-hash names)
};

}  // namespace convparity
