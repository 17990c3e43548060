#include "reports/python_snippet.h"

#include <sstream>

#include "core/descriptor.h"
#include "core/graph.h"

namespace convparity {
namespace {

std::string Join(const Shape& s) {
  std::string out;
  for (size_t i = 0; i < s.size(); ++i) out += (i ? ", " : "") + std::to_string(s[i]);
  return out;
}

// A Python tuple with one value per spatial dimension; "(2,)" for one, so the rank stays visible.
std::string Tuple(const Dims& d, int rank) {
  std::string out = "(";
  for (int i = 0; i < rank; ++i) out += (i ? ", " : "") + std::to_string(d[i]);
  return out + (rank == 1 ? ",)" : ")");
}

// Comments carry free text (SUT names, notes); a newline or a stray byte there would break the
// program, so anything but printable ASCII becomes '?'.
std::string CommentText(const std::string& s) {
  std::string out;
  for (char c : s) out += (c >= 0x20 && c < 0x7f) ? c : '?';
  return out;
}

bool Symmetric(const ConvProblem& p) {
  for (int i = 0; i < p.rank; ++i)
    if (p.pad_begin[i] != p.pad_end[i]) return false;
  return true;
}

const char* kSpatialAxisNames[3][3] = {{"w"}, {"h", "w"}, {"d", "h", "w"}};

// F.pad's list runs from the last dimension to the first, begin then end for each.
std::string PadList(const ConvProblem& p) {
  std::string out = "[";
  for (int i = p.rank - 1; i >= 0; --i) {
    out += std::to_string(p.pad_begin[i]) + ", " + std::to_string(p.pad_end[i]);
    if (i) out += ", ";
  }
  return out + "]";
}

std::string PadListOrder(const ConvProblem& p) {
  std::string out;
  for (int i = p.rank - 1; i >= 0; --i) {
    std::string axis = kSpatialAxisNames[p.rank - 1][i];
    out += axis + " begin, " + axis + " end";
    if (i) out += ", ";
  }
  return out;
}

// The crop that turns an unpadded transposed result into the padded one: pad_begin off the start,
// pad_end off the end of each spatial dimension.
std::string CropSlices(const ConvProblem& p) {
  const Dims out = p.output();
  std::string s = "[...";
  for (int i = 0; i < p.rank; ++i)
    s += ", " + std::to_string(p.pad_begin[i]) + ":" + std::to_string(p.pad_begin[i] + out[i]);
  return s + "]";
}

std::string PyShape(const Shape& s) { return "torch.Size([" + Join(s) + "])"; }

// `out` = p's convolution of `in` with `w` and `bias`, asymmetric padding made explicit.
void WriteConv(std::ostream& py, const ConvProblem& p, const std::string& in, const std::string& w,
               const std::string& bias, const std::string& out) {
  const std::string rank = std::to_string(p.rank);
  const bool symmetric = Symmetric(p);
  if (!p.transposed) {
    std::string input = in, padding = Tuple(p.pad_begin, p.rank);
    if (!symmetric) {
      py << "# Asymmetric padding, applied explicitly; F.pad lists the last dimension first ("
         << PadListOrder(p) << ").\n";
      input = "F.pad(" + in + ", " + PadList(p) + ")";
      padding = "0";
    }
    py << out << " = F.conv" << rank << "d(" << input << ", " << w << ", " << bias
       << ", stride=" << Tuple(p.stride, p.rank) << ", padding=" << padding
       << ", dilation=" << Tuple(p.dilation, p.rank) << ", groups=" << p.groups << ")\n";
  } else {
    std::string padding = Tuple(p.pad_begin, p.rank);
    if (!symmetric) {
      py << "# Asymmetric padding: transpose without padding, then crop pad_begin off the start "
            "and pad_end off the end.\n";
      padding = "0";
    }
    py << out << " = F.conv_transpose" << rank << "d(" << in << ", " << w << ", " << bias
       << ", stride=" << Tuple(p.stride, p.rank) << ", padding=" << padding
       << ", output_padding=" << Tuple(p.output_padding, p.rank) << ", groups=" << p.groups
       << ", dilation=" << Tuple(p.dilation, p.rank) << ")\n";
    if (!symmetric) py << out << " = " << out << CropSlices(p) << "\n";
  }
}

}  // namespace

std::string PythonSnippet(const ConvCase& c) {
  const ConvProblem& p = c.problem;
  // Only legal problems have a PyTorch equivalent (and the rank indexes the tables above).
  Status valid = Validate(p);
  if (!valid.ok())
    return "# convparity: " + CommentText(ProblemDescriptor(p)) +
           " is not a legal convolution, so PyTorch has no reference for it:\n# " +
           CommentText(valid.message()) + "\n";
  std::ostringstream py;
  py << "# convparity: the float64 reference of " << CaseDescriptor(p, c.direction)
     << (c.graph == GraphForm::kChain ? " as a chain" : "") << "\n"
     << "# (sut " << CommentText(c.sut) << ", fill " << FillName(c.fill) << ", seed " << c.seed
     << ").\n"
     << "# NOTE: the inputs are random tensors of the case's shapes: this reproduces the\n"
     << "# computation, not convparity's exact data (`convparity repro` replays those).\n"
     << "import torch\n"
     << "import torch.nn.functional as F\n\n"
     << "torch.manual_seed(0)\n"
     << "x = torch.randn(" << Join(p.input_shape()) << ", dtype=torch.float64)\n"
     << "w = torch.randn(" << Join(p.weight_shape()) << ", dtype=torch.float64)";
  if (p.weight_layout != p.natural_weight_layout())
    py << "  # the SUT stores it as " << WeightLayoutName(p.weight_layout, p.rank)
       << "; the values are the same";
  py << "\n";
  if (p.bias) py << "b = torch.randn(" << p.out_channels << ", dtype=torch.float64)\n";
  if (p.data_layout == DataLayout::kChannelsLast) {
    if (p.rank == 1) {
      py << "# Data layout nwc: PyTorch has no channels-last format for 1-D tensors (the result is "
            "the same).\n";
    } else {
      py << "x = x.to(memory_format=torch." << (p.rank == 2 ? "channels_last" : "channels_last_3d")
         << ")  # data layout " << DataLayoutName(p.data_layout, p.rank) << "\n";
    }
  }
  if (c.direction == Direction::kBackwardData) py << "x.requires_grad_()\n";
  if (c.direction == Direction::kBackwardWeight) py << "w.requires_grad_()\n";

  WriteConv(py, p, "x", "w", p.bias ? "b" : "None", "y");
  if (c.graph == GraphForm::kChain) {
    const ConvProblem q = ResidualConv(p);
    py << "# The chain: y + a second convolution of y (core/graph.h ChainGraph).\n"
       << "w2 = torch.randn(" << Join(q.weight_shape()) << ", dtype=torch.float64)\n";
    WriteConv(py, q, "y", "w2", "None", "y2");
    py << "y = y + y2\n";
  }

  std::string result = "y";
  Shape shape = p.output_shape();
  if (c.direction != Direction::kForward) {
    py << "dy = torch.randn(" << Join(p.output_shape()) << ", dtype=torch.float64)\n"
       << "y.backward(dy)\n";
    const bool data = c.direction == Direction::kBackwardData;
    result = data ? "dx" : "dw";
    shape = data ? p.input_shape() : p.weight_shape();
    py << result << " = " << (data ? "x" : "w") << ".grad\n";
  }
  py << "print(" << result << ".shape)  # expected " << PyShape(shape) << "\n";
  return py.str();
}

}  // namespace convparity
