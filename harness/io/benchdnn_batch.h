// benchdnn's batch-file language (oneDNN tests/benchdnn/doc/knobs_common.md, --batch), as benchdnn
// reads it: the text is a sequence of whitespace-separated tokens, each an option (`--dir=BWD_D`)
// or a problem descriptor, applied in order.
//   - a token that starts with `#` is a comment to the end of its line (a `#` inside a token is
//     not);
//   - a token ending in `\` is continued by the next token, glued on without a space (a lone `\`
//     glues its neighbours): `--attr-post-ops=, \` + `sum:0.5` is `--attr-post-ops=,sum:0.5`;
//   - `--batch=FILE` reads FILE's tokens in place, FILE relative to the including file's folder
//     (else to the current folder, as benchdnn also tries), recursively. The option state is one:
//     what an included file sets stays set after it.
// This file splits and includes; what the tokens mean is benchdnn_settings.h's and
// benchdnn_import.h's.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "core/status.h"

namespace convparity {

struct BatchToken {
  std::string text;
  int line = 0;  // 1-based, of the token's first part when continued
};

// Splits `text` into tokens. Errors (a continuation with nothing before it) name source:line.
Result<std::vector<BatchToken>> TokenizeBatch(const std::string& text, const std::string& source);

// Where a token is: its file and line, and the --batch lines that included that file.
struct BatchPlace {
  std::string file;
  int line = 0;
  std::vector<std::string> via;  // "file:line" of each --batch token, outermost first
  std::string Where() const { return file + ":" + std::to_string(line); }
};

// Receives every token but `--batch=…` (options and descriptors), in benchdnn's order.
class BatchVisitor {
 public:
  virtual ~BatchVisitor() = default;
  virtual Status Visit(const std::string& token, const BatchPlace& place) = 0;
};

// Bounds on what a batch (and a hostile one that includes a file many times over) may make us read.
struct BatchLimits {
  size_t max_file_bytes = size_t{16} << 20;
  size_t max_total_bytes = size_t{256} << 20;  // over all includes, repeated ones counted again
  size_t max_depth = 32;                       // nested --batch levels
  size_t max_includes = 100000;                // --batch tokens followed, in all
};

// Walks a file: its tokens, with includes read in place. A missing or unreadable file, an include
// cycle (a file that includes itself, directly or not), too deep a nesting or too much text is an
// error naming the --batch token's file:line. A visitor's error stops the walk.
Status WalkBatchFile(const std::string& path, BatchVisitor& visitor,
                     const BatchLimits& limits = {});
// The same for text read from `source` (a file name for messages; its folder resolves includes,
// the current folder for a name without one).
Status WalkBatchText(const std::string& text, const std::string& source, BatchVisitor& visitor,
                     const BatchLimits& limits = {});

}  // namespace convparity
