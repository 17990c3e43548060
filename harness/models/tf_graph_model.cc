#include "harness/models/tf_graph_model.h"

#include <algorithm>
#include <cstring>
#include <nlohmann/json.hpp>
#include <numeric>
#include <optional>

#include "core/graph.h"
#include "harness/models/model_graph.h"
#include "kernels/graph/interpreter.h"
#include "kernels/graph/pass_util.h"
#include "kernels/graph/passes.h"

namespace convparity {

namespace {

using json = nlohmann::json;
using graph_pass::Perm;

// 2⁻¹⁰, as the ONNX writer's: variance 1 − ε and ε add up to 1 exactly (core/spelling.h).
constexpr float kNormEpsilon = 1.0f / 1024;
constexpr char kBase64[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

// GraphDef JSON writes bytes (string attributes, the weights here) as base64.
std::string Base64(const std::string& bytes) {
  std::string out;
  out.reserve((bytes.size() + 2) / 3 * 4);
  for (size_t i = 0; i < bytes.size(); i += 3) {
    const size_t n = std::min<size_t>(3, bytes.size() - i);
    uint32_t v = 0;
    for (size_t k = 0; k < 3; ++k) v = (v << 8) | (k < n ? static_cast<uint8_t>(bytes[i + k]) : 0u);
    for (size_t k = 0; k < 4; ++k) out += k <= n ? kBase64[(v >> (18 - 6 * k)) & 63] : '=';
  }
  return out;
}

Result<std::string> FromBase64(const std::string& text) {
  std::string out;
  uint32_t v = 0;
  int bits = 0;
  for (char c : text) {
    if (c == '=') break;
    const char* at = std::strchr(kBase64, c);
    if (c == '\0' || at == nullptr) return Status::Invalid("weightData is not base64");
    v = (v << 6) | static_cast<uint32_t>(at - kBase64);
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out += static_cast<char>((v >> bits) & 0xFF);
    }
  }
  return out;
}

json Ints(const Shape& values) {
  json list = json::array();
  for (int64_t v : values) list.push_back(std::to_string(v));
  return {{"list", {{"i", list}}}};
}
json Text(const std::string& s) { return {{"s", Base64(s)}}; }
json Type(const char* type = "DT_FLOAT") { return {{"type", type}}; }
json ShapeJson(const Shape& shape) {
  json dims = json::array();
  for (int64_t d : shape) dims.push_back({{"size", std::to_string(d)}});
  return {{"dim", dims}};
}

// The ordinary convolution TensorFlow's padding attribute is about: a conv's own; for a transposed
// one (Conv2DBackpropInput) the convolution it is the gradient of, over the transposed one's
// output; for a weight gradient its relation, which ConvProblemOf gives. A transposed
// convolution's end padding only says how large its output is, which input_sizes says here: where
// its own does not give the transposed one's input as the relation's output (an output_padding that
// reaches a stride, with a larger dilation), the least that does. kUnsupported when that is
// negative: TensorFlow's paddings never are.
Result<ConvProblem> Relation(const ConvProblem& q) {
  if (!q.transposed) return q;
  ConvProblem r = q;
  r.transposed = false;
  r.input = q.output();
  std::swap(r.in_channels, r.out_channels);
  r.output_padding = Dims{0, 0, 0};
  for (int d = 0; d < q.rank; ++d) {
    // (input + pad_begin + pad_end − reach) / stride + 1 = q.input, rounded down.
    const int64_t reach = q.dilation[d] * (q.kernel[d] - 1) + 1;
    const int64_t least = (q.input[d] - 1) * q.stride[d] - r.input[d] - q.pad_begin[d] + reach;
    if (least + q.stride[d] - 1 < 0)
      return Status::Unsupported(
          "the transposed convolution's output_padding needs a negative end padding in "
          "TensorFlow's Conv2DBackpropInput");
    if (q.pad_end[d] < least || q.pad_end[d] > least + q.stride[d] - 1)
      r.pad_end[d] = std::max<int64_t>(least, 0);
  }
  return r;
}

// Whether TensorFlow's SAME (ONNX's SAME_UPPER) or VALID gives `rel` its pads and output size.
bool ModeFits(PadsSpelling mode, const ConvProblem& rel) {
  Dims begin, end;
  AutoPads(mode, rel, begin, end);
  const Dims out = rel.output();
  for (int d = 0; d < rel.rank; ++d) {
    if (begin[d] != rel.pad_begin[d] || end[d] != rel.pad_end[d]) return false;
    if (mode != PadsSpelling::kValid &&
        out[d] != (rel.input[d] + rel.stride[d] - 1) / rel.stride[d])
      return false;
  }
  return true;
}

class TfWriter {
 public:
  TfWriter(const Graph& graph, const Spelling& spelling)
      : graph_(graph), spelling_(spelling), names_(graph.nodes.size()) {}

