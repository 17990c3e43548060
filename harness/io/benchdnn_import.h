// Importing oneDNN benchdnn conv and deconv batch files (tests/benchdnn/inputs/{conv,deconv}/, see
// ../shared/benchdnn/SOURCE.md) as ConvProblems, read as benchdnn reads them, and writing them as
// case files. `convparity import-benchdnn` is built on this API.
//
// The language (benchdnn_batch.h: comments, continuations, --batch includes), the option state
// (benchdnn_settings.h: comma lists run as products, --reset), the descriptor
// (benchdnn_descriptor.h) and the memory formats (benchdnn_layouts.h) each have their file. Here
// they meet: every descriptor is run once per combination of the options' values ("a problem
// read"), and each run is imported or skipped for one counted reason:
//   - --match: the run's reproducer line (driver, honoured options, the descriptor as benchdnn
//     prints it) does not match the pattern;
//   - data type: only f32 problems (--dt, --cfg) are imported, and a bias only in f32 (--bia-dt);
//   - descriptor: benchdnn itself rejects it; expressible: it needs padding no ConvProblem has,
//     or is not a legal convolution;
//   - layout: a format (--stag/--wtag/--dtag/--strides) with no ConvProblem layout;
//   - direction: a direction not asked for (ImportOptions::directions);
//   - size: over the MAC budget after scaling (ImportOptions::scale), or over the limits a check
//     replays cases within (ImportOptions::case_limits; --max-elements, --max-macs, --max-extent).
// --dir FWD_B / FWD_D / FWD_I are forward with / without a bias (a bias also with --bia-dt=f32),
// BWD_D backward-data, BWD_W / BWD_WB backward-weight without / with a bias, BWD_DW both backward
// directions. Without --dir a problem is imported with a bias for the writer's directions (all,
// by default), as before this reader honoured --dir. --mb replaces the batch; --alg=wino and auto
// mark the case's algorithm (core/conv_case.h). Options that do not change the convolution
// (attributes, implementation filters, …) are counted once per option. Anything malformed (an
// unknown option or key, a value benchdnn cannot parse, a missing include, an include cycle) is an
// error naming file:line.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/conv_case.h"
#include "core/conv_problem.h"
#include "core/status.h"
#include "harness/io/benchdnn_batch.h"
#include "harness/io/benchdnn_scale.h"
#include "harness/io/import_tally.h"

namespace convparity {

struct BenchdnnProblem {
  ConvProblem problem;
  std::optional<Direction> direction;  // from --dir; nullopt: none given (the writer's choice)
  Algorithm algorithm = Algorithm::kDirect;
  std::string name;    // the n"…" name without quotes (bytes outside printable ASCII → '?')
  int line = 0;        // 1-based line of the source
  std::string source;  // the file it came from ("<text>" when parsed from a string)
  std::vector<std::string> via;  // "file:line" of the --batch lines that led to `source`
  std::string descriptor;        // the benchdnn descriptor token as written
  std::string options;  // the run's honoured options in benchdnn's syntax ("--dir=BWD_D …")

  std::string Where() const { return source + ":" + std::to_string(line); }
  // "--conv --dir=BWD_D mb2ic4…": what benchdnn takes to run this problem.
  std::string Repro() const;
};

struct ImportOptions {
  std::optional<bool> deconv;         // the driver; nullopt: deconv when IsBenchdnnDeconvPath(file)
  std::vector<Direction> directions;  // runs of other directions are skipped; empty: all
  ScaleOptions scale;                 // applied to every imported problem
  // Of the check that is to replay the cases: none unless the caller names them (the command line
  // names check's own).
  Limits case_limits{INT64_MAX, INT64_MAX, INT64_MAX};
  BatchLimits limits;
  int64_t max_runs = int64_t{1} << 27;  // problems read, over all includes
  // Problems imported; about 1.7 kB each (oneDNN's test_conv_all, 250350 problems: 595 MB RSS).
  size_t max_problems = 500000;
};

struct BenchdnnImport {
  std::vector<BenchdnnProblem> problems;
  ImportTally tally;
};

// Reads batch text as if from file `source` (its folder resolves --batch includes).
Result<BenchdnnImport> ParseBenchdnnText(const std::string& text,
                                         const std::string& source = "<text>",
                                         const ImportOptions& options = {});
Result<BenchdnnImport> ImportBenchdnnFile(const std::string& path,
                                          const ImportOptions& options = {});

// True when a directory component of `path` is named `deconv` (benchdnn's inputs/deconv/).
bool IsBenchdnnDeconvPath(const std::string& path);

// Writes one case file per (problem, direction, fill) into out_dir (WriteCaseFile: atomic,
// content-hash names), with the given SUT and seed, note = "<name> (<source>:<line>)", the
// problem's algorithm and its origin. A problem's own direction is used when it has one, else
// each of `directions`.
Result<WrittenCases> WriteImportedCases(const std::vector<BenchdnnProblem>& problems,
                                        const std::vector<Direction>& directions,
                                        const std::vector<Fill>& fills, const std::string& sut,
                                        const std::string& out_dir, uint64_t seed);

}  // namespace convparity
