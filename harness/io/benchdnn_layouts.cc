#include "harness/io/benchdnn_layouts.h"

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <optional>
#include <utility>

namespace convparity {
namespace {

enum class Tensor { kSrc, kWei, kDst };

const char* TensorName(Tensor t) {
  return t == Tensor::kSrc ? "source" : t == Tensor::kWei ? "weights" : "destination";
}

// A memory order (logical axes, outermost first), or why there is none.
struct Order {
  std::vector<int> axes;
  std::string reason;
};

// The tensor's logical axes as benchdnn has them.
std::vector<int64_t> LogicalDims(Tensor t, const ConvProblem& p, bool grouped) {
  std::vector<int64_t> dims;
  if (t == Tensor::kWei) {
    if (grouped) dims.push_back(p.groups);
    dims.push_back(grouped ? p.out_channels / p.groups : p.out_channels);
    dims.push_back(grouped ? p.in_channels / p.groups : p.in_channels);
    for (int j = 0; j < p.rank; ++j) dims.push_back(p.kernel[j]);
    return dims;
  }
  const Dims out = p.output();
  dims = {p.batch, t == Tensor::kSrc ? p.in_channels : p.out_channels};
  for (int j = 0; j < p.rank; ++j) dims.push_back(t == Tensor::kSrc ? p.input[j] : out[j]);
  return dims;
}

Order TagOrder(const std::string& tag, Tensor t, int rank, bool grouped, size_t ndims) {
  const std::string what = std::string(TensorName(t)) + " tag " + tag;
  for (char c : tag)
    if (std::isupper(static_cast<unsigned char>(c)) || std::isdigit(static_cast<unsigned char>(c)))
      return {{}, "blocked " + what};
  if (tag == "undef") return {{}, what + " (no memory)"};
  std::vector<int> axes;
  const bool named = tag.find(t == Tensor::kWei ? 'o' : 'n') != std::string::npos;
  if (named) {  // oneDNN's names: nchw, hwio, goihw, …
    const std::string spatial = std::string("dhw").substr(3 - rank);
    const std::string names =
        (t == Tensor::kWei ? std::string(grouped ? "goi" : "oi") : std::string("nc")) + spatial;
    for (char c : tag) {
      const size_t at = names.find(c);
      if (at == std::string::npos) return {{}, what + " does not name this problem's axes"};
      axes.push_back(static_cast<int>(at));
    }
  } else {  // letters; a meta-tag's x stands for the letters after the last one it names
    const size_t xs = std::count(tag.begin(), tag.end(), 'x');
    if (xs > 1) return {{}, what + " has more than one x"};
    int last = 1;  // benchdnn starts x at c at the earliest
    for (char c : tag)
      if (c != 'x') last = std::max(last, c - 'a');
    for (char c : tag) {
      if (c != 'x') {
        // A meta-tag drops letters beyond the tensor's axes (benchdnn trims it to them).
        if (xs == 0 || c - 'a' < static_cast<int>(ndims)) axes.push_back(c - 'a');
        continue;
      }
      for (int a = last + 1; a < static_cast<int>(ndims); ++a) axes.push_back(a);
    }
  }
  // A permutation of all the tensor's axes, each once.
  std::vector<int> sorted = axes;
  std::sort(sorted.begin(), sorted.end());
  bool permutation = sorted.size() == ndims;
  for (size_t a = 0; permutation && a < sorted.size(); ++a)
    permutation = sorted[a] == static_cast<int>(a);
  if (!permutation) return {{}, what + " does not fit a " + std::to_string(ndims) + "-axis tensor"};
  return {axes, ""};
}

// The order whose dense strides these are (axes of size 1 may have any stride).
Order StridesOrder(const std::string& text, Tensor t, const std::vector<int64_t>& dims,
                   const std::vector<std::vector<int>>& candidates) {
  const std::string what = std::string(TensorName(t)) + " strides " + text;
  std::vector<int64_t> strides;
  for (size_t begin = 0; begin <= text.size();) {
    size_t end = text.find('x', begin);
    if (end == std::string::npos) end = text.size();
    int64_t v = 0;
    for (size_t i = begin; i < end; ++i) v = std::min<int64_t>(v * 10 + (text[i] - '0'), 1LL << 62);
    strides.push_back(v);
    begin = end + 1;
  }
  if (strides.size() != dims.size())
    return {{}, what + " do not fit a " + std::to_string(dims.size()) + "-axis tensor"};
  for (const std::vector<int>& order : candidates) {
    bool dense = true;
    int64_t expected = 1;
    for (size_t k = order.size(); k-- > 0;) {
      const size_t axis = static_cast<size_t>(order[k]);
      dense &= dims[axis] == 1 || strides[axis] == expected;
      expected *= dims[axis];
    }
    if (dense) return {order, ""};
  }
  return {{}, what + " are not dense in a layout we have (padded memory)"};
}

std::vector<int> DataOrder(DataLayout l, size_t ndims) {
  std::vector<int> order = {0};
  if (l == DataLayout::kChannelsFirst) order.push_back(1);
  for (size_t a = 2; a < ndims; ++a) order.push_back(static_cast<int>(a));
  if (l == DataLayout::kChannelsLast) order.push_back(1);
  return order;
}

// Our weight layout in benchdnn's weight axes. PyTorch's channel axis that holds the groups is O
// for an ordinary convolution (G outside O/g) and I for a transposed one.
std::vector<int> WeightOrder(WeightLayout l, const ConvProblem& p, bool grouped) {
  std::vector<int> o, i, s;
  const int first_spatial = grouped ? 3 : 2;
  for (int j = 0; j < p.rank; ++j) s.push_back(first_spatial + j);
  if (!grouped) {
    o = {0}, i = {1};
  } else if (!p.transposed) {
    o = {0, 1}, i = {2};
  } else {
    o = {1}, i = {0, 2};
  }
  std::vector<int> order;
  auto add = [&](const std::vector<int>& part) {
    order.insert(order.end(), part.begin(), part.end());
  };
  switch (l) {
    case WeightLayout::kOI:
      add(o), add(i), add(s);
      break;
    case WeightLayout::kIO:
      add(i), add(o), add(s);
      break;
    case WeightLayout::kSpatialIO:
      add(s), add(i), add(o);
      break;
    case WeightLayout::kOSpatialI:
      add(o), add(s), add(i);
      break;
  }
  return order;
}

// The data layouts a tag or strides allow for one tensor; nullopt when neither is given.
struct DataChoice {
  std::optional<std::vector<DataLayout>> allowed;
  std::string reason;
};

DataChoice DataLayoutsOf(const std::string& tag, const std::string& strides, Tensor t,
                         const ConvProblem& p) {
  const std::vector<int64_t> dims = LogicalDims(t, p, false);
  const std::vector<DataLayout> both = {DataLayout::kChannelsFirst, DataLayout::kChannelsLast};
  if (!tag.empty() && !strides.empty())
    return {std::nullopt, std::string(TensorName(t)) + " has both a tag and strides"};
  if (tag == "any") return {both, ""};
  Order order;
  if (!tag.empty()) {
    order = TagOrder(tag, t, p.rank, false, dims.size());
  } else if (!strides.empty()) {
    order = StridesOrder(strides, t, dims,
                         {DataOrder(both[0], dims.size()), DataOrder(both[1], dims.size())});
  } else {
    return {std::nullopt, ""};
  }
  if (!order.reason.empty()) return {std::nullopt, order.reason};
  for (DataLayout l : both)
    if (order.axes == DataOrder(l, dims.size())) return {std::vector<DataLayout>{l}, ""};
  return {std::nullopt, std::string(TensorName(t)) + " tag " + tag +
                            " is an order we cannot express (channels-first or -last only)"};
}

// "SRC:WEI:DST" → its three parts.
std::vector<std::string> StridesParts(const std::string& s) {
  std::vector<std::string> parts(3);
  if (s.empty()) return parts;
  const size_t a = s.find(':'), b = s.find(':', a + 1);
  parts[0] = s.substr(0, a);
  parts[1] = s.substr(a + 1, b - a - 1);
  parts[2] = s.substr(b + 1);
  return parts;
}

}  // namespace

BenchdnnLayouts LayoutsFor(const BenchdnnRun& run, const ConvProblem& p, bool grouped) {
  BenchdnnLayouts out;
  const std::vector<std::string> strides = StridesParts(run.strides);
  const DataChoice src = DataLayoutsOf(run.stag, strides[0], Tensor::kSrc, p);
  const DataChoice dst = DataLayoutsOf(run.dtag, strides[2], Tensor::kDst, p);
  if (!src.reason.empty() || !dst.reason.empty()) {
    out.reason = src.reason.empty() ? dst.reason : src.reason;
    return out;
  }
  if (!src.allowed && !dst.allowed) {
    out.data = {DataLayout::kChannelsFirst};
  } else {
    const std::vector<DataLayout> any = {DataLayout::kChannelsFirst, DataLayout::kChannelsLast};
    const std::vector<DataLayout>& a = src.allowed ? *src.allowed : any;
    const std::vector<DataLayout>& b = dst.allowed ? *dst.allowed : any;
    for (DataLayout l : a)
      if (std::find(b.begin(), b.end(), l) != b.end()) out.data.push_back(l);
    if (out.data.empty()) {
      out.reason = "the source and destination formats differ (" +
                   (run.stag.empty() ? strides[0] : run.stag) + ", " +
                   (run.dtag.empty() ? strides[2] : run.dtag) + "): one data layout only";
      return out;
    }
  }

  out.weight = p.natural_weight_layout();
  const std::string& wtag = run.wtag;
  if (!wtag.empty() && !strides[1].empty()) {
    out.data.clear();
    out.reason = "weights have both a tag and strides";
    return out;
  }
  if ((wtag.empty() || wtag == "any") && strides[1].empty()) return out;
  const std::vector<int64_t> dims = LogicalDims(Tensor::kWei, p, grouped);
  const WeightLayout layouts[] = {WeightLayout::kOI, WeightLayout::kIO, WeightLayout::kSpatialIO,
                                  WeightLayout::kOSpatialI};
  std::vector<std::vector<int>> candidates;
  for (WeightLayout l : layouts) candidates.push_back(WeightOrder(l, p, grouped));
  const Order order = wtag.empty() ? StridesOrder(strides[1], Tensor::kWei, dims, candidates)
                                   : TagOrder(wtag, Tensor::kWei, p.rank, grouped, dims.size());
  if (order.reason.empty()) {
    for (size_t k = 0; k < candidates.size(); ++k) {
      if (order.axes != candidates[k]) continue;
      out.weight = layouts[k];
      return out;
    }
  }
  out.data.clear();
  out.reason = order.reason.empty()
                   ? "weights tag " + wtag + " is an order we cannot express (oi…, io…, …io, o…i)"
                   : order.reason;
  return out;
}

}  // namespace convparity