  Result<std::string> Write() {
    const int first_conv = FirstConvNode(graph_);
    for (size_t i = 0; i < graph_.nodes.size(); ++i) {
      const int n = static_cast<int>(i);
      const std::string name = "v" + std::to_string(n);
      const bool norm = n == first_conv && spelling_.norm == NormSpelling::kIdentityBatchNorm;
      CP_RETURN_IF_ERROR(Emit(n, norm ? name + "_conv" : name));
      if (norm) IdentityNorm(n, name);
    }
    Op("y", "Identity", {names_[static_cast<size_t>(graph_.outputs.at(0))]});
    json model;
    model["format"] = "graph-model";
    model["generatedBy"] = "convparity";
    model["convertedBy"] = "convparity";
    model["modelTopology"] = {
        {"node", nodes_}, {"library", json::object()}, {"versions", {{"producer", 1}}}};
    model["weightsManifest"] = json::array({{{"paths", {"weights.bin"}}, {"weights", specs_}}});
    model["weightData"] = Base64(data_);
    return model.dump();
  }

 private:
  Status Emit(int i, const std::string& name) {
    const Node& n = graph_.node(i);
    names_[static_cast<size_t>(i)] = name;
    const std::string x = n.inputs.empty() ? "" : names_[static_cast<size_t>(n.inputs[0])];
    switch (n.op) {
      case OpKind::kVar:
        names_[static_cast<size_t>(i)] = n.name;
        AddNode(n.name, "Placeholder", {})["attr"] = {{"dtype", Type()},
                                                      {"shape", {{"shape", ShapeJson(n.shape)}}}};
        return Status::Ok();
      case OpKind::kConst:
        FloatConst(name, n.value);
        return Status::Ok();
      case OpKind::kConv:
      case OpKind::kConvTranspose:
      case OpKind::kConvBackwardWeight:
        return Conv(i, name);
      case OpKind::kLayoutTransform:
      case OpKind::kTranspose: {
        const std::vector<int>& perm = std::get<PermuteAttrs>(n.attrs).perm;
        Op(name, "Transpose", {x, IntConst(name + "_perm", Shape(perm.begin(), perm.end()))});
        return Status::Ok();
      }
      case OpKind::kReshape:
        Op(name, "Reshape", {x, IntConst(name + "_shape", n.shape)});
        return Status::Ok();
      case OpKind::kPad: {
        const PadAttrs& a = std::get<PadAttrs>(n.attrs);
        Shape pairs;
        for (size_t d = 0; d < a.before.size(); ++d) {
          pairs.push_back(a.before[d]);
          pairs.push_back(a.after[d]);
        }
        Op(name, "Pad",
           {x,
            IntConst(name + "_paddings", pairs, Shape{static_cast<int64_t>(a.before.size()), 2})});
        return Status::Ok();
      }
      case OpKind::kAdd:
        Op(name, "AddV2", {x, names_[static_cast<size_t>(n.inputs[1])]});
        return Status::Ok();
      case OpKind::kExpandDims:
        Op(name, "ExpandDims",
           {x, IntConst(name + "_axis", {std::get<AxisAttrs>(n.attrs).axis},
                        Shape{})})["attr"]["Tdim"] = Type("DT_INT32");
        return Status::Ok();
      case OpKind::kSqueeze: {
        const std::vector<int>& axes = std::get<SqueezeAttrs>(n.attrs).axes;
        Op(name, "Squeeze", {x})["attr"]["squeeze_dims"] = Ints(Shape(axes.begin(), axes.end()));
        return Status::Ok();
      }
      case OpKind::kConcatenate: {
        std::vector<std::string> inputs;
        for (int k : n.inputs) inputs.push_back(names_[static_cast<size_t>(k)]);
        inputs.push_back(IntConst(name + "_axis", {std::get<AxisAttrs>(n.attrs).axis}, Shape{}));
        json& node = Op(name, "ConcatV2", inputs);
        node["attr"]["N"] = {{"i", std::to_string(n.inputs.size())}};
        node["attr"]["Tidx"] = Type("DT_INT32");
        return Status::Ok();
      }
      case OpKind::kTile:
        Op(name, "Tile", {x, IntConst(name + "_multiples", std::get<TileAttrs>(n.attrs).reps)});
        return Status::Ok();
      case OpKind::kStridedSlice: {
        const StridedSliceAttrs& a = std::get<StridedSliceAttrs>(n.attrs);
        json& node = Op(name, "StridedSlice",
                        {x, IntConst(name + "_begin", a.begin), IntConst(name + "_end", a.end),
                         IntConst(name + "_strides", a.step)});
        for (const char* mask :
             {"begin_mask", "end_mask", "ellipsis_mask", "new_axis_mask", "shrink_axis_mask"})
          node["attr"][mask] = {{"i", "0"}};
        node["attr"]["Index"] = Type("DT_INT32");
        return Status::Ok();
      }
      case OpKind::kSum: {
        const SumAttrs& a = std::get<SumAttrs>(n.attrs);
        json& node =
            Op(name, "Sum", {x, IntConst(name + "_axes", Shape(a.axes.begin(), a.axes.end()))});
        node["attr"]["keep_dims"] = {{"b", a.keep_dims}};
        node["attr"]["Tidx"] = Type("DT_INT32");
        return Status::Ok();
      }
    }
    return Status::Unsupported(std::string("TensorFlow: no op written for ") + OpName(n.op));
  }

