#include "harness/io/onnx_import.h"

#include <onnx/onnx_pb.h>
#include <onnx/shape_inference/implementation.h>

#include <exception>
#include <filesystem>
#include <map>
#include <set>
#include <utility>

#include "harness/io/files.h"
#include "harness/io/onnx_conv_node.h"
#include "reports/utf8.h"

namespace convparity {
namespace {

// A value's element type and shape as the model (after shape inference) knows them: an unknown
// dimension is -1, an unknown shape empty with `ranked` false.
struct ValueFacts {
  int elem_type = onnx::TensorProto::UNDEFINED;
  bool ranked = false;
  Shape shape;

  bool known() const {
    if (!ranked) return false;
    for (int64_t d : shape)
      if (d < 0) return false;
    return true;
  }
};

ValueFacts FactsOf(const onnx::TypeProto& type) {
  ValueFacts f;
  if (!type.has_tensor_type()) return f;
  const onnx::TypeProto_Tensor& t = type.tensor_type();
  f.elem_type = t.elem_type();
  if (!t.has_shape()) return f;
  f.ranked = true;
  for (const onnx::TensorShapeProto_Dimension& d : t.shape().dim())
    f.shape.push_back(d.has_dim_value() && d.dim_value() >= 0 ? d.dim_value() : -1);
  return f;
}

// Whether `shape` is what `declared` says, an unknown dimension or shape any.
bool Fits(const Shape& shape, const ValueFacts& declared) {
  if (!declared.ranked) return true;
  if (declared.shape.size() != shape.size()) return false;
  for (size_t i = 0; i < shape.size(); ++i)
    if (declared.shape[i] >= 0 && declared.shape[i] != shape[i]) return false;
  return true;
}

// Every value of the graph that the model or its shape inference types.
std::map<std::string, ValueFacts> GraphValues(const onnx::GraphProto& g) {
  std::map<std::string, ValueFacts> values;
  for (const onnx::TensorProto& t : g.initializer()) {
    ValueFacts f;
    f.elem_type = t.data_type();
    f.ranked = true;
    f.shape.assign(t.dims().begin(), t.dims().end());
    values[t.name()] = f;
  }
  for (const auto* list : {&g.input(), &g.value_info(), &g.output()})
    for (const onnx::ValueInfoProto& v : *list)
      if (v.has_type()) values[v.name()] = FactsOf(v.type());
  return values;
}

std::string ElemTypeName(int type) {
  return onnx::TensorProto_DataType_IsValid(type)
             ? onnx::TensorProto_DataType_Name(static_cast<onnx::TensorProto_DataType>(type))
             : "type " + std::to_string(type);
}

std::string AttributeText(const onnx::AttributeProto& a) {
  switch (a.type()) {
    case onnx::AttributeProto::INT:
      return std::to_string(a.i());
    case onnx::AttributeProto::INTS:
      return OnnxShapeText(Shape(a.ints().begin(), a.ints().end()));
    case onnx::AttributeProto::STRING:
      return a.s();
    case onnx::AttributeProto::FLOAT:
      return std::to_string(a.f());
    default:
      return "(" + onnx::AttributeProto_AttributeType_Name(a.type()) + ")";
  }
}

// "Conv [1,3,5,5] [2,3,3,3] kernel_shape=[3,3] -> [1,2,5,5]"; an unknown shape is "?".
std::string WrittenText(const onnx::NodeProto& node,
                        const std::map<std::string, ValueFacts>& values) {
  auto shape = [&](const std::string& name) {
    const auto it = values.find(name);
    return it == values.end() || !it->second.ranked ? std::string("?")
                                                    : OnnxShapeText(it->second.shape);
  };
  std::string s = node.op_type();
  for (const std::string& in : node.input())
    if (!in.empty()) s += " " + shape(in);
  for (const onnx::AttributeProto& a : node.attribute())
    s += " " + a.name() + "=" + AttributeText(a);
  for (const std::string& out : node.output()) s += " -> " + shape(out);
  return s;
}

constexpr const char* kHiddenDomain = "convparity.hidden";  // Importer::InferShapes

bool DefaultDomain(const std::string& domain) { return domain.empty() || domain == "ai.onnx"; }
bool IsConv(const std::string& op) { return op == "Conv" || op == "ConvTranspose"; }
bool IsIntegerConv(const std::string& op) { return op == "ConvInteger" || op == "QLinearConv"; }

// Convolutions inside the graphs of node attributes (If, Loop, Scan bodies), at any depth.
int64_t ConvsInSubgraphs(const onnx::NodeProto& node) {
  int64_t n = 0;
  auto walk = [&n](const onnx::GraphProto& g) {
    for (const onnx::NodeProto& inner : g.node()) {
      if (DefaultDomain(inner.domain()) &&
          (IsConv(inner.op_type()) || IsIntegerConv(inner.op_type())))
        ++n;
      n += ConvsInSubgraphs(inner);
    }
  };
  for (const onnx::AttributeProto& a : node.attribute()) {
    if (a.has_g()) walk(a.g());
    for (const onnx::GraphProto& g : a.graphs()) walk(g);
  }
  return n;
}

class Importer {
 public:
  Importer(const std::string& source, const OnnxImportOptions& options)
      : source_(source), options_(options) {}

