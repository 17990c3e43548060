#include "core/graph_printer.h"

#include <sstream>

namespace convparity {
namespace {

std::string TupleText(const Shape& s) {
  std::string t = "(";
  for (size_t i = 0; i < s.size(); ++i) t += (i ? ", " : "") + std::to_string(s[i]);
  return t + ")";
}

std::string TypeText(const Shape& s) { return "Tensor[" + TupleText(s) + "]"; }

template <typename T>
std::string ListText(const std::vector<T>& v) {
  std::string t = "[";
  for (size_t i = 0; i < v.size(); ++i) t += (i ? ", " : "") + std::to_string(v[i]);
  return t + "]";
}

std::string DimsList(const Dims& d, int rank) {
  return ListText(Shape(d.begin(), d.begin() + std::max(0, std::min(rank, kMaxSpatialRank))));
}

std::string Quoted(const std::string& s) { return "\"" + s + "\""; }

std::string ConvAttrsText(OpKind op, const ConvAttrs& a) {
  const int r = a.rank;
  std::string t = "groups=" + std::to_string(a.groups);
  if (op == OpKind::kConvBackwardWeight) t += ", kernel_size=" + DimsList(a.kernel, r);
  Shape padding(a.pad_begin.begin(), a.pad_begin.begin() + std::max(0, std::min(r, kMaxSpatialRank)));
  padding.insert(padding.end(), a.pad_end.begin(),
                 a.pad_end.begin() + std::max(0, std::min(r, kMaxSpatialRank)));
  t += ", strides=" + DimsList(a.stride, r) + ", padding=" + ListText(padding) +
       ", dilation=" + DimsList(a.dilation, r);
  if (op == OpKind::kConvTranspose) t += ", output_padding=" + DimsList(a.output_padding, r);
  t += ", data_layout=" + Quoted(DataLayoutText(a.data_layout, r)) +
       ", kernel_layout=" + Quoted(WeightLayoutText(a.weight_layout, r));
  if (a.multiplier_weight) t += ", multiplier_weight=True";
  return t;
}

std::string AttrsText(const Node& n) {
  const OpAttrs& at = n.attrs;
  if (auto* a = std::get_if<ConvAttrs>(&at)) return ConvAttrsText(n.op, *a);
  if (auto* a = std::get_if<PermuteAttrs>(&at)) {
    if (n.op == OpKind::kLayoutTransform)
      return "src_layout=" + Quoted(a->src_layout) + ", dst_layout=" + Quoted(a->dst_layout) +
             ", axes=" + ListText(a->perm);
    return "axes=" + ListText(a->perm);
  }
  if (auto* a = std::get_if<ReshapeAttrs>(&at)) return "newshape=" + ListText(a->shape);
  if (auto* a = std::get_if<TileAttrs>(&at)) return "reps=" + ListText(a->reps);
  if (auto* a = std::get_if<SumAttrs>(&at))
    return "axis=" + ListText(a->axes) + (a->keep_dims ? ", keepdims=True" : "");
  if (auto* a = std::get_if<StridedSliceAttrs>(&at))
    return "begin=" + ListText(a->begin) + ", end=" + ListText(a->end) +
           ", strides=" + ListText(a->step);
  if (auto* a = std::get_if<PadAttrs>(&at)) {
    std::string t = "pad_width=[";
    for (size_t i = 0; i < std::max(a->before.size(), a->after.size()); ++i)
      t += std::string(i ? ", " : "") + "[" +
           (i < a->before.size() ? std::to_string(a->before[i]) : "?") + ", " +
           (i < a->after.size() ? std::to_string(a->after[i]) : "?") + "]";
    return t + "]";
  }
  if (auto* a = std::get_if<AxisAttrs>(&at)) return "axis=" + std::to_string(a->axis);
  if (auto* a = std::get_if<SqueezeAttrs>(&at)) return "axis=" + ListText(a->axes);
  return "";
}

}  // namespace

std::string GraphText(const Graph& graph) {
  const int count = static_cast<int>(graph.nodes.size());
  auto ref = [&](int k, int user) {
    if (k < 0 || k >= count || k >= user) return "%?" + std::to_string(k);
    const Node& n = graph.node(k);
    return n.op == OpKind::kVar ? "%" + n.name : "%" + std::to_string(k);
  };
  std::ostringstream os;
  os << "fn (";
  bool first = true;
  for (const Node& n : graph.nodes) {
    if (n.op != OpKind::kVar) continue;
    os << (first ? "" : ", ") << "%" << n.name << ": " << TypeText(n.shape);
    first = false;
  }
  os << ") {\n";
  for (int i = 0; i < count; ++i) {
    const Node& n = graph.node(i);
    if (n.op == OpKind::kVar) continue;
    os << "  %" << i << " = ";
    if (n.op == OpKind::kConst) {
      os << "meta[const][" << (n.name.empty() ? std::to_string(i) : n.name) << "]";
    } else {
      std::vector<std::string> operands;
      for (int k : n.inputs) operands.push_back(ref(k, i));
      os << OpName(n.op) << "(";
      std::string args;
      if (n.op == OpKind::kConcatenate) {
        args = "(";
        for (size_t k = 0; k < operands.size(); ++k) args += (k ? ", " : "") + operands[k];
        args += operands.size() == 1 ? ",)" : ")";
      } else {
        for (size_t k = 0; k < operands.size(); ++k) args += (k ? ", " : "") + operands[k];
      }
      const std::string attrs = AttrsText(n);
      os << args << (attrs.empty() || args.empty() ? "" : ", ") << attrs << ")";
    }
    os << " /* ty=" << TypeText(n.shape) << " */\n";
  }
  os << "  ";
  if (graph.outputs.size() == 1) {
    os << ref(graph.outputs[0], count);
  } else {
    os << "(";
    for (size_t k = 0; k < graph.outputs.size(); ++k)
      os << (k ? ", " : "") << ref(graph.outputs[k], count);
    os << ")";
  }
  os << "\n}\n";
  return os.str();
}

}  // namespace convparity
