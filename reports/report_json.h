// The discrepancy report, convparity.report/1 (docs/INTERFACES.md): one file per bucket, enough to
// understand, reproduce and file the bug. Its JSON Schema is schema/report.schema.json.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "core/conv_case.h"
#include "core/features.h"
#include "reports/python_snippet.h"

namespace convparity {

constexpr const char* kReportSchema = "convparity.report/1";
constexpr const char* kToolName = "convparity";

// What produced a file; every report and summary names it.
struct ToolInfo {
  std::string version;         // convparity's own
  std::string torch_version;   // the LibTorch the oracle linked
  std::string oracle_backend;  // the ATen backend of the oracle's float64 path
};

// The report of `f`. `case_file` is the minimized case's file as a user should type it (e.g. a
// path relative to the output directory); the report's `convparity repro` command names it. Empty:
// the command falls back to the descriptor form. Non-finite numbers are written as "inf", "-inf"
// or "nan" (reports/json_values.h). An empty f.bucket is computed from the minimized case.
// `snippet_values`: the minimized case's inputs and reference, for a PyTorch snippet that carries
// them (harness/io/report_values.h SnippetValuesOf); without them it uses random inputs.
// `repro_flags`: what the repro commands need besides the case to make its SUT again (a mapped
// name's --sut-map, a plugin's --allow-sut: SutConfig::ReproFlags), " --flag value" each.
nlohmann::json ReportJson(const Finding& f, const ToolInfo& tool, const std::string& case_file,
                          const SnippetValues* snippet_values = nullptr,
                          const std::string& repro_flags = "");

// `convparity repro '<descriptor>' --sut S --fill F --seed N`: the same inputs without a case file.
// It cannot carry a transform case's graph; those need the case file.
std::string DescriptorReproCommand(const ConvCase& c);

// The report's file name: readable, filesystem-safe ([A-Za-z0-9._-], no leading dot, at most ~160
// bytes), and stable — the bucket signature spelled safely plus a hash of the signature itself,
// so that two buckets that spell the same never share a file. Ends in ".json".
std::string ReportFileName(const Finding& f);

}  // namespace convparity
