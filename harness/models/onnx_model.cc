#include "harness/models/onnx_model.h"

#include <onnx/checker.h>
#include <onnx/onnx_pb.h>
#include <onnx/shape_inference/implementation.h>

#include <algorithm>
#include <cstring>
#include <exception>
#include <functional>
#include <vector>

#include "harness/models/model_graph.h"
#include "kernels/graph/pass_util.h"

namespace convparity {

namespace {

// 2⁻¹⁰: variance 1 − ε and ε add up to 1 exactly in float32 (core/spelling.h NormSpelling).
constexpr float kNormEpsilon = 1.0f / 1024;

class OnnxWriter {
 public:
  OnnxWriter(const Graph& graph, const Spelling& spelling)
      : graph_(graph), spelling_(spelling), names_(graph.nodes.size()) {
    model_.set_ir_version(7);  // what opset 13 came with
    model_.set_producer_name("convparity");
    onnx::OperatorSetIdProto* opset = model_.add_opset_import();
    opset->set_domain("");
    opset->set_version(kOnnxOpset);
    g_ = model_.mutable_graph();
    g_->set_name("convparity");
  }

  Result<std::string> Write() {
    const int conv = FirstConvNode(graph_);
    const int out = graph_.outputs.at(0);
    for (size_t i = 0; i < graph_.nodes.size(); ++i) {
      const int n = static_cast<int>(i);
      const std::string name = n == out ? "y" : "v" + std::to_string(n);
      const bool norm = n == conv && spelling_.norm == NormSpelling::kIdentityBatchNorm;
      CP_RETURN_IF_ERROR(Emit(n, norm ? name + "_conv" : name, n == conv));
      if (norm) IdentityNorm(n, name);
    }
    // %x first, then any weights as inputs in graph order (WeightInputsModel's order).
    std::stable_partition(vars_.begin(), vars_.end(),
                          [&](int i) { return graph_.node(i).name == kInputVar; });
    for (int i : vars_) Info(g_->add_input(), graph_.node(i).name, graph_.node(i).shape);
    Info(g_->add_output(), "y", graph_.node(out).shape);
    std::string bytes;
    if (!model_.SerializeToString(&bytes))
      return Status::Internal("ONNX: the model did not serialize");
    return bytes;
  }

 private:
  // Node i's ONNX value(s), its result named `name`.
  Status Emit(int i, const std::string& name, bool spelled) {
    const Node& n = graph_.node(i);
    names_[static_cast<size_t>(i)] = name;
    switch (n.op) {
      case OpKind::kVar:
        names_[static_cast<size_t>(i)] = n.name;
        vars_.push_back(i);
        return Status::Ok();
      case OpKind::kConst:
        FloatInitializer(name, n.value);
        return Status::Ok();
      case OpKind::kConv:
      case OpKind::kConvTranspose:
        return Conv(i, name, spelled);
      case OpKind::kLayoutTransform:
      case OpKind::kTranspose: {
        const std::vector<int>& perm = std::get<PermuteAttrs>(n.attrs).perm;
        Ints(Op("Transpose", i, name), "perm", Shape(perm.begin(), perm.end()));
      }
        return Status::Ok();
      case OpKind::kReshape:
        Op("Reshape", i, name)->add_input(IntInitializer(name + "_shape", n.shape));
        return Status::Ok();
      case OpKind::kPad: {
        const PadAttrs& a = std::get<PadAttrs>(n.attrs);
        Shape pads = a.before;
        pads.insert(pads.end(), a.after.begin(), a.after.end());
        Op("Pad", i, name)->add_input(IntInitializer(name + "_pads", pads));
        return Status::Ok();
      }
      case OpKind::kAdd:
        Op("Add", i, name);
        return Status::Ok();
      case OpKind::kExpandDims:
        Op("Unsqueeze", i, name)
            ->add_input(IntInitializer(name + "_axes", Shape{std::get<AxisAttrs>(n.attrs).axis}));
        return Status::Ok();
      case OpKind::kSqueeze: {
        const std::vector<int>& axes = std::get<SqueezeAttrs>(n.attrs).axes;
        Op("Squeeze", i, name)
            ->add_input(IntInitializer(name + "_axes", Shape(axes.begin(), axes.end())));
        return Status::Ok();
      }
      case OpKind::kConcatenate: {
        onnx::AttributeProto* a = Op("Concat", i, name)->add_attribute();
        a->set_name("axis");
        a->set_type(onnx::AttributeProto::INT);
        a->set_i(std::get<AxisAttrs>(n.attrs).axis);
        return Status::Ok();
      }
      case OpKind::kTile:
        Op("Tile", i, name)
            ->add_input(IntInitializer(name + "_repeats", std::get<TileAttrs>(n.attrs).reps));
        return Status::Ok();
      case OpKind::kStridedSlice: {
        const StridedSliceAttrs& a = std::get<StridedSliceAttrs>(n.attrs);
        Shape axes;
        for (size_t k = 0; k < a.begin.size(); ++k) axes.push_back(static_cast<int64_t>(k));
        onnx::NodeProto* node = Op("Slice", i, name);
        for (const auto& [suffix, values] :
             {std::pair<const char*, const Shape&>{"_starts", a.begin},
              {"_ends", a.end},
              {"_axes", axes},
              {"_steps", a.step}})
          node->add_input(IntInitializer(name + suffix, values));
        return Status::Ok();
      }
      case OpKind::kSum: {
        const SumAttrs& a = std::get<SumAttrs>(n.attrs);
        onnx::NodeProto* node = Op("ReduceSum", i, name);
        node->add_input(IntInitializer(name + "_axes", Shape(a.axes.begin(), a.axes.end())));
        onnx::AttributeProto* keep = node->add_attribute();
        keep->set_name("keepdims");
        keep->set_type(onnx::AttributeProto::INT);
        keep->set_i(a.keep_dims ? 1 : 0);
        return Status::Ok();
      }
      case OpKind::kConvBackwardWeight:
        break;
    }
    return Status::Unsupported(std::string("ONNX has no operator for ") + OpName(n.op));
  }