  Status Conv(int i, const std::string& name) {
    const Node& n = graph_.node(i);
    const ConvAttrs& a = graph_pass::AttrsOfConv(n);
    Result<ConvProblem> q = ConvProblemOf(graph_, i);
    // A transposed convolution's weight gradient whose output_padding reaches a stride (only with
    // a larger dilation): its relation would pad the end by a negative amount.
    if (!q.ok() && n.op == OpKind::kConvBackwardWeight)
      return Status::Unsupported(
          "the weight gradient needs a negative padding, which TensorFlow's ops cannot write");
    if (!q.ok()) return q.status();
    const int r = a.rank;
    const bool first = a.data_layout == DataLayout::kChannelsFirst;
    const std::string format =
        std::string(first ? "NC" : "N") + (r == 2 ? "HW" : "DHW") + (first ? "" : "C");
    // Per axis of the data, in the data format's order.
    auto per_axis = [&](const Dims& v, int64_t outer) {
      Shape s{outer};
      if (first) s.push_back(outer);
      for (int d = 0; d < r; ++d) s.push_back(v[d]);
      if (!first) s.push_back(outer);
      return s;
    };
    Result<ConvProblem> relation = Relation(*q);
    if (!relation.ok()) return relation.status();
    const ConvProblem& rel = *relation;
    std::string padding = "EXPLICIT";
    const PadsSpelling mode = spelling_.pads;
    if ((mode == PadsSpelling::kSameUpper || mode == PadsSpelling::kValid) && ModeFits(mode, rel)) {
      padding = mode == PadsSpelling::kValid ? "VALID" : "SAME";
    } else if (r == 3) {
      if (!ModeFits(PadsSpelling::kValid, rel))
        return Status::Unsupported(
            "TensorFlow's 3-D convolutions pad SAME or VALID only, not these pads");
      padding = "VALID";
    }
    const bool grouped = q->groups > 1;
    const bool has_bias = n.inputs.size() > 2;
    const bool fused = has_bias && spelling_.bias == BiasSpelling::kFused;
    const char* op = nullptr;
    std::vector<std::string> inputs;
    const std::string x = names_[static_cast<size_t>(n.inputs[0])];
    const std::string second = names_[static_cast<size_t>(n.inputs[1])];
    if (n.op == OpKind::kConv) {
      const bool depthwise =
          spelling_.depthwise == DepthwiseSpelling::kMultiplier && q->depthwise();
      if (depthwise && r == 3)
        return Status::Unsupported("TensorFlow has no 3-D depthwise convolution");
      if (fused && r == 3) return Status::Unsupported("TensorFlow has no fused 3-D convolution");
      // A depthwise filter (k…, 1, C·m) is the same memory as HWIM (k…, C, m).
      Shape hwim = graph_.node(n.inputs[1]).shape;
      hwim[hwim.size() - 2] = q->in_channels;
      hwim.back() = q->depth_multiplier();
      op = depthwise ? (fused ? "FusedDepthwiseConv2dNative" : "DepthwiseConv2dNative")
           : fused   ? "_FusedConv2D"
                     : (r == 2 ? "Conv2D" : "Conv3D");
      Result<std::string> filter =
          depthwise ? Filter(n.inputs[1], Perm{}, hwim, name) : Result<std::string>(second);
      if (!filter.ok()) return filter.status();
      inputs = {x, *filter};
    } else {
      if (grouped) return Status::Unsupported("TensorFlow's backprop ops take no groups");
      if (fused) return Status::Unsupported("TensorFlow has no fused transposed convolution");
      // Conv2DBackpropInput's filter is its forward convolution's: (k…, C_out, C_in) of the
      // transposed one, whose …IO weight is (k…, C_in, C_out).
      Perm swap(static_cast<size_t>(r) + 2);
      std::iota(swap.begin(), swap.end(), 0);
      std::swap(swap[static_cast<size_t>(r)], swap[static_cast<size_t>(r) + 1]);
      const std::string sizes = IntConst(name + "_sizes", n.shape);
      if (n.op == OpKind::kConvTranspose) {
        op = r == 2 ? "Conv2DBackpropInput" : "Conv3DBackpropInputV2";
        Result<std::string> filter = Filter(n.inputs[1], swap, Shape{}, name);
        if (!filter.ok()) return filter.status();
        inputs = {sizes, *filter, x};
      } else {
        op = r == 2 ? "Conv2DBackpropFilter" : "Conv3DBackpropFilterV2";
        inputs = {x, sizes, second};
      }
    }
    const std::string result = has_bias && !fused ? name + "_op" : name;
    if (fused) inputs.push_back(names_[static_cast<size_t>(n.inputs[2])]);
    json& node = Op(result, op, inputs);
    json& attr = node["attr"];
    attr["strides"] = Ints(per_axis(a.stride, 1));
    attr["dilations"] = Ints(per_axis(a.dilation, 1));
    attr["data_format"] = Text(format);
    attr["padding"] = Text(padding);
    if (padding == "EXPLICIT") {
      Shape pairs(first ? 4 : 2, 0);
      for (int d = 0; d < r; ++d) {
        pairs.push_back(rel.pad_begin[d]);
        pairs.push_back(rel.pad_end[d]);
      }
      if (!first) pairs.insert(pairs.end(), {0, 0});
      attr["explicit_paddings"] = Ints(pairs);
    }
    if (fused) {
      attr["fused_ops"] = {{"list", {{"s", {Base64("BiasAdd")}}}}};
      attr["num_args"] = {{"i", "1"}};
      attr["epsilon"] = {{"f", 0.0}};
    }
    if (has_bias && !fused) {
      Op(name, "BiasAdd",
         {result, names_[static_cast<size_t>(n.inputs[2])]})["attr"]["data_format"] = Text(format);
    }
    return Status::Ok();
  }

