#include "generators/problem_shrink.h"

#include <algorithm>

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

std::vector<ConvProblem> SimplerProblems(const ConvProblem& p) {
  std::vector<ConvProblem> out;
  auto offer = [&](const ConvProblem& q) {
    if (q != p && Validate(q).ok() && std::find(out.begin(), out.end(), q) == out.end())
      out.push_back(q);
  };
  // Fewer spatial dimensions: drop any one of them.
  for (int drop = 0; p.rank > 1 && drop < p.rank; ++drop) {
    ConvProblem q = p;
    q.rank = p.rank - 1;
    for (Dims* d : {&q.input, &q.kernel, &q.stride, &q.pad_begin, &q.pad_end, &q.dilation,
                    &q.output_padding}) {
      for (int i = drop; i + 1 < kMaxSpatialRank; ++i) (*d)[i] = (*d)[i + 1];
      (*d)[kMaxSpatialRank - 1] = d == &q.pad_begin || d == &q.pad_end || d == &q.output_padding ? 0 : 1;
    }
    offer(q);
  }
  // Fewer groups (keeping channels per group), fewer channels per group, smaller batch.
  const int64_t in_g = p.in_channels / p.groups, out_g = p.out_channels / p.groups;
  for (int64_t g : Smaller(p.groups, 1)) {
    ConvProblem q = p;
    q.groups = g;
    q.in_channels = g * in_g;
    q.out_channels = g * out_g;
    offer(q);
  }
  for (int64_t c : Smaller(in_g, 1)) {
    ConvProblem q = p;
    q.in_channels = c * p.groups;
    offer(q);
  }
  for (int64_t c : Smaller(out_g, 1)) {
    ConvProblem q = p;
    q.out_channels = c * p.groups;
    offer(q);
  }
  for (int64_t b : Smaller(p.batch, 1)) {
    ConvProblem q = p;
    q.batch = b;
    offer(q);
  }
  // Per dimension: smaller sizes and plainer parameters.
  for (int i = 0; i < p.rank; ++i) {
    for (auto [field, floor] : {std::pair{&ConvProblem::input, int64_t{1}}, {&ConvProblem::kernel, 1},
                                {&ConvProblem::stride, 1}, {&ConvProblem::dilation, 1},
                                {&ConvProblem::pad_begin, 0}, {&ConvProblem::pad_end, 0},
                                {&ConvProblem::output_padding, 0}}) {
      for (int64_t v : Smaller((p.*field)[i], floor)) {
        ConvProblem q = p;
        (q.*field)[i] = v;
        offer(q);
      }
    }
  }
  // Plainer options.
  ConvProblem q = p;
  q.data_layout = DataLayout::kChannelsFirst;
  offer(q);
  q = p;
  q.weight_layout = p.natural_weight_layout();
  offer(q);
  q = p;
  q.bias = false;
  offer(q);
  q = p;
  q.transposed = !p.transposed;
  q.output_padding = {0, 0, 0};
  q.weight_layout = q.natural_weight_layout();
  if (p.transposed) offer(q);  // ordinary is the plainer kind
  return out;
}

rc::Shrinkable<ConvProblem> ShrinkableProblem(const ConvProblem& p) {
  return rc::shrinkable::shrinkRecur(p, [](const ConvProblem& v) {
    return rc::seq::fromContainer(SimplerProblems(v));
  });
}

}  // namespace convparity