  Status Conv(int i, const std::string& name, bool spelled) {
    Result<ConvProblem> q = ConvProblemOf(graph_, i);
    if (!q.ok()) return q.status();
    const int r = q->rank;
    auto spatial = [r](const Dims& d) { return Shape(d.begin(), d.begin() + r); };
    onnx::NodeProto* node = Op(q->transposed ? "ConvTranspose" : "Conv", i, name);
    Ints(node, "kernel_shape", spatial(q->kernel));
    Ints(node, "strides", spatial(q->stride));
    Ints(node, "dilations", spatial(q->dilation));
    onnx::AttributeProto* group = node->add_attribute();
    group->set_name("group");
    group->set_type(onnx::AttributeProto::INT);
    group->set_i(q->groups);
    if (q->transposed) Ints(node, "output_padding", spatial(q->output_padding));
    const PadsSpelling pads = spelled ? spelling_.pads : PadsSpelling::kExplicit;
    if (pads == PadsSpelling::kSameUpper || pads == PadsSpelling::kSameLower ||
        pads == PadsSpelling::kValid) {
      onnx::AttributeProto* a = node->add_attribute();
      a->set_name("auto_pad");
      a->set_type(onnx::AttributeProto::STRING);
      a->set_s(pads == PadsSpelling::kValid       ? "VALID"
               : pads == PadsSpelling::kSameUpper ? "SAME_UPPER"
                                                  : "SAME_LOWER");
    } else if (spelled && spelling_.output_size == OutputSizeSpelling::kOutputShape) {
      Ints(node, "output_shape", spatial(q->output()));
    } else {
      Shape both = spatial(q->pad_begin);
      for (int d = 0; d < r; ++d) both.push_back(q->pad_end[static_cast<size_t>(d)]);
      Ints(node, "pads", both);
    }
    return Status::Ok();
  }

  // BatchNormalization of node i's result (channels at axis 1) into `name`, computing the identity.
  void IdentityNorm(int i, const std::string& name) {
    const int64_t channels = graph_.node(i).shape.at(1);
    onnx::NodeProto* node = g_->add_node();
    node->set_op_type("BatchNormalization");
    node->set_name(name + "_norm");
    node->add_input(names_[static_cast<size_t>(i)]);
    const std::pair<const char*, float> parts[] = {
        {"_scale", 1.0f}, {"_shift", 0.0f}, {"_mean", 0.0f}, {"_variance", 1.0f - kNormEpsilon}};
    for (const auto& [suffix, value] : parts) {
      FloatInitializer(
          name + suffix,
          HostTensor{{channels}, std::vector<float>(static_cast<size_t>(channels), value)});
      node->add_input(name + suffix);
    }
    node->add_output(name);
    onnx::AttributeProto* eps = node->add_attribute();
    eps->set_name("epsilon");
    eps->set_type(onnx::AttributeProto::FLOAT);
    eps->set_f(kNormEpsilon);
    names_[static_cast<size_t>(i)] = name;
  }

  // A node of `type` reading node i's operands, its result `name`.
  onnx::NodeProto* Op(const char* type, int i, const std::string& name) {
    onnx::NodeProto* node = g_->add_node();
    node->set_op_type(type);
    node->set_name(name);
    for (int operand : graph_.node(i).inputs) node->add_input(names_[static_cast<size_t>(operand)]);
    node->add_output(name);
    return node;
  }

  static void Ints(onnx::NodeProto* node, const char* name, const Shape& values) {
    onnx::AttributeProto* a = node->add_attribute();
    a->set_name(name);
    a->set_type(onnx::AttributeProto::INTS);
    for (int64_t v : values) a->add_ints(v);
  }

  static void Info(onnx::ValueInfoProto* info, const std::string& name, const Shape& shape) {
    info->set_name(name);
    onnx::TypeProto_Tensor* t = info->mutable_type()->mutable_tensor_type();
    t->set_elem_type(onnx::TensorProto::FLOAT);
    for (int64_t d : shape) t->mutable_shape()->add_dim()->set_dim_value(d);
  }

