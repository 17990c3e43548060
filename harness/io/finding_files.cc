#include "harness/io/finding_files.h"

#include "harness/engine/tool_info.h"
#include "harness/io/files.h"
#include "harness/io/report_values.h"
#include "harness/suts/sut_registry.h"
#include "reports/json_values.h"
#include "reports/report_json.h"

namespace convparity {

Result<FindingFiles> WriteFinding(const Finding& found, const std::string& out,
                                  const std::string& corpus, const CheckContext& context) {
  Finding f = found;
  DescribeFinding(f);
  FindingFiles files;
  Result<std::string> case_path =
      WriteCaseFile(corpus.empty() ? out + "/corpus" : corpus, f.minimized);
  if (!case_path.ok()) return case_path.status();
  files.case_path = *case_path;
  files.report_path = out + "/reports/" + ReportFileName(f);
  const std::optional<SnippetValues> values = SnippetValuesOf(f.minimized, context);
  const nlohmann::json report =
      ReportJson(f, ToolInfoFor(f.minimized.problem), files.case_path, values ? &*values : nullptr,
                 context.suts.ReproFlags(f.minimized.sut));
  CP_RETURN_IF_ERROR(WriteFileAtomically(files.report_path, JsonFileText(report)));
  return files;
}

}  // namespace convparity