  // FusedBatchNormV3 of node i's result into `name`, computing the identity.
  void IdentityNorm(int i, const std::string& name) {
    const ConvAttrs& a = graph_pass::AttrsOfConv(graph_.node(i));
    const Shape& shape = graph_.node(i).shape;
    const bool first = a.data_layout == DataLayout::kChannelsFirst;
    const int64_t channels = first ? shape.at(1) : shape.back();
    std::vector<std::string> inputs{names_[static_cast<size_t>(i)]};
    const std::pair<const char*, float> parts[] = {
        {"_scale", 1.0f}, {"_offset", 0.0f}, {"_mean", 0.0f}, {"_variance", 1.0f - kNormEpsilon}};
    for (const auto& [suffix, value] : parts)
      inputs.push_back(FloatConst(
          name + suffix,
          HostTensor{{channels}, std::vector<float>(static_cast<size_t>(channels), value)}));
    json& attr = Op(name, "FusedBatchNormV3", inputs)["attr"];
    attr["U"] = Type();
    attr["epsilon"] = {{"f", kNormEpsilon}};
    attr["is_training"] = {{"b", false}};
    attr["data_format"] =
        Text(a.rank == 2 ? (first ? "NCHW" : "NHWC") : (first ? "NCDHW" : "NDHWC"));
    names_[static_cast<size_t>(i)] = name;
  }

