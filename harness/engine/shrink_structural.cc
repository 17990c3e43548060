#include "harness/engine/shrink_structural.h"

#include <algorithm>
#include <chrono>
#include <set>
#include <string>

#include "core/descriptor.h"
#include "core/problem_fields.h"
#include "generators/problem_shrink.h"

namespace convparity {
namespace {

// A transposed problem's output_padding must stay below stride or dilation: a reduction of either
// takes output_padding down with it rather than becoming invalid.
void ClampOutputPadding(ConvProblem& p) {
  for (int i = 0; i < kMaxSpatialRank; ++i) {
    const int64_t limit = p.transposed && i < p.rank ? std::max(p.stride[i], p.dilation[i]) - 1 : 0;
    p.output_padding[i] = std::min(p.output_padding[i], limit);
  }
}

std::string KeyOf(const ConvCase& c) {
  return CaseDescriptor(c.problem, c.direction) + "/" + FillName(c.fill) + "/" + c.graph->name +
         "/" + AlgorithmName(c.algorithm) + "/" + SpellingText(c.spelling);
}

// A reduced problem keeps the case's spelling: an auto-pad mode's pads follow the new sizes, and a
// problem the spelling no longer fits is no candidate (the spelling's own reductions, each way to
// plain, are offered beside).
bool KeepsSpelling(const Spelling& s, ConvProblem& q) {
  ConformToSpelling(s, q);
  return CheckSpelling(s, q).ok();
}

// Reductions of several fields at once, tried once before the single ones: each accepted one saves
// single steps, and a step costs most where the verdict is a crash or a hang (a worker restart,
// the timeout). Not part of 1-minimality, which the single reductions decide.
std::vector<ConvCase> CoarseReductions(const ConvCase& c) {
  const ConvProblem& p = c.problem;
  std::vector<ConvCase> out;
  auto offer = [&](ConvProblem q, Fill fill) {
    ClampOutputPadding(q);
    if (!KeepsSpelling(c.spelling, q)) return;
    // A reduction never grows the work (a smaller input can make padding valid only where it was).
    if ((q == p && fill == c.fill) || !Validate(q).ok() || q.macs() > p.macs()) return;
    ConvCase r = c;
    r.problem = q;
    r.fill = fill;
    out.push_back(std::move(r));
  };
  std::vector<ConvProblem> one_dimension;  // only spatial dimension `keep`
  for (int keep = 0; p.rank > 1 && keep < p.rank; ++keep) {
    ConvProblem q = p;
    q.rank = 1;
    for (const IntegerField& f : kIntegerFields) {
      if (!f.sizes) continue;
      Dims& d = q.*f.sizes;
      const int64_t kept = d[keep];
      d.fill(f.plain);
      d[0] = kept;
    }
    one_dimension.push_back(q);
  }
  if (p.rank == 1) one_dimension.push_back(p);
  // The plainest problem of one dimension keeping its kernel and dilation (and perhaps its groups
  // and stride): one step where a bug needs only those.
  for (const ConvProblem& d : one_dimension) {
    for (bool keep_groups : {false, true}) {
      for (bool keep_stride : {false, true}) {
        ConvProblem q = PlainOptions(d);
        q.batch = 1;
        q.groups = keep_groups ? d.groups : 1;
        q.in_channels = q.out_channels = q.groups;
        q.pad_begin.fill(0);
        q.pad_end.fill(0);
        q.output_padding.fill(0);
        if (!keep_stride) q.stride.fill(1);
        // The smallest input the kernel fits in (never more than it had).
        q.input[0] = std::min(d.input[0], q.transposed ? 1 : q.dilation[0] * (q.kernel[0] - 1) + 1);
        offer(q, Fill::kExact);
      }
    }
  }
  for (const ConvProblem& q : one_dimension) offer(q, c.fill);
  ConvProblem q = p;
  q.batch = 1;
  q.groups = 1;
  q.in_channels = q.out_channels = 1;
  offer(q, c.fill);
  q = p;
  q.batch = 1;
  q.in_channels = q.out_channels = p.groups;
  offer(q, c.fill);
  offer(PlainOptions(p), Fill::kExact);
  q = p;
  q.pad_begin.fill(0);
  q.pad_end.fill(0);
  q.output_padding.fill(0);
  offer(q, c.fill);
  q = p;
  q.stride.fill(1);
  offer(q, c.fill);
  q = p;
  q.dilation.fill(1);
  offer(q, c.fill);
  return out;
}

}  // namespace

std::vector<ConvCase> CaseReductions(const ConvCase& c) {
  const ConvProblem& p = c.problem;
  std::vector<ConvCase> out;
  auto offer = [&](ConvProblem q) {
    ClampOutputPadding(q);
    if (!KeepsSpelling(c.spelling, q) || q == p || !Validate(q).ok()) return;
    ConvCase r = c;
    r.problem = q;
    if (std::find(out.begin(), out.end(), r) == out.end()) out.push_back(std::move(r));
  };
  for (Reduction kind :
       {Reduction::kDropDimension, Reduction::kBatch, Reduction::kGroups,
        Reduction::kInChannelsPerGroup, Reduction::kOutChannelsPerGroup, Reduction::kSpatial,
        Reduction::kOptions, Reduction::kTransposed, Reduction::kGroupsKeepingChannels})
    for (const ConvProblem& q : ReductionsOf(p, kind)) offer(q);
  // The case's own options, each to its plainest: each way of writing it, the convolution alone,
  // the direct algorithm, the exact fill.
  for (const SpellingField& f : SpellingFields()) {
    if (f.get(c.spelling) == 0) continue;
    ConvCase r = c;
    f.set(r.spelling, 0);
    out.push_back(std::move(r));
  }
  if (*c.graph != ConvForm()) {
    ConvCase r = c;
    r.graph = &ConvForm();
    r.transform.reset();  // the graphs a transform SUT built for the form
    out.push_back(std::move(r));
  }
  if (c.algorithm != Algorithm::kDirect) {
    ConvCase r = c;
    r.algorithm = Algorithm::kDirect;
    out.push_back(std::move(r));
  }
  if (c.fill != Fill::kExact) {
    ConvCase r = c;
    r.fill = Fill::kExact;
    out.push_back(std::move(r));
  }
  return out;
}

StructuralShrinkResult ShrinkToOneMinimal(const ConvCase& failing,
                                          const std::function<bool(const ConvCase&)>& holds,
                                          const StructuralShrinkBounds& bounds) {
  const auto start = std::chrono::steady_clock::now();
  auto seconds = [&] {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  };
  StructuralShrinkResult result;
  result.shrunk = failing;
  std::set<std::string> not_holding;
  // The coarse pass first (each of its reductions once), then the single ones to a fixpoint.
  for (int pass = 0; pass < 2; ++pass) {
    for (bool progress = true; progress;) {
      progress = false;
      const std::vector<ConvCase> candidates =
          pass == 0 ? CoarseReductions(result.shrunk) : CaseReductions(result.shrunk);
      for (const ConvCase& candidate : candidates) {
        const std::string key = KeyOf(candidate);
        if (not_holding.count(key) != 0) continue;
        if (result.calls >= bounds.max_calls ||
            (bounds.max_seconds > 0 && seconds() > bounds.max_seconds)) {
          result.bound_hit = true;
          result.seconds = seconds();
          return result;
        }
        ++result.calls;
        if (!holds(candidate)) {
          not_holding.insert(key);
          continue;
        }
        result.shrunk = candidate;
        result.steps.push_back(candidate);
        progress = true;
        break;
      }
    }
  }
  result.seconds = seconds();
  return result;
}

}  // namespace convparity
