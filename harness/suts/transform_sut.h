// Transform pipelines as systems under test: `transform:<pass>,<pass>,…` builds the graph of a case
// (core/graph.h ForwardGraph; for backward directions its first-order gradient), applies the passes
// of kernels/graph/passes.h in order, checks each pass's structural promise, and runs the result
// on our kernels (kernels/graph/interpreter.h). A transform is correct when that result matches the
// oracle's for the original convolution and every promise holds.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "core/conv_problem.h"
#include "core/features.h"
#include "core/status.h"
#include "core/sut.h"

namespace convparity {

constexpr const char* kTransformSutPrefix = "transform:";

bool IsTransformSutName(const std::string& name);

// `transform:<pipeline>`. The graph is the case's (core/case_graphs.h): the problem's convolution,
// or the graph of the case's form, its vars bound by name (core/sut.h CaseBuffers). The pipeline
// may start with a gradient (`gradient`, `gradient@<bug>`): backward directions are built by it
// (by `gradient` when none is named; forward ignores it). Then passes by name, buggy variants
// `<pass>@<bug-id>` included. The weights (%w, a form's own vars such as a chain's %w2) and the
// bias become constants, as frozen weights are, when the pipeline folds constants and the direction
// does not differentiate them; a depthwise problem with a multiplier gets its weight in the
// multiplier representation when the pipeline canonicalizes depthwise weights. It runs every graph
// form (core/sut.h Sut): a broken promise ends its run with the verdict broken_promise, an output
// of another shape with shape_mismatch. kInvalid for an unknown or empty pipeline. `display_name`
// is the name the SUT reports (e.g. known-bug:tvm-9954); empty: `name`.
Result<std::unique_ptr<Sut>> MakeTransformSut(const std::string& name,
                                              const std::string& display_name = "");

// The graph a pipeline starts from (the case's graph: core/case_graphs.h) and the graph it
// runs, as text (core/graph_printer.h), with the pipeline's steps (the gradient first for backward
// directions). For reports of transform findings.
struct TransformGraphs {
  std::vector<std::string> pipeline;
  std::string before, after;
};
Result<TransformGraphs> DescribeTransform(const std::string& sut, const ConvProblem& p, Direction d,
                                          const GraphForm& form = ConvForm());
// Adds the graph texts and the case's `transform` field (pipeline and starting graph) to a
// finding of a transform SUT (known-bug aliases included); leaves any other finding alone. The
// transform and known-bug families' describe_finding (sut_registry.h DescribeFinding).
void AddTransformGraphs(Finding& f);

// The transform SUT a name stands for: itself, or the pipeline of a known transform bug; "" for
// any other SUT.
std::string TransformSutOf(const std::string& name);

// The transform pipelines a default campaign checks, and every pass for `convparity list`.
std::vector<std::string> DefaultTransformSuts();
std::vector<std::pair<std::string, std::string>> ListTransforms();
// A pipeline of 1–3 distinct correct passes in random order, drawn from (seed, case index) alone,
// as a SUT name.
std::string RandomTransformSut(uint64_t seed, int64_t index);

}  // namespace convparity
