// What went wrong in a failed result (issue 24, "one bucket per cause"): the symptom that, with the
// direction, buckets a failed discrepancy before its features do (core/features.h
// BucketSignature), so that one cause shown by many different minimal cases is one finding.
// Told from the wrong elements (those the judge counts as mismatches), the reference, its
// magnitudes A and the result (docs/TRIAGE.md):
//
// - precision: every wrong element is finite and within what summing its K terms in a type
//   narrower than float32 explains: the random-mode bound c·u·√K·A_i (judge.h ErrorBound) with
//   bfloat16's unit roundoff u = 2^-8, the coarsest of the narrow types (float16 and TF32 fit
//   within it). NOTE: an exact fill's partial sums are integers, which bfloat16 holds exactly up
//   to 2^8: an element whose A_i is at most 2^8 cannot lose precision, so its error is never one.
// - wrong: any other failure: whole wrong values, NaN or infinity.
//
// NOTE: zeros (every wrong element 0) and permuted values (the reference's values in other
// places) were symptoms too, and were dropped: told on a minimal case's one or two elements of
// small integers they are coincidences as often as causes, and split one cause in two (measured:
// a one-too-large bug's wrong value of 0 where the reference was -1; tvm-9954's minimal cases,
// some of whose two wrong values happened to be each other's).
#pragma once

#include <cstdint>
#include <vector>

#include "core/tensor.h"
#include "core/verdict.h"
#include "harness/engine/judge.h"

namespace convparity {

// Unit roundoff of bfloat16 (8 significant bits) and the largest integer range it holds exactly.
constexpr double kNarrowUnitRoundoff = 1.0 / 256;
constexpr double kNarrowExactIntegers = 256;

// The symptom of a result that Judge() found failed, from the same arguments. `magnitude` may be
// empty (an exact fill's magnitudes were not computed): no element then counts as a precision
// loss.
Symptom ClassifySymptom(const Shape& reference_shape, const std::vector<double>& reference,
                        const std::vector<double>& magnitude, const HostTensor& got,
                        Comparison comparison, int64_t reduction_length,
                        const ErrorBound& bound = {});

}  // namespace convparity