  Status Run(onnx::ModelProto& model) {
    FixDynamicBatch(*model.mutable_graph());
    for (const onnx::ValueInfoProto& v : model.graph().output())
      if (v.has_type()) declared_[v.name()] = FactsOf(v.type());
    for (const onnx::ValueInfoProto& v : model.graph().value_info())
      if (v.has_type()) declared_[v.name()] = FactsOf(v.type());
    std::string error = InferShapes(model);
    if (!error.empty()) {
      // ONNX merges what it infers into the shapes the model declares and throws where they
      // differ: without them, each node's result is checked against both (ImportNode).
      model.mutable_graph()->clear_value_info();
      for (onnx::ValueInfoProto& v : *model.mutable_graph()->mutable_output())
        if (v.type().has_tensor_type()) v.mutable_type()->mutable_tensor_type()->clear_shape();
      const std::string again = InferShapes(model);
      if (!again.empty()) return Status::Invalid(source_ + ": ONNX shape inference: " + again);
      Count(result.tally.changed,
            "shapes: the shapes the model declares are not the ones ONNX infers, inferred without "
            "them",
            source_, error);
    }
    const onnx::GraphProto& g = model.graph();
    values_ = GraphValues(g);
    for (int i = 0; i < g.node_size(); ++i) {
      const onnx::NodeProto& node = g.node(i);
      const std::string where = source_ + " node " + std::to_string(i + 1);
      if (const int64_t inner = ConvsInSubgraphs(node); inner > 0) {
        result.tally.read += inner;
        Count(result.tally.skipped, "subgraph: a convolution in a control-flow body", where,
              "its " + node.op_type() + " node holds " + std::to_string(inner), inner);
      }
      if (!DefaultDomain(node.domain())) continue;
      if (IsIntegerConv(node.op_type())) {
        ++result.tally.read;
        Count(result.tally.skipped, "data type: " + node.op_type(), where,
              "an integer convolution: " + WrittenText(node, values_));
      } else if (IsConv(node.op_type())) {
        ++result.tally.read;
        ImportNode(node, i + 1, where);
        if (result.problems.size() > options_.max_problems)
          return Status::Limit(where + ": more than " + std::to_string(options_.max_problems) +
                               " problems imported; import fewer models at once");
      }
    }
    for (const onnx::FunctionProto& f : model.functions()) {
      for (const onnx::NodeProto& node : f.node()) {
        if (!DefaultDomain(node.domain()) ||
            !(IsConv(node.op_type()) || IsIntegerConv(node.op_type())))
          continue;
        ++result.tally.read;
        Count(result.tally.skipped, "subgraph: a convolution in a model-local function",
              source_ + " function " + f.name(), WrittenText(node, {}));
      }
    }
    return Status::Ok();
  }

  OnnxImport result;

 private:
  // ONNX's shape inference, "" or its error. It divides by strides and block sizes: a node with a
  // 0 there (no legal model has one) is hidden from it under another name, so that its result and
  // what depends on it are unknown instead of a division by zero.
  static std::string InferShapes(onnx::ModelProto& model) {
    std::vector<std::pair<onnx::NodeProto*, std::string>> hidden;  // node, its domain
    HideDivisionsByZero(*model.mutable_graph(), hidden);
    if (!hidden.empty()) {  // a domain without schemas: ONNX leaves its nodes uninferred
      onnx::OperatorSetIdProto* opset = model.add_opset_import();
      opset->set_domain(kHiddenDomain);
      opset->set_version(1);
    }
    std::string error;
    try {
      onnx::shape_inference::InferShapes(model, onnx::OpSchemaRegistry::Instance(),
                                         onnx::ShapeInferenceOptions(false, 0, true));
    } catch (const std::exception& e) {
      error = e.what();
      if (error.empty()) error = "failed";
    }
    for (auto& [node, domain] : hidden) node->set_domain(domain);
    if (!hidden.empty()) model.mutable_opset_import()->RemoveLast();
    return error;
  }

