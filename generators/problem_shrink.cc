#include "generators/problem_shrink.h"

#include <algorithm>

#include "core/problem_fields.h"

namespace convparity {
namespace {

// Smaller values of `v` down to `floor`: the floor first, then half way, then one less.
std::vector<int64_t> Smaller(int64_t v, int64_t floor) {
  std::vector<int64_t> out;
  for (int64_t c : {floor, floor + (v - floor) / 2, v - 1})
    if (c >= floor && c < v && std::find(out.begin(), out.end(), c) == out.end()) out.push_back(c);
  return out;
}

}  // namespace

std::vector<ConvProblem> ReductionsOf(const ConvProblem& p, Reduction kind) {
  std::vector<ConvProblem> out;
  const int64_t in_g = p.in_channels / p.groups, out_g = p.out_channels / p.groups;
  ConvProblem q = p;
  switch (kind) {
    case Reduction::kDropDimension:
      for (int drop = 0; p.rank > 1 && drop < p.rank; ++drop) {
        q = p;
        q.rank = p.rank - 1;
        for (const IntegerField& f : kIntegerFields) {
          if (!f.sizes) continue;
          Dims& d = q.*f.sizes;
          for (int i = drop; i + 1 < kMaxSpatialRank; ++i) d[i] = d[i + 1];
          d[kMaxSpatialRank - 1] = f.plain;
        }
        out.push_back(q);
      }
      break;
    case Reduction::kBatch:
      for (int64_t b : Smaller(p.batch, 1)) {
        q.batch = b;
        out.push_back(q);
      }
      break;
    case Reduction::kGroups:
      for (int64_t g : Smaller(p.groups, 1)) {
        q.groups = g;
        q.in_channels = g * in_g;
        q.out_channels = g * out_g;
        out.push_back(q);
      }
      break;
    case Reduction::kGroupsKeepingChannels:
      for (int64_t g : Smaller(p.groups, 1)) {
        if (p.in_channels % g != 0 || p.out_channels % g != 0) continue;
        q.groups = g;
        out.push_back(q);
      }
      break;
    case Reduction::kInChannelsPerGroup:
      for (int64_t c : Smaller(in_g, 1)) {
        q.in_channels = c * p.groups;
        out.push_back(q);
      }
      break;
    case Reduction::kOutChannelsPerGroup:
      for (int64_t c : Smaller(out_g, 1)) {
        q.out_channels = c * p.groups;
        out.push_back(q);
      }
      break;
    case Reduction::kSpatial:
      for (int i = 0; i < p.rank; ++i) {
        for (const IntegerField& f : kIntegerFields) {
          if (!f.sizes) continue;
          for (int64_t v : Smaller((p.*f.sizes)[i], f.plain)) {
            q = p;
            (q.*f.sizes)[i] = v;
            out.push_back(q);
          }
        }
      }
      break;
    case Reduction::kOptions: {
      const ConvProblem plain = PlainOptions(p);
#define CONVPARITY_PLAIN(field) \
  {                             \
    q = p;                      \
    q.field = plain.field;      \
    out.push_back(q);           \
  }
#define CONVPARITY_ENUM(field, ...) CONVPARITY_PLAIN(field)
#define CONVPARITY_SWITCH(field, ...) CONVPARITY_PLAIN(field)
#include "core/problem_fields.def"
#undef CONVPARITY_PLAIN
      break;
    }
    case Reduction::kTransposed:
      if (p.transposed) {  // ordinary is the plainer kind
        q.transposed = false;
        for (const IntegerField& f : kIntegerFields)
          if (f.transposed_only) (q.*f.sizes).fill(f.plain);
        q.weight_layout = q.natural_weight_layout();
        out.push_back(q);
      }
      break;
  }
  return out;
}

std::vector<ConvProblem> SimplerProblems(const ConvProblem& p) {
  std::vector<ConvProblem> out;
  // Structure first (dimensions, groups, channels, batch), then sizes, then plainer options, last
  // those that add work.
  for (Reduction kind :
       {Reduction::kDropDimension, Reduction::kGroups, Reduction::kInChannelsPerGroup,
        Reduction::kOutChannelsPerGroup, Reduction::kBatch, Reduction::kSpatial,
        Reduction::kOptions, Reduction::kTransposed, Reduction::kGroupsKeepingChannels})
    for (const ConvProblem& q : ReductionsOf(p, kind))
      if (q != p && Validate(q).ok() && std::find(out.begin(), out.end(), q) == out.end())
        out.push_back(q);
  return out;
}

rc::Shrinkable<ConvProblem> ShrinkableProblem(const ConvProblem& p) {
  return rc::shrinkable::shrinkRecur(
      p, [](const ConvProblem& v) { return rc::seq::fromContainer(SimplerProblems(v)); });
}

}  // namespace convparity
