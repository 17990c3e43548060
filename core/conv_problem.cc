#include "core/conv_problem.h"

#include <algorithm>
#include <sstream>

#include "core/problem_fields.h"

namespace convparity {
namespace {

std::string Join(const Dims& d, int rank, const char* sep = " x ") {
  std::ostringstream os;
  for (int i = 0; i < rank; ++i) os << (i ? sep : "") << d[i];
  return os.str();
}

// Multiplies with a saturating cap so that absurd sizes can be compared against limits safely.
int64_t SatMul(int64_t a, int64_t b) {
  constexpr int64_t kMax = int64_t{1} << 62;
  if (a <= 0 || b <= 0) return a * b <= 0 ? std::min<int64_t>(0, a * b) : 0;
  return a > kMax / b ? kMax : a * b;
}

int64_t SatProduct(const Shape& s) {
  int64_t n = 1;
  for (int64_t v : s) n = SatMul(n, v);
  return n;
}

const char* kSpatialNames[kMaxSpatialRank + 1] = {"", "w", "hw", "dhw"};

}  // namespace

int64_t ConvOutputSize(int64_t input, int64_t kernel, int64_t stride, int64_t pad_begin,
                       int64_t pad_end, int64_t dilation) {
  int64_t span = input + pad_begin + pad_end - dilation * (kernel - 1) - 1;
  if (span < 0) return 0;  // kernel larger than the padded input: no output
  return span / stride + 1;
}

int64_t ConvTransposeOutputSize(int64_t input, int64_t kernel, int64_t stride, int64_t pad_begin,
                                int64_t pad_end, int64_t dilation, int64_t output_padding) {
  return (input - 1) * stride - pad_begin - pad_end + dilation * (kernel - 1) + output_padding + 1;
}

Dims ConvProblem::output() const {
  Dims out{1, 1, 1};
  for (int i = 0; i < rank; ++i) {
    out[i] = transposed ? ConvTransposeOutputSize(input[i], kernel[i], stride[i], pad_begin[i],
                                                  pad_end[i], dilation[i], output_padding[i])
                        : ConvOutputSize(input[i], kernel[i], stride[i], pad_begin[i], pad_end[i],
                                         dilation[i]);
  }
  return out;
}

Shape ConvProblem::input_shape() const {
  Shape s{batch, in_channels};
  for (int i = 0; i < rank; ++i) s.push_back(input[i]);
  return s;
}

Shape ConvProblem::output_shape() const {
  Shape s{batch, out_channels};
  Dims o = output();
  for (int i = 0; i < rank; ++i) s.push_back(o[i]);
  return s;
}

Shape ConvProblem::weight_shape() const {
  int64_t g = std::max<int64_t>(groups, 1);
  Shape s =
      transposed ? Shape{in_channels, out_channels / g} : Shape{out_channels, in_channels / g};
  for (int i = 0; i < rank; ++i) s.push_back(kernel[i]);
  return s;
}

int64_t ConvProblem::macs() const {
  // Every (small-side position, kernel tap, channel pair) is one multiply-add; for a transposed
  // convolution the small side is its input.
  Shape small = transposed ? input_shape() : output_shape();
  int64_t n =
      SatMul(SatProduct(small), SatProduct(weight_shape()) /
                                    std::max<int64_t>(transposed ? in_channels : out_channels, 1));
  return n;
}

bool ConvProblem::operator==(const ConvProblem& o) const {
  // Spatial values past the rank are not part of the problem.
  auto same = [&](const Dims& a, const Dims& b) {
    return std::equal(a.begin(), a.begin() + std::clamp(rank, 0, kMaxSpatialRank), b.begin());
  };
  return true
#define CONVPARITY_FORM(field, ...) &&field == o.field
#define CONVPARITY_COUNT(field, ...) &&field == o.field
#define CONVPARITY_SIZES(field, ...) &&same(field, o.field)
#define CONVPARITY_ENUM(field, ...) &&field == o.field
#define CONVPARITY_SWITCH(field, ...) &&field == o.field
#include "core/problem_fields.def"
      ;
}

Status Validate(const ConvProblem& p) {
  if (p.rank < 1 || p.rank > kMaxSpatialRank)
    return Status::Invalid("rank must be 1, 2 or 3 spatial dimensions, but got " +
                           std::to_string(p.rank));
  for (const IntegerField& f : kIntegerFields)
    if (f.count && p.*f.count < f.plain)
      return Status::Invalid(std::string(f.name) + " " + f.rule + ", but got " +
                             std::to_string(p.*f.count));
  if (p.in_channels % p.groups != 0)
    return Status::Invalid("in_channels must be divisible by groups, but got in_channels=" +
                           std::to_string(p.in_channels) + " groups=" + std::to_string(p.groups));
  if (p.out_channels % p.groups != 0)
    return Status::Invalid("out_channels must be divisible by groups, but got out_channels=" +
                           std::to_string(p.out_channels) + " groups=" + std::to_string(p.groups));
  // Beyond 2^30 no value is a convolution anyone can run, and below it the shape math cannot
  // overflow.
  constexpr int64_t kMaxValue = int64_t{1} << 30;
  for (const IntegerField& f : kIntegerFields)
    if (f.count && p.*f.count > kMaxValue)
      return Status::Invalid(std::string(f.name) + " must be at most 2^30, but got " +
                             std::to_string(p.*f.count));
  for (const IntegerField& f : kIntegerFields) {
    if (!f.sizes) continue;
    const Dims& d = p.*f.sizes;
    for (int i = 0; i < p.rank; ++i)
      if (d[i] < f.plain || d[i] > kMaxValue)
        return Status::Invalid(std::string(f.name) + " " + f.rule + " and at most 2^30, but got " +
                               f.name + "=(" + Join(d, p.rank, ", ") + ")");
    for (int i = 0; f.transposed_only && !p.transposed && i < p.rank; ++i)
      if (d[i] != f.plain)
        return Status::Invalid(std::string(f.name) +
                               " is only for transposed convolution, but got " + f.name + "=(" +
                               Join(d, p.rank, ", ") + ")");
  }
  for (int i = 0; i < p.rank; ++i) {
    // ATen: output padding must be smaller than either stride or dilation.
    if (p.transposed && p.output_padding[i] >= std::max(p.stride[i], p.dilation[i]))
      return Status::Invalid(
          "output padding must be smaller than either stride or dilation, but got "
          "output_padding=(" +
          Join(p.output_padding, p.rank, ", ") + ") stride=(" + Join(p.stride, p.rank, ", ") +
          ") dilation=(" + Join(p.dilation, p.rank, ", ") + ")");
  }
  Dims out = p.output();
  for (int i = 0; i < p.rank; ++i) {
    if (!p.transposed &&
        p.input[i] + p.pad_begin[i] + p.pad_end[i] < p.dilation[i] * (p.kernel[i] - 1) + 1) {
      Dims padded, dilated;
      for (int j = 0; j < p.rank; ++j) {
        padded[j] = p.input[j] + p.pad_begin[j] + p.pad_end[j];
        dilated[j] = p.dilation[j] * (p.kernel[j] - 1) + 1;
      }
      return Status::Invalid("Calculated padded input size per channel: (" + Join(padded, p.rank) +
                             "). Kernel size: (" + Join(dilated, p.rank) +
                             "). Kernel size can't be greater than actual input size");
    }
    if (p.transposed && out[i] < 1)
      return Status::Invalid("Given input size per channel: (" + Join(p.input, p.rank) +
                             "). Calculated output size per channel: (" + Join(out, p.rank) +
                             "). Output size is too small");
  }
  Status known = Status::Ok();  // a value cast from a bad integer is outside its table
#define CONVPARITY_ENUM(field, type, values, default_value, meaning, ...) \
  if (known.ok() && !EntryOf(values, p.field)) known = Status::Invalid("unknown " meaning);
#include "core/problem_fields.def"
  return known;
}

Status CheckLimits(const ConvProblem& p, const Limits& limits) {
  CP_RETURN_IF_ERROR(Validate(p));  // bounds every value, so nothing below can overflow
  auto extent = [&](const char* what, int64_t v) -> Status {
    if (v <= limits.max_extent) return Status::Ok();
    return Status::Limit(std::string(what) + "=" + std::to_string(v) + " is over the limit of " +
                         std::to_string(limits.max_extent) + " (--max-extent)");
  };
  for (const IntegerField& f : kIntegerFields) {
    if (f.count) CP_RETURN_IF_ERROR(extent(f.name, p.*f.count));
  }
  for (int i = 0; i < std::min(p.rank, kMaxSpatialRank); ++i)
    for (const IntegerField& f : kIntegerFields)
      if (f.sizes) CP_RETURN_IF_ERROR(extent(f.name, (p.*f.sizes)[i]));
  // With every extent bounded by 2^20, saturating products below cannot wrap.
  for (auto [what, shape] : {std::pair{"input", p.input_shape()},
                             {"output", p.output_shape()},
                             {"weight", p.weight_shape()}}) {
    int64_t n = SatProduct(shape);
    if (n > limits.max_tensor_elements)
      return Status::Limit(std::string(what) + " tensor " + ShapeText(shape) + " has " +
                           std::to_string(n) + " elements, over the limit of " +
                           std::to_string(limits.max_tensor_elements) + " (--max-elements)");
  }
  if (p.macs() > limits.max_macs)
    return Status::Limit("the convolution needs " + std::to_string(p.macs()) +
                         " multiply-adds, over the limit of " + std::to_string(limits.max_macs) +
                         " (--max-macs)");
  return Status::Ok();
}

int64_t NumElements(const Shape& shape) { return SatProduct(shape); }

std::string ShapeText(const Shape& shape) {
  std::string s = "[";
  for (size_t i = 0; i < shape.size(); ++i) s += (i ? ", " : "") + std::to_string(shape[i]);
  return s + "]";
}

int64_t ReductionLength(const ConvProblem& p, Direction direction) {
  int64_t taps = 1;
  for (int i = 0; i < p.rank; ++i) taps *= p.kernel[i];
  switch (direction) {
    case Direction::kForward:
      return p.in_channels / p.groups * taps;
    case Direction::kBackwardData:
      return p.out_channels / p.groups * taps;
    case Direction::kBackwardWeight: {
      // Summed over the batch and the small side: the ordinary output / the transposed input.
      Dims small = p.transposed ? p.input : p.output();
      int64_t n = p.batch;
      for (int i = 0; i < p.rank; ++i) n *= small[i];
      return n;
    }
  }
  return 0;
}

const char* DirectionName(Direction d) {
  switch (d) {
    case Direction::kForward:
      return "fwd";
    case Direction::kBackwardData:
      return "bwd_data";
    case Direction::kBackwardWeight:
      return "bwd_weight";
  }
  return "?";
}

Result<Direction> ParseDirection(const std::string& s) {
  for (Direction d : AllDirections())
    if (s == DirectionName(d)) return d;
  return Status::Invalid("unknown direction '" + s + "', expected fwd, bwd_data or bwd_weight");
}

const std::vector<Direction>& AllDirections() {
  static const std::vector<Direction> all{Direction::kForward, Direction::kBackwardData,
                                          Direction::kBackwardWeight};
  return all;
}

ConvProblem PlainOptions(const ConvProblem& p) {
  ConvProblem q = p;
#define CONVPARITY_ENUM(field, type, values, default_value, ...) q.field = default_value;
#define CONVPARITY_SWITCH(field, ...) q.field = false;
#include "core/problem_fields.def"
  q.weight_layout = q.natural_weight_layout();
  return q;
}

std::string NameAtRank(const char* name, int rank) {
  if (!name) return "?";
  std::string s = name;
  const size_t star = s.find('*');
  if (star != std::string::npos)
    s.replace(star, 1, kSpatialNames[std::clamp(rank, 0, kMaxSpatialRank)]);
  return s;
}

std::string Choices(const std::vector<std::string>& names) {
  if (names.size() == 1) return names[0];
  if (names.size() == 2) return names[0] + " or " + names[1];
  std::string s = "one of ";
  for (size_t i = 0; i < names.size(); ++i) s += (i ? ", " : "") + names[i];
  return s;
}

std::vector<int> DataMemoryOrder(const ConvProblem& p) {
  std::vector<int> order{0};
  if (p.data_layout == DataLayout::kChannelsFirst) order.push_back(1);
  for (int i = 0; i < p.rank; ++i) order.push_back(2 + i);
  if (p.data_layout == DataLayout::kChannelsLast) order.push_back(1);
  return order;
}

std::vector<int> WeightMemoryOrder(const ConvProblem& p) {
  // Logical weight axes: 0 and 1 are the two channel axes of PyTorch's shape, 2… the kernel.
  const int o = p.transposed ? 1 : 0, i = p.transposed ? 0 : 1;
  std::vector<int> spatial;
  for (int d = 0; d < p.rank; ++d) spatial.push_back(2 + d);
  std::vector<int> order;
  auto append = [&](std::initializer_list<int> axes) { order.insert(order.end(), axes); };
  auto append_spatial = [&] { order.insert(order.end(), spatial.begin(), spatial.end()); };
  switch (p.weight_layout) {
    case WeightLayout::kOI:
      append({o, i});
      append_spatial();
      break;
    case WeightLayout::kIO:
      append({i, o});
      append_spatial();
      break;
    case WeightLayout::kSpatialIO:
      append_spatial();
      append({i, o});
      break;
    case WeightLayout::kOSpatialI:
      append({o});
      append_spatial();
      append({i});
      break;
  }
  return order;
}

}  // namespace convparity
