#include "reports/python_snippet.h"

#include <map>
#include <optional>
#include <sstream>
#include <vector>

#include "core/descriptor.h"
#include "core/graph.h"
#include "reports/python_literals.h"

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

const char* ResultName(Direction d) {
  return d == Direction::kForward ? "y" : d == Direction::kBackwardData ? "dx" : "dw";
}

// `name = <the case's values>`, or zeros for a var the case does not read (CaseVars: a gradient of
// a convolution does not depend on the tensor it is taken with respect to, nor on the bias).
void WriteTensor(std::ostream& py, const std::string& name, const Shape& shape,
                 const HostTensor& values) {
  if (!values.values.empty()) {
    py << name << " = " << PythonTensorCall(shape, values.values) << "\n";
    return;
  }
  py << name << " = torch.zeros(" << Join(shape)
     << ", dtype=torch.float64)  # not read: the result does not depend on its values\n";
}

// Random tensors of the case's shapes (no values, or over the limit).
void WriteRandomInputs(std::ostream& py, const ConvCase& c) {
  const ConvProblem& p = c.problem;
  py << "torch.manual_seed(0)\n"
     << "x = torch.randn(" << Join(p.input_shape()) << ", dtype=torch.float64)\n"
     << "w = torch.randn(" << Join(p.weight_shape()) << ", dtype=torch.float64)";
}

// The SUT's values at the judgement's first and worst wrong elements, beside PyTorch's.
void WriteSutValues(std::ostream& py, const ConvCase& c, const Judgement& j) {
  std::vector<const ElementReport*> elements;
  for (const std::optional<ElementReport>* e : {&j.first, &j.worst})
    if (*e && (elements.empty() || elements[0]->index != (*e)->index)) elements.push_back(&**e);
  if (elements.empty()) return;
  const std::string result = ResultName(c.direction);
  py << "# What the SUT (" << CommentText(c.sut) << ") computed at its first and worst wrong\n"
     << "# elements (" << j.mismatches << " of " << j.elements << " wrong; nan: never written):\n"
     << "sut_values = {";
  for (size_t i = 0; i < elements.size(); ++i) {
    py << (i ? ", " : "") << "(";
    const Shape& index = elements[i]->index;
    for (size_t k = 0; k < index.size(); ++k)
      py << (k ? ", " : "") << index[k] << (index.size() == 1 ? "," : "");
    py << "): " << PythonNumber(elements[i]->got);
  }
  py << "}\n"
     << "for index, got in sut_values.items():\n"
     << "    print(f\"" << result << "{list(index)}: PyTorch {" << result
     << "[index].item()!r}, the SUT {got!r}\")\n";
}

// A var of the case's graph form: its values when the snippet carries them, else random.
void WriteOwnVar(std::ostream& py, const CaseVar& var, const CaseInputs* in) {
  if (in)
    WriteTensor(py, var.name, var.shape, in->Get(var.name));
  else
    py << var.name << " = torch.randn(" << Join(var.shape) << ", dtype=torch.float64)\n";
}

// The PyTorch text of what a graph form (core/case_graphs.h) does after the problem's convolution,
// whose result is `y`; it leaves the graph's result in `y`. One for each form but conv.
using FormText = void (*)(std::ostream& py, const ConvProblem& p, const CaseInputs* in);

void ChainText(std::ostream& py, const ConvProblem& p, const CaseInputs* in) {
  py << "# The chain: y + a second convolution of y (core/graph.h ChainGraph).\n";
  WriteOwnVar(py, ChainForm().vars(p).at(0), in);
  WriteConv(py, ResidualConv(p), "y", "w2", "None", "y2");
  py << "y = y + y2\n";
}

const std::map<std::string, FormText>& FormTexts() {
  static const std::map<std::string, FormText> texts{{"chain", ChainText}};
  return texts;
}

}  // namespace

int64_t SnippetValueCount(const ConvCase& c) {
  const ConvProblem& p = c.problem;
  const Direction d = c.direction;
  int64_t n = NumElements(ResultShape(p, d));
  for (const CaseVar& var : CaseVars(*c.graph, p, d)) n += NumElements(var.shape);
  return n;
}