  // Operand k as an op's filter: permuted by `perm` (none: empty), then of shape `shape` (none:
  // empty). A constant is written so; anything else gets a Transpose / Reshape.
  Result<std::string> Filter(int k, const Perm& perm, const Shape& shape, const std::string& name) {
    const Node& w = graph_.node(k);
    std::string at = names_[static_cast<size_t>(k)];
    if (w.op == OpKind::kConst) {
      Result<HostTensor> value =
          perm.empty() ? Result<HostTensor>(w.value) : Permuted(w.value, perm);
      if (!value.ok()) return value.status();
      HostTensor filter = std::move(value).value();
      if (!shape.empty()) filter.shape = shape;
      return FloatConst(name + "_filter", filter);
    }
    if (!perm.empty())
      at = Op(name + "_filter_t", "Transpose",
              {at, IntConst(name + "_filter_perm", Shape(perm.begin(), perm.end()))})["name"]
               .get<std::string>();
    if (!shape.empty())
      at = Op(name + "_filter", "Reshape", {at, IntConst(name + "_filter_shape", shape)})["name"]
               .get<std::string>();
    return at;
  }

  // A constant's values permuted, by our kernels' transpose.
  static Result<HostTensor> Permuted(const HostTensor& value, const Perm& perm) {
    Graph g;
    const int c = g.AddConst("w", value);
    const int t = g.AddOp(OpKind::kTranspose, {c}, PermuteAttrs{perm, "", ""});
    g.outputs = {t};
    CP_RETURN_IF_ERROR(InferShapes(g));
    return EvaluateNode(g, t, {&value});
  }

  json& AddNode(const std::string& name, const char* op, const std::vector<std::string>& inputs) {
    nodes_.push_back({{"name", name}, {"op", op}, {"input", inputs}, {"attr", json::object()}});
    return nodes_.back();
  }
  // An op on floats.
  json& Op(const std::string& name, const char* op, const std::vector<std::string>& inputs) {
    json& node = AddNode(name, op, inputs);
    node["attr"]["T"] = Type();
    return node;
  }