  void FloatInitializer(const std::string& name, const HostTensor& value) {
    onnx::TensorProto* t = g_->add_initializer();
    t->set_name(name);
    t->set_data_type(onnx::TensorProto::FLOAT);
    for (int64_t d : value.shape) t->add_dims(d);
    // raw_data is little-endian, as this machine's floats are.
    t->set_raw_data(value.values.data(), value.values.size() * sizeof(float));
  }

  std::string IntInitializer(const std::string& name, const Shape& values) {
    onnx::TensorProto* t = g_->add_initializer();
    t->set_name(name);
    t->set_data_type(onnx::TensorProto::INT64);
    t->add_dims(static_cast<int64_t>(values.size()));
    for (int64_t v : values) t->add_int64_data(v);
    return name;
  }

  const Graph& graph_;
  const Spelling& spelling_;
  std::vector<std::string> names_;  // each node's ONNX value
  std::vector<int> vars_;           // the graph's inputs
  onnx::ModelProto model_;
  onnx::GraphProto* g_ = nullptr;
};

// The case's model graph in ONNX's layouts, and which of its nodes over constants stay nodes.
struct OnnxGraph {
  Graph graph;
  std::function<bool(const Graph&, int)> keep;
};
Result<OnnxGraph> OnnxGraphOf(const ConvProblem& p, const GraphForm& form, Direction direction,
                              const Spelling& spelling) {
  if (direction != Direction::kForward)
    return Status::Unsupported("an ONNX model computes the forward direction only");
  if (spelling.bias == BiasSpelling::kFused)
    return Status::Unsupported("ONNX has no convolution fused with its bias add (bias=fused)");
  Result<Graph> graph =
      ModelGraph(p, form, direction, spelling,
                 {DataLayout::kChannelsFirst, WeightLayout::kOI, WeightLayout::kIO});
  if (!graph.ok()) return graph.status();
  // The weight's transposes stay nodes only for weight=transposed; a multiplier weight's reshape
  // (not the bias's, rank 1) stays for depthwise=multiplier.
  const bool keep_transposes = spelling.weight == WeightSpelling::kTransposed;
  const bool keep_reshapes = spelling.depthwise == DepthwiseSpelling::kMultiplier;
  return OnnxGraph{std::move(graph).value(), [=](const Graph& g, int i) {
                     const Node& n = g.node(i);
                     if (n.op == OpKind::kLayoutTransform || n.op == OpKind::kTranspose)
                       return keep_transposes;
                     return n.op == OpKind::kReshape && keep_reshapes &&
                            g.node(n.inputs[0]).shape.size() > 1;
                   }};
}

}  // namespace

Result<std::string> OnnxModel(const ConvProblem& p, const GraphForm& form, Direction direction,
                              const Spelling& spelling, const CaseBuffers& buffers) {
  Result<OnnxGraph> g = OnnxGraphOf(p, form, direction, spelling);
  if (!g.ok()) return g.status();
  Result<Graph> bound = BindModelConstants(std::move(g->graph), kInputVar, buffers, g->keep);
  if (!bound.ok()) return bound.status();
  return OnnxWriter(*bound, spelling).Write();
}

Result<WeightInputsGraph> OnnxWeightInputsGraph(const ConvProblem& p, const GraphForm& form,
                                                Direction direction, const Spelling& spelling,
                                                const CaseBuffers& buffers) {
  Result<OnnxGraph> g = OnnxGraphOf(p, form, direction, spelling);
  if (!g.ok()) return g.status();
  return BindModelWeightInputs(std::move(g->graph), kInputVar, buffers, g->keep);
}

Result<WeightInputsModel> OnnxModelWithWeightInputs(const ConvProblem& p, const GraphForm& form,
                                                    Direction direction, const Spelling& spelling,
                                                    const CaseBuffers& buffers) {
  Result<WeightInputsGraph> g = OnnxWeightInputsGraph(p, form, direction, spelling, buffers);
  if (!g.ok()) return g.status();
  Result<std::string> model = OnnxWriter(g->graph, spelling).Write();
  if (!model.ok()) return model.status();
  return WeightInputsModel{std::move(model).value(), std::move(g->weights)};
}

Status CheckOnnxModel(const std::string& model) {
  onnx::ModelProto m;
  if (!m.ParseFromString(model)) return Status::Invalid("not a serialized ONNX model");
  try {
    onnx::checker::check_model(m);
    // Strict: a node's shape the inference cannot derive, or a declared output shape that differs
    // from the inferred one, is an error.
    onnx::shape_inference::InferShapes(m, onnx::OpSchemaRegistry::Instance(),
                                       onnx::ShapeInferenceOptions(true, 1, true));
  } catch (const std::exception& e) {
    return Status::Invalid(std::string("ONNX checker: ") + e.what());
  }
  return Status::Ok();
}

}  // namespace convparity