std::string PythonSnippet(const ConvCase& c, const SnippetValues* given, const Judgement* judged) {
  const ConvProblem& p = c.problem;
  // Only legal problems have a PyTorch equivalent (and the rank indexes the tables above).
  Status valid = Validate(p);
  if (!valid.ok())
    return "# convparity: " + CommentText(ProblemDescriptor(p)) +
           " is not a legal convolution, so PyTorch has no reference for it:\n# " +
           CommentText(valid.message()) + "\n";
  const int64_t count = SnippetValueCount(c);
  const bool over_limit = count > kSnippetValueLimit;
  const SnippetValues* values = over_limit ? nullptr : given;
  const CaseInputs* in = values ? &values->inputs : nullptr;
  std::ostringstream py;
  py << "# convparity: the float64 reference of " << CaseDescriptor(p, c.direction)
     << (*c.graph != ConvForm() ? " as a " + c.graph->name : "") << "\n"
     << "# (sut " << CommentText(c.sut) << ", fill " << FillName(c.fill) << ", seed " << c.seed
     << ").\n";
  if (values) {
    py << "# The inputs are the case's own and `expected` is convparity's reference: this program\n"
       << "# recomputes the reference with PyTorch and compares.\n";
  } else if (over_limit) {
    py << "# NOTE: the case has " << count << " input and result values, over the "
       << kSnippetValueLimit << " a snippet\n"
       << "# carries: the inputs are random tensors of the case's shapes. This reproduces the\n"
       << "# computation, not convparity's exact data (`convparity repro` replays those).\n";
  } else {
    py << "# NOTE: the inputs are random tensors of the case's shapes: this reproduces the\n"
       << "# computation, not convparity's exact data (`convparity repro` replays those).\n";
  }
  py << "import torch\n"
     << "import torch.nn.functional as F\n\n";
  const bool other_weight_layout = p.weight_layout != p.natural_weight_layout();
  if (values) {
    py << "\ndef tensor(shape, values):\n"
       << "    return torch.tensor(values, dtype=torch.float64).reshape(shape)\n\n\n";
    WriteTensor(py, "x", p.input_shape(), in->Get(kInputVar));
    if (other_weight_layout)
      py << "# The SUT stores w as " << WeightLayoutName(p.weight_layout, p.rank)
         << "; these are its values in PyTorch's order.\n";
    WriteTensor(py, "w", p.weight_shape(), in->Get(kWeightVar));
  } else {
    WriteRandomInputs(py, c);
    if (other_weight_layout)
      py << "  # the SUT stores it as " << WeightLayoutName(p.weight_layout, p.rank)
         << "; the values are the same";
    py << "\n";
  }
  if (p.bias) {
    if (values)
      WriteTensor(py, "b", p.bias_shape(), in->Get(kBiasVar));
    else
      py << "b = torch.randn(" << p.out_channels << ", dtype=torch.float64)\n";
  }
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
  if (*c.graph != ConvForm()) {
    auto text = FormTexts().find(c.graph->name);
    if (text == FormTexts().end())
      py << "# NOTE: no PyTorch text for the graph form " << c.graph->name
         << " yet: this is its convolution alone.\n";
    else
      text->second(py, p, in);
  }

  const std::string result = ResultName(c.direction);
  const Shape shape = ResultShape(p, c.direction);
  if (c.direction != Direction::kForward) {
    if (values)
      WriteTensor(py, "dy", p.output_shape(), in->Get(kGradOutputVar));
    else
      py << "dy = torch.randn(" << Join(p.output_shape()) << ", dtype=torch.float64)\n";
    py << "y.backward(dy)\n"
       << result << " = " << (c.direction == Direction::kBackwardData ? "x" : "w") << ".grad\n";
  }
  if (!values) {
    py << "print(" << result << ".shape)  # expected " << PyShape(shape) << "\n";
    return py.str();
  }
  py << "expected = " << PythonTensorCall(shape, values->expected) << "\n"
     << "if torch.equal(" << result << ", expected):\n"
     << "    print(\"" << result << " equals convparity's reference\")\n"
     << "else:\n"
     << "    print(\"" << result << " differs from convparity's reference by up to\", (" << result
     << " - expected).abs().max().item())\n";
  if (judged) WriteSutValues(py, c, *judged);
  return py.str();
}

}  // namespace convparity