  std::string Const(const std::string& name, const Shape& shape, const char* type,
                    const char* dtype, const void* bytes, size_t size) {
    AddNode(name, "Const", {})["attr"] = {
        {"dtype", Type(type)},
        {"value", {{"tensor", {{"dtype", type}, {"tensorShape", ShapeJson(shape)}}}}}};
    specs_.push_back({{"name", name}, {"shape", shape}, {"dtype", dtype}});
    data_.append(static_cast<const char*>(bytes), size);
    return name;
  }
  std::string FloatConst(const std::string& name, const HostTensor& value) {
    // Little-endian, as this machine's floats are and tfjs reads them.
    return Const(name, value.shape, "DT_FLOAT", "float32", value.values.data(),
                 value.values.size() * sizeof(float));
  }
  // int32 values of `shape` (default: a vector of them).
  std::string IntConst(const std::string& name, const Shape& values,
                       std::optional<Shape> shape = std::nullopt) {
    std::vector<int32_t> v(values.begin(), values.end());
    return Const(name, shape.value_or(Shape{static_cast<int64_t>(values.size())}), "DT_INT32",
                 "int32", v.data(), v.size() * sizeof(int32_t));
  }

  const Graph& graph_;
  const Spelling& spelling_;
  std::vector<std::string> names_;  // each node's value
  json nodes_ = json::array();
  json specs_ = json::array();  // the weights' specs, in data_'s order
  std::string data_;            // the weights' bytes
};

}  // namespace

Result<std::string> TfGraphModel(const ConvProblem& p, const GraphForm& form, Direction direction,
                                 const Spelling& spelling, const CaseBuffers& buffers) {
  if (spelling.pads == PadsSpelling::kSameLower)
    return Status::Unsupported("TensorFlow has no SAME_LOWER padding (pads=same_lower)");
  // The graph keeps the bias as the op's operand; the writer fuses it.
  Spelling graph_spelling = spelling;
  if (spelling.bias == BiasSpelling::kFused) graph_spelling.bias = BiasSpelling::kOperand;
  const DataLayout data =
      spelling.data_format == DataFormatSpelling::kOp ? p.data_layout : DataLayout::kChannelsLast;
  Result<Graph> graph = ModelGraph(p, form, direction, graph_spelling,
                                   {data, WeightLayout::kSpatialIO, WeightLayout::kSpatialIO});
  if (!graph.ok()) return graph.status();
  Graph lowered = std::move(graph).value();
  CP_RETURN_IF_ERROR(LowerConv1d(lowered));  // TensorFlow has no 1-D convolution
  const bool keep_transposes = spelling.weight == WeightSpelling::kTransposed;
  Result<Graph> bound = BindModelConstants(
      std::move(lowered), ModelInputVar(direction), buffers, [&](const Graph& g, int i) {
        const OpKind op = g.node(i).op;
        return (op == OpKind::kLayoutTransform || op == OpKind::kTranspose) && keep_transposes;
      });
  if (!bound.ok()) return bound.status();
  return TfWriter(*bound, spelling).Write();
}

Result<std::vector<std::pair<std::string, std::string>>> TfGraphModelFiles(
    const std::string& model) {
  json j = json::parse(model, nullptr, false);
  if (!j.is_object() || !j.contains("weightData") || !j["weightData"].is_string())
    return Status::Invalid("not a tfjs graph model of convparity's (no weightData)");
  Result<std::string> weights = FromBase64(j["weightData"].get<std::string>());
  if (!weights.ok()) return weights.status();
  j.erase("weightData");
  return std::vector<std::pair<std::string, std::string>>{{"model.json", j.dump(1)},
                                                          {"weights.bin", *weights}};
}

}  // namespace convparity