  static void HideDivisionsByZero(onnx::GraphProto& g,
                                  std::vector<std::pair<onnx::NodeProto*, std::string>>& hidden) {
    for (onnx::NodeProto& node : *g.mutable_node()) {
      bool zero = false;
      for (onnx::AttributeProto& a : *node.mutable_attribute()) {
        if (a.name() == "strides" || a.name() == "blocksize") {
          zero |= a.has_i() && a.i() == 0;
          for (int64_t v : a.ints()) zero |= v == 0;
        }
        if (a.has_g()) HideDivisionsByZero(*a.mutable_g(), hidden);
        for (onnx::GraphProto& sub : *a.mutable_graphs()) HideDivisionsByZero(sub, hidden);
      }
      if (zero && DefaultDomain(node.domain())) {
        hidden.push_back({&node, node.domain()});
        node.set_domain(kHiddenDomain);
      }
    }
  }

  void Count(std::map<std::string, TallyEntry>& tally, const std::string& key,
             const std::string& where, const std::string& what, int64_t n = 1) {
    TallyEntry& e = tally[key];
    if (e.count == 0) e = {0, where, what};
    e.count += n;
  }

  // A graph input (not an initializer) whose first dimension is not a number gets 1, so that
  // shape inference can size what follows it.
  void FixDynamicBatch(onnx::GraphProto& g) {
    std::set<std::string> initializers;
    for (const onnx::TensorProto& t : g.initializer()) initializers.insert(t.name());
    for (onnx::ValueInfoProto& v : *g.mutable_input()) {
      if (initializers.count(v.name()) || !v.type().has_tensor_type() ||
          !v.type().tensor_type().has_shape() || v.type().tensor_type().shape().dim_size() == 0)
        continue;
      onnx::TensorShapeProto_Dimension* d =
          v.mutable_type()->mutable_tensor_type()->mutable_shape()->mutable_dim(0);
      if (d->has_dim_value()) continue;
      const std::string was = d->has_dim_param() ? "'" + d->dim_param() + "'" : "unnamed";
      d->set_dim_value(1);
      Count(result.tally.changed, "batch: a dynamic first dimension of a model input set to 1",
            source_, "input '" + v.name() + "': " + was);
    }
  }

  const ValueFacts* Facts(const std::string& name) const {
    const auto it = values_.find(name);
    return it == values_.end() ? nullptr : &it->second;
  }

