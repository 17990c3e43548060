// The Relay-like text of a graph, for reports and test failures:
//
//   fn (%x: Tensor[(1, 4, 9, 9)], %w: Tensor[(8, 2, 3, 3)]) {
//     %2 = conv(%x, %w, groups=2, strides=[2, 2], padding=[1, 1, 1, 1], dilation=[1, 1],
//               data_layout="NCHW", kernel_layout="OIHW") /* ty=Tensor[(1, 8, 5, 5)] */
//     %2
//   }
//
// (one line per node). Vars are the parameters, by name; every other node is %<its index>. A const
// is a line `%i = meta[const][name] /* ty=… */`: its shape, never its values. Every attribute an op
// has is printed (padding as [begin…, end…]); the only ones left out are flags that are off
// (multiplier_weight, keepdims). Malformed graphs print too (an operand that is not an earlier node
// prints as %?<index>).
#pragma once

#include <string>

#include "core/graph.h"

namespace convparity {

std::string GraphText(const Graph& graph);

}  // namespace convparity
