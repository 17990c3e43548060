#include "harness/io/benchdnn_import.h"

#include <set>
#include <utility>

#include "harness/io/benchdnn_descriptor.h"
#include "harness/io/benchdnn_layouts.h"
#include "harness/io/benchdnn_settings.h"
#include "harness/io/files.h"
#include "reports/utf8.h"

namespace convparity {
namespace {

// "file:line", and the includes that led there.
std::string PlaceText(const BatchPlace& place) {
  std::string s = place.Where();
  if (place.via.empty()) return s;
  // Innermost first: "shapes_basic:13 via test_conv_ci:19 via test_conv_all:4".
  for (size_t i = place.via.size(); i-- > 0;) s += " via " + place.via[i];
  return s;
}

bool AllF32(const std::string& dt) {
  if (dt.empty()) return true;  // benchdnn's default
  for (size_t begin = 0;;) {
    const size_t colon = dt.find(':', begin);
    if (dt.compare(begin, colon - begin, "f32") != 0) return false;
    if (colon == std::string::npos) return true;
    begin = colon + 1;
  }
}

// One direction of a run, with or without a bias (nullopt: --dir not given).
struct Part {
  std::optional<Direction> direction;
  bool bias;
};

class Importer : public BatchVisitor {
 public:
  Importer(bool deconv, const ImportOptions& options) : deconv_(deconv), options_(options) {}

  Status Visit(const std::string& token, const BatchPlace& place) override {
    if (token[0] == '-') {
      Result<BenchdnnSettings::Applied> applied = settings_.Apply(token);
      if (!applied.ok()) return applied.status().WithContext(place.Where());
      if (applied->ignored) {
        TallyEntry& e = result.tally.ignored[applied->option];
        if (e.count++ == 0) e = {1, PlaceText(place), applied->why};
      }
      return Status::Ok();
    }
    return Descriptor(token, place);
  }

  BenchdnnImport result;

 private:
  Status Descriptor(const std::string& token, const BatchPlace& place) {
    Result<BenchdnnDesc> lexed = LexBenchdnnDesc(token, place.Where());
    if (!lexed.ok()) return lexed.status();
    BenchdnnDesc desc = *lexed;
    const int64_t runs = settings_.RunCount();
    if (runs > options_.max_runs - result.tally.read)
      return Status::Limit(place.Where() + ": more than " + std::to_string(options_.max_runs) +
                           " benchdnn problems in all (descriptors times option values)");
    result.tally.read += runs;
    if (!desc.oversized.empty()) {
      Skip("size: a value over 2^30", place, runs,
           [&] { return Said(token, "the value of '" + desc.oversized + "' is over 2^30"); });
      return Status::Ok();
    }
    if (const std::string why = DeduceBenchdnnDesc(desc, deconv_); !why.empty()) {
      Skip("descriptor: " + NumbersAsN(why), place, runs, [&] { return Said(token, why); });
      return Status::Ok();
    }
    settings_.ForEachRun([&](const BenchdnnRun& run) { Run(run, desc, token, place); });
    if (result.problems.size() > options_.max_problems)
      return Status::Limit(place.Where() + ": more than " + std::to_string(options_.max_problems) +
                           " problems imported; import fewer files at once");
    return Status::Ok();
  }

  static std::string Said(const std::string& token, const std::string& why) {
    return QuoteBenchdnnText(token) + ": " + why;
  }

  template <typename Message>
  void Skip(const std::string& key, const BatchPlace& place, int64_t n, Message message) {
    TallyEntry& e = result.tally.skipped[key];
    if (e.count == 0) e = {0, PlaceText(place), message()};
    e.count += n;
  }

  std::string Driver() const { return deconv_ ? "--deconv" : "--conv"; }