  void ImportNode(const onnx::NodeProto& node, int64_t position, const std::string& where) {
    auto skip = [&](const std::string& key, const std::string& what) {
      Count(result.tally.skipped, key, where, what);
    };
    const std::string written = WrittenText(node, values_);
    if (node.input_size() < 2 || node.input(0).empty() || node.input(1).empty() ||
        node.output_size() < 1) {
      skip("attribute: a " + node.op_type() + " without its input, weight or result", written);
      return;
    }
    const bool bias = node.input_size() > 2 && !node.input(2).empty();
    struct Operand {
      const char* role;
      std::string name;
    };
    std::vector<Operand> operands = {{"input", node.input(0)}, {"weight", node.input(1)}};
    if (bias) operands.push_back({"bias", node.input(2)});
    operands.push_back({"result", node.output(0)});
    for (const Operand& o : operands) {
      const ValueFacts* f = Facts(o.name);
      if (f && f->elem_type != onnx::TensorProto::UNDEFINED &&
          f->elem_type != onnx::TensorProto::FLOAT) {
        skip("data type: " + ElemTypeName(f->elem_type),
             std::string("the ") + o.role + " is " + ElemTypeName(f->elem_type) + ": " + written);
        return;
      }
    }
    const ValueFacts* x = Facts(node.input(0));
    if (x && x->ranked && (x->shape.size() < 3 || x->shape.size() > 2 + kMaxSpatialRank)) {
      skip(kOnnxRankReason, std::to_string(static_cast<int64_t>(x->shape.size()) - 2) +
                                " spatial dimensions: " + written);
      return;
    }
    for (const Operand& o : operands) {
      const ValueFacts* f = Facts(o.name);
      if (o.name == node.input(0) || o.name == node.input(1)) {
        if (!f || !f->known()) {
          skip(std::string("shapes: the ") + o.role + "'s shape is not known", written);
          return;
        }
      }
    }
    Result<OnnxConvNode> read = ReadNode(node, bias);
    if (!read.ok()) {
      skip("attribute: " + NumbersAsN(read.status().message()),
           read.status().message() + ": " + written);
      return;
    }
    read.value().input = Facts(node.input(0))->shape;
    read.value().weight = Facts(node.input(1))->shape;
    const OnnxConvConversion c = ProblemFromOnnxConv(*read);
    if (!c.problem) {
      skip(c.skip.key, c.skip.what + ": " + written);
      return;
    }
    // Not before: ONNX infers no result for a node that is no legal convolution.
    if (const ValueFacts* y = Facts(node.output(0)); !y || !y->known()) {
      skip("shapes: the result's shape is not known", written);
      return;
    }
    const Shape out = c.problem->output_shape();
    if (out != Facts(node.output(0))->shape) {
      skip("output shape: not the one ONNX's shape inference gives",
           "the problem's " + OnnxShapeText(out) + ", ONNX's " +
               OnnxShapeText(Facts(node.output(0))->shape) + ": " + written);
      return;
    }
    if (const auto it = declared_.find(node.output(0));
        it != declared_.end() && !Fits(out, it->second)) {
      skip("output shape: not the one the model declares",
           "the problem's " + OnnxShapeText(out) + ", the model's " +
               OnnxShapeText(it->second.shape) + ": " + written);
      return;
    }
    if (bias)
      if (const ValueFacts* b = Facts(node.input(2));
          b && b->known() && b->shape != Shape{c.problem->out_channels}) {
        skip("attribute: the bias is not one value per output channel",
             "the bias is " + OnnxShapeText(b->shape) + ": " + written);
        return;
      }
    Scaled(c, position, where, node.name(), written);
  }

  // The node's attributes, by name; kInvalid for one of the wrong type.
  static Result<OnnxConvNode> ReadNode(const onnx::NodeProto& node, bool bias) {
    OnnxConvNode n;
    n.transposed = node.op_type() == "ConvTranspose";
    n.bias = bias;
    for (const onnx::AttributeProto& a : node.attribute()) {
      const std::string& name = a.name();
      std::optional<Shape>* ints = name == "kernel_shape"     ? &n.kernel_shape
                                   : name == "strides"        ? &n.strides
                                   : name == "dilations"      ? &n.dilations
                                   : name == "pads"           ? &n.pads
                                   : name == "output_padding" ? &n.output_padding
                                   : name == "output_shape"   ? &n.output_shape
                                                              : nullptr;
      auto wrong = [&](const char* expected) {
        return Status::Invalid(name + " is " + onnx::AttributeProto_AttributeType_Name(a.type()) +
                               ", expected " + expected);
      };
      if (ints) {
        if (a.type() != onnx::AttributeProto::INTS) return wrong("INTS");
        *ints = Shape(a.ints().begin(), a.ints().end());
      } else if (name == "group") {
        if (a.type() != onnx::AttributeProto::INT) return wrong("INT");
        n.group = a.i();
      } else if (name == "auto_pad") {
        if (a.type() != onnx::AttributeProto::STRING) return wrong("STRING");
        n.auto_pad = a.s();
      }
    }
    return n;
  }

