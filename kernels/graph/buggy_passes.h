// Faithful reproductions of historical compiler-transform bugs (docs/BUGS.md) as passes, registered
// as <pass>@<bug-id> by pass_registry.cc. Each is the correct pass exactly except on the path the
// original code took wrongly.
#pragma once

#include "core/graph.h"
#include "core/status.h"

namespace convparity {
namespace graph_pass {

Status LegalizeAsTvm9954(Graph& graph);
Status LowerConv1dAsTvm6203(Graph& graph);
Status LowerConv1dAsTvm7912(Graph& graph);
Status CanonicalizeDepthwiseAsTvm10294(Graph& graph);
Status FoldConstantsAsTvmLayoutFold(Graph& graph);

}  // namespace graph_pass
}  // namespace convparity