  void Run(const BenchdnnRun& run, const BenchdnnDesc& desc, const std::string& token,
           const BatchPlace& place) {
    const std::string options = run.Options();
    if (!settings_.match().empty() &&
        !settings_.Matches(Driver() + " " + options + (options.empty() ? "" : " ") +
                           BenchdnnShortForm(desc, run.mb))) {
      Skip("--match: not matched by " + settings_.match(), place, 1,
           [&] { return QuoteBenchdnnText(token) + " is filtered out"; });
      return;
    }
    if (!AllF32(run.dt)) {
      Skip("data type: " + run.dt, place, 1, [&] { return "--dt=" + run.dt; });
      return;
    }
    std::vector<Part> parts;
    const bool with_bias = !run.bia_dt.empty() && run.bia_dt != "undef";
    auto part = [&](Direction d, bool forced_bias) {
      parts.push_back({d, forced_bias || with_bias});
    };
    switch (run.dir.value_or(BenchdnnDir::kFwdB)) {
      case BenchdnnDir::kFwdB:
        parts.push_back(
            {run.dir ? std::optional<Direction>(Direction::kForward) : std::nullopt, true});
        break;
      case BenchdnnDir::kFwdD:
      case BenchdnnDir::kFwdI:
        part(Direction::kForward, false);
        break;
      case BenchdnnDir::kBwdD:
        parts.push_back({Direction::kBackwardData, false});
        break;
      case BenchdnnDir::kBwdW:
        part(Direction::kBackwardWeight, false);
        break;
      case BenchdnnDir::kBwdWB:
        part(Direction::kBackwardWeight, true);
        break;
      case BenchdnnDir::kBwdDW:
        parts.push_back({Direction::kBackwardData, false});
        part(Direction::kBackwardWeight, false);
        break;
    }
    // A bias the direction asks for is f32 whatever --bia-dt says (benchdnn warns); others are
    // the --bia-dt's.
    const bool direction_has_bias =
        !run.dir || *run.dir == BenchdnnDir::kFwdB || *run.dir == BenchdnnDir::kBwdWB;
    if (with_bias && !direction_has_bias && run.bia_dt != "f32" && run.dir != BenchdnnDir::kBwdD) {
      Skip("data type: bias " + run.bia_dt, place, 1, [&] { return "--bia-dt=" + run.bia_dt; });
      return;
    }

    BenchdnnDesc sized = desc;
    if (run.mb > 0) sized.mb = run.mb;
    const BenchdnnConversion converted = ProblemFromBenchdnnDesc(sized, deconv_);
    if (!converted.problem) {
      Skip("expressible: " + NumbersAsN(converted.reason), place, 1,
           [&] { return Said(token, converted.reason); });
      return;
    }
    const BenchdnnLayouts layouts = LayoutsFor(run, *converted.problem, desc.has_groups());
    if (!layouts.reason.empty()) {
      // Tags are names (aBx16b); strides are numbers, one reason whatever they are.
      const bool strides = layouts.reason.find("strides") != std::string::npos;
      Skip("layout: " + (strides ? NumbersAsN(layouts.reason) : layouts.reason), place, 1,
           [&] { return layouts.reason; });
      return;
    }
    if (!options_.directions.empty()) {
      std::vector<Part> asked;
      for (const Part& p : parts)
        if (!p.direction || std::find(options_.directions.begin(), options_.directions.end(),
                                      *p.direction) != options_.directions.end())
          asked.push_back(p);
      if (asked.empty()) {
        Skip(std::string("direction: ") + BenchdnnDirName(*run.dir) + " not asked for", place, 1,
             [&] { return "--dir=" + std::string(BenchdnnDirName(*run.dir)); });
        return;
      }
      parts = asked;
    }
    ConvProblem scaled = ScaleDown(*converted.problem, options_.scale);
    if (options_.scale.max_macs > 0 && scaled.macs() > options_.scale.max_macs) {
      // ScaleDown keeps kernels; a problem whose kernel alone is over the budget stays too big.
      Skip("size: over the MAC budget after scaling", place, 1, [&] {
        return Said(token, "still " + std::to_string(scaled.macs()) + " multiply-adds");
      });
      return;
    }
    // A case `check` would refuse is no case of its corpus: the import skips it, so that a
    // corpus replays whole with the same limits.
    if (Status st = CheckLimits(scaled, options_.case_limits); !st.ok()) {
      Skip("size: over the limits of a check (--max-elements, --max-macs, --max-extent)", place, 1,
           [&] { return Said(token, st.message()); });
      return;
    }
    ++result.tally.imported;
    BenchdnnProblem b;
    b.algorithm = run.alg.value_or(Algorithm::kDirect);
    b.name = CleanBenchdnnName(desc.name);
    b.line = place.line;
    b.source = place.file;
    b.via = place.via;
    b.descriptor = token;
    b.options = options;
    for (const Part& p : parts) {
      for (DataLayout layout : layouts.data) {
        b.problem = scaled;
        b.problem.bias = p.bias;
        b.problem.data_layout = layout;
        b.problem.weight_layout = layouts.weight;
        b.direction = p.direction;
        result.problems.push_back(b);
      }
    }
  }