  // The problem scaled as the options say, its spelling kept where it still fits; imported
  // unless it is over the budget or the limits.
  void Scaled(const OnnxConvConversion& c, int64_t position, const std::string& where,
              const std::string& name, const std::string& written) {
    const ConvProblem scaled = ScaleDown(*c.problem, options_.scale);
    ConvProblem p = scaled;
    Spelling spelling = c.spelling;
    ConformToSpelling(spelling, p);  // SAME's pads follow the sizes
    std::vector<OnnxReason> changes = c.changes;
    if (!Validate(p).ok() || !CheckSpelling(spelling, p).ok()) {
      p = scaled;
      const Spelling fits = FittingSpelling(spelling, p);
      changes.push_back({"spelling: " + SpellingText(spelling) + " written as " +
                             (fits.plain() ? "explicit pads" : SpellingText(fits)) +
                             " after scaling",
                         CheckSpelling(spelling, p).message()});
      spelling = fits;
    }
    if (options_.scale.max_macs > 0 && p.macs() > options_.scale.max_macs) {
      // ScaleDown keeps kernels; a problem whose kernel alone is over the budget stays too big.
      Count(result.tally.skipped, "size: over the MAC budget after scaling", where,
            "still " + std::to_string(p.macs()) + " multiply-adds: " + written);
      return;
    }
    // A case `check` would refuse is no case of its corpus (as for benchdnn's lists).
    if (Status st = CheckLimits(p, options_.case_limits); !st.ok()) {
      Count(result.tally.skipped,
            "size: over the limits of a check (--max-elements, --max-macs, --max-extent)", where,
            st.message() + ": " + written);
      return;
    }
    for (const OnnxReason& change : changes)
      Count(result.tally.changed, change.key, where, change.what + ": " + written);
    ++result.tally.imported;
    result.problems.push_back({p, spelling, source_, position, name, written});
  }

  const std::string source_;
  const OnnxImportOptions& options_;
  std::map<std::string, ValueFacts> values_;    // after shape inference
  std::map<std::string, ValueFacts> declared_;  // the results' shapes the model declares
};

}  // namespace

std::string OnnxProblem::Where() const { return file + " node " + std::to_string(node); }

Result<OnnxImport> ParseOnnxModel(const std::string& bytes, const std::string& source,
                                  const OnnxImportOptions& options) {
  if (bytes.size() > options.max_file_bytes)
    return Status::Limit(source + ": larger than " + std::to_string(options.max_file_bytes) +
                         " bytes");
  onnx::ModelProto model;
  // Protobuf reads many byte strings as some message; an ONNX model has an IR version and a graph.
  if (!model.ParseFromString(bytes) || !model.has_ir_version() || !model.has_graph())
    return Status::Invalid(source + ": not an ONNX model (no ModelProto with a graph)");
  Importer importer(source, options);
  CP_RETURN_IF_ERROR(importer.Run(model));
  return std::move(importer.result);
}

Result<OnnxImport> ImportOnnxFile(const std::string& path, const OnnxImportOptions& options) {
  std::error_code error;
  if (!std::filesystem::is_regular_file(path, error))
    return Status::Invalid(
        path + (std::filesystem::exists(path, error) ? ": not a file" : ": no such file"));
  Result<std::string> bytes = ReadFile(path, options.max_file_bytes);
  if (!bytes.ok()) return bytes.status();
  return ParseOnnxModel(*bytes, path, options);
}

Result<WrittenCases> WriteOnnxCases(const std::vector<OnnxProblem>& problems,
                                    const std::vector<Direction>& directions,
                                    const std::vector<Fill>& fills, const std::string& sut,
                                    const std::string& out_dir, uint64_t seed) {
  if (sut.empty()) return Status::Invalid("a system under test is needed for the cases");
  WrittenCases count;
  std::set<std::string> paths;
  for (const OnnxProblem& op : problems) {
    if (Status st = Validate(op.problem); !st.ok()) return st.WithContext(op.Where());
    if (Status st = CheckSpelling(op.spelling, op.problem); !st.ok())
      return st.WithContext(op.Where());
    ConvCase c;
    c.problem = op.problem;
    c.spelling = op.spelling;
    c.sut = sut;
    c.seed = seed;
    const std::string type = op.problem.transposed ? "ConvTranspose" : "Conv";
    c.note = ValidUtf8((op.name.empty() ? type : op.name) + " (" + op.Where() + ")");
    // Paths and names may hold any bytes; case files are UTF-8.
    c.origin = {"onnx", ValidUtf8(op.file), op.node, ValidUtf8(op.name), ValidUtf8(op.written), {}};
    CP_RETURN_IF_ERROR(WriteCasePerDirectionAndFill(out_dir, c, directions, fills, &paths));
    count.written += static_cast<int64_t>(directions.size() * fills.size());
  }
  count.distinct = static_cast<int64_t>(paths.size());
  return count;
}

}  // namespace convparity
