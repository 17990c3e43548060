// `convparity import-benchdnn <file>…`: benchdnn problem lists (conv and deconv) into case files.
#include <cstdio>

#include "harness/io/benchdnn_import.h"
#include "harness/cli/commands.h"

namespace convparity {

int RunImportBenchdnn(const std::vector<std::string>& files, const CommonFlags& f,
                      const ScaleOptions& scale) {
  Result<std::vector<Direction>> dirs = DirectionsFor(f.directions);
  if (!dirs.ok()) return Fail(dirs.status());
  Result<std::vector<Fill>> fills = FillsFor(f.fill);
  if (!fills.ok()) return Fail(fills.status());
  if (f.suts.size() > 1) return Fail(Status::Invalid("import-benchdnn: give at most one --sut"));
  const std::string sut = f.suts.empty() ? "direct" : f.suts[0];
  const std::string out = f.corpus.empty() ? f.out + "/corpus" : f.corpus;
  int written = 0;
  size_t problems = 0;
  for (const std::string& file : files) {
    std::vector<std::string> skipped;
    Result<std::vector<BenchdnnProblem>> read = ImportBenchdnnFile(file, &skipped);
    if (!read.ok()) return Fail(read.status());
    std::vector<BenchdnnProblem> imported = std::move(read).value();
    std::vector<BenchdnnProblem> kept;
    for (BenchdnnProblem& b : imported) {
      b.problem = ScaleDown(b.problem, scale);
      // ScaleDown keeps kernels; a problem whose kernel alone is over the budget stays too big.
      if (scale.max_macs > 0 && b.problem.macs() > scale.max_macs)
        skipped.push_back(b.source + ":" + std::to_string(b.line) + ": still " +
                          std::to_string(b.problem.macs()) + " MACs after scaling (" + b.name + ")");
      else
        kept.push_back(std::move(b));
    }
    imported = std::move(kept);
    for (const std::string& why : skipped) std::fprintf(stderr, "skipped %s\n", why.c_str());
    Result<int> n = WriteImportedCases(imported, dirs->empty() ? AllDirections() : *dirs, *fills,
                                       sut, out, f.seed);
    if (!n.ok()) return Fail(n.status());
    written += *n;
    problems += imported.size();
  }
  std::printf("%zu problems, %d cases written to %s\n", problems, written, out.c_str());
  return kExitParity;
}

}  // namespace convparity