  const bool deconv_;
  const ImportOptions& options_;
  BenchdnnSettings settings_;
};

}  // namespace

std::string BenchdnnProblem::Repro() const {
  return std::string(problem.transposed ? "--deconv " : "--conv ") + options +
         (options.empty() ? "" : " ") + descriptor;
}

Result<BenchdnnImport> ParseBenchdnnText(const std::string& text, const std::string& source,
                                         const ImportOptions& options) {
  Importer importer(options.deconv.value_or(IsBenchdnnDeconvPath(source)), options);
  if (text.size() > options.limits.max_file_bytes)
    return Status::Limit(source + ": larger than " + std::to_string(options.limits.max_file_bytes) +
                         " bytes");
  CP_RETURN_IF_ERROR(WalkBatchText(text, source, importer, options.limits));
  return std::move(importer.result);
}

Result<BenchdnnImport> ImportBenchdnnFile(const std::string& path, const ImportOptions& options) {
  Importer importer(options.deconv.value_or(IsBenchdnnDeconvPath(path)), options);
  CP_RETURN_IF_ERROR(WalkBatchFile(path, importer, options.limits));
  return std::move(importer.result);
}

bool IsBenchdnnDeconvPath(const std::string& path) {
  size_t begin = 0;
  for (size_t slash; (slash = path.find('/', begin)) != std::string::npos; begin = slash + 1)
    if (path.compare(begin, slash - begin, "deconv") == 0) return true;
  return false;  // the last component is the file's own name
}

Result<WrittenCases> WriteImportedCases(const std::vector<BenchdnnProblem>& problems,
                                        const std::vector<Direction>& directions,
                                        const std::vector<Fill>& fills, const std::string& sut,
                                        const std::string& out_dir, uint64_t seed) {
  if (sut.empty()) return Status::Invalid("a system under test is needed for the cases");
  WrittenCases count;
  std::set<std::string> paths;
  for (const BenchdnnProblem& bp : problems) {
    if (Status st = Validate(bp.problem); !st.ok()) return st.WithContext(bp.Where());
    ConvCase c;
    c.problem = bp.problem;
    c.sut = sut;
    c.seed = seed;
    c.algorithm = bp.algorithm;
    c.note = (bp.name.empty() ? std::string("benchdnn") : bp.name) + " (" + bp.Where() + ")";
    // Paths and descriptors may hold any bytes; case files are UTF-8.
    c.origin = {"benchdnn", ValidUtf8(bp.source), bp.line, bp.name, ValidUtf8(bp.Repro()), {}};
    for (const std::string& step : bp.via) c.origin.via.push_back(ValidUtf8(step));
    const std::vector<Direction> own = {bp.direction.value_or(Direction::kForward)};
    const std::vector<Direction>& ds = bp.direction ? own : directions;
    CP_RETURN_IF_ERROR(WriteCasePerDirectionAndFill(out_dir, c, ds, fills, &paths));
    count.written += static_cast<int64_t>(ds.size() * fills.size());
  }
  count.distinct = static_cast<int64_t>(paths.size());
  return count;
}

}  // namespace convparity
