// Helpers shared by the benchdnn import tests: where the batch files are, and importing text.
#pragma once

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <string>

#include "harness/io/benchdnn_import.h"

namespace convparity {
namespace benchdnn_test {

namespace fs = std::filesystem;

// ctest sets CONVPARITY_SHARED; a test binary run by hand finds the folder beside the sources.
inline fs::path SharedDir() {
  if (const char* env = std::getenv("CONVPARITY_SHARED")) return env;
  return fs::path(__FILE__).parent_path() / "../../../shared";
}

// The source tree (tests/CMakeLists.txt defines it: __FILE__ may be relative to the build folder).
inline fs::path SourceDir() { return CONVPARITY_SOURCE_DIR; }

// Our own small batch files (tests/data/benchdnn/README.md).
inline fs::path DataDir() { return SourceDir() / "tests/data/benchdnn"; }

// Imports `text` as a file of the conv (or deconv) driver; fails the test on an error.
inline BenchdnnImport Import(const std::string& text, bool deconv = false,
                             ImportOptions options = {}) {
  options.deconv = deconv;
  Result<BenchdnnImport> r = ParseBenchdnnText(text, "t", options);
  EXPECT_TRUE(r.ok()) << r.status().message();
  return r.ok() ? r.value() : BenchdnnImport{};
}

// The error importing `text` gives ("" when it imports).
inline std::string ImportError(const std::string& text, bool deconv = false) {
  ImportOptions options;
  options.deconv = deconv;
  Result<BenchdnnImport> r = ParseBenchdnnText(text, "t", options);
  return r.ok() ? "" : r.status().message();
}

}  // namespace benchdnn_test
}  // namespace convparity
