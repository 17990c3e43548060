// opencv-dnn-4: OpenCV DNN ignores an ONNX ConvTranspose's output_shape, and then its
// output_padding too (findings/opencv-dnn-4/README.md). Seen on OpenCV 4.6.0, Debian 12
// libopencv-dnn-dev.
//
//   g++ -std=c++17 -DONNX_NAMESPACE=onnx -DONNX_ML=1 -I/usr/include/opencv4 repro.cc -o repro
//     -lopencv_dnn -lopencv_core -lonnx -lonnx_proto -lprotobuf    (one line), then ./repro
//
// Builds each model in memory, runs it with cv::dnn::readNetFromONNX (default backend and target)
// and compares with a plain loop of ONNX's definition. Exit 1: a case differs; 0: all agree;
// 77: OpenCV could not run the control model; 2: the program itself is wrong.

#include <onnx/checker.h>
#include <onnx/onnx_pb.h>
#include <onnx/shape_inference/implementation.h>

#include <algorithm>
#include <cstdio>
#include <exception>
#include <fstream>
#include <opencv2/core/utils/logger.hpp>
#include <opencv2/dnn.hpp>
#include <string>
#include <vector>

using Ints = std::vector<int64_t>;

// A Conv or ConvTranspose of one channel (batch 1, group 1), 1-D or 2-D.
struct Case {
  const char* title;
  const char* file;  // where --write-models puts its model; nullptr: nowhere
  bool transposed;
  Ints in, kernel, strides, dilations, pads;  // pads: the begins, then the ends
  const char* auto_pad;                       // nullptr: absent (explicit pads)
  Ints output_padding, output_shape;          // ConvTranspose; output_shape empty: absent
};

// Stride 1, dilation 1, no padding; the cases change what they need.
static Case Make(const char* title, bool transposed, const Ints& in, const Ints& kernel) {
  const Ints ones(in.size(), 1), zeros(in.size(), 0);
  Ints pads = zeros;
  pads.insert(pads.end(), zeros.begin(), zeros.end());
  return {title, nullptr, transposed, in, kernel, ones, ones, pads, nullptr, zeros, {}};
}

// ONNX's begin padding and output size along axis a.
static void Resolve(const Case& c, size_t a, int64_t& begin, int64_t& size) {
  const size_t r = c.in.size();
  const int64_t in = c.in[a], s = c.strides[a], reach = (c.kernel[a] - 1) * c.dilations[a] + 1;
  int64_t total = 0;
  // The full output of the ConvTranspose, cropped:
  const int64_t full = s * (in - 1) + c.output_padding[a] + reach;
  if (!c.output_shape.empty()) {
    size = c.output_shape[a];
    total = full - size;
  } else {
    begin = c.pads[a];
    size = full - c.pads[a] - c.pads[r + a];
    return;
  }
  // The total split in two, the odd one at the end for SAME_UPPER, at the start otherwise.
  const bool upper = c.auto_pad && std::string(c.auto_pad) == "SAME_UPPER";
  begin = upper ? total / 2 : total - total / 2;
}

// ONNX's definition in a plain loop, in double: Conv y[o] += x[o * s - begin + k * d] * w[k];
// ConvTranspose y[i * s - begin + k * d] += x[i] * w[k], along each axis.
static std::vector<double> Reference(const Case& c, const std::vector<float>& x,
                                     const std::vector<float>& w, Ints& out) {
  const size_t r = c.in.size();
  Ints in(2, 1), k(2, 1), s(2, 1), d(2, 1), begin(2, 0), size(2, 1);  // 1-D: a height of 1
  for (size_t a = 0; a < r; ++a) {
    const size_t b = 2 - r + a;
    in[b] = c.in[a], k[b] = c.kernel[a], s[b] = c.strides[a], d[b] = c.dilations[a];
    Resolve(c, a, begin[b], size[b]);
    out.push_back(size[b]);
  }
  std::vector<double> y(size[0] * size[1], 0.0);
  const Ints& outer = c.transposed ? in : size;  // the loop runs over y (Conv) or x (transposed)
  const Ints& inner = c.transposed ? size : in;
  for (int64_t o0 = 0; o0 < outer[0]; ++o0)
    for (int64_t o1 = 0; o1 < outer[1]; ++o1)
      for (int64_t k0 = 0; k0 < k[0]; ++k0)
        for (int64_t k1 = 0; k1 < k[1]; ++k1) {
          const int64_t i0 = o0 * s[0] - begin[0] + k0 * d[0];
          const int64_t i1 = o1 * s[1] - begin[1] + k1 * d[1];
          if (i0 < 0 || i0 >= inner[0] || i1 < 0 || i1 >= inner[1]) continue;
          const double term = w[k0 * k[1] + k1];
          if (c.transposed)
            y[i0 * size[1] + i1] += x[o0 * in[1] + o1] * term;
          else
            y[o0 * size[1] + o1] += x[i0 * in[1] + i1] * term;
        }
  return y;
}

static void Attr(onnx::NodeProto* node, const char* name, const Ints& values) {
  onnx::AttributeProto* a = node->add_attribute();
  a->set_name(name);
  a->set_type(onnx::AttributeProto::INTS);
  for (int64_t v : values) a->add_ints(v);
}

static void Tensor(onnx::ValueInfoProto* info, const char* name, const Ints& spatial) {
  info->set_name(name);
  onnx::TypeProto_Tensor* t = info->mutable_type()->mutable_tensor_type();
  t->set_elem_type(onnx::TensorProto::FLOAT);
  for (int64_t d : Ints{1, 1}) t->mutable_shape()->add_dim()->set_dim_value(d);
  for (int64_t d : spatial) t->mutable_shape()->add_dim()->set_dim_value(d);
}

// The model convparity writes for such a case: x -> Conv|ConvTranspose(v1) -> y, opset 13, with
// kernel_shape, strides, dilations, group, output_padding (transposed) and one of pads, auto_pad,
// output_shape; held to ONNX's checker and its strict shape inference (the declared y included).
static std::string Model(const Case& c, const std::vector<float>& w, const Ints& out) {
  onnx::ModelProto m;
  m.set_ir_version(7);
  m.set_producer_name("convparity");
  onnx::OperatorSetIdProto* opset = m.add_opset_import();
  opset->set_domain("");
  opset->set_version(13);
  onnx::GraphProto* g = m.mutable_graph();
  g->set_name("convparity");
  onnx::NodeProto* node = g->add_node();
  node->set_op_type(c.transposed ? "ConvTranspose" : "Conv");
  node->set_name("y");
  node->add_input("x");
  node->add_input("v1");
  node->add_output("y");
  Attr(node, "kernel_shape", c.kernel);
  Attr(node, "strides", c.strides);
  Attr(node, "dilations", c.dilations);
  onnx::AttributeProto* group = node->add_attribute();
  group->set_name("group");
  group->set_type(onnx::AttributeProto::INT);
  group->set_i(1);
  if (c.transposed) Attr(node, "output_padding", c.output_padding);
  if (!c.output_shape.empty()) {
    Attr(node, "output_shape", c.output_shape);
  } else {
    Attr(node, "pads", c.pads);
  }
  onnx::TensorProto* t = g->add_initializer();
  t->set_name("v1");
  t->set_data_type(onnx::TensorProto::FLOAT);
  for (int64_t d : Ints{1, 1}) t->add_dims(d);
  for (int64_t d : c.kernel) t->add_dims(d);
  t->set_raw_data(w.data(), w.size() * sizeof(float));  // little-endian, as this machine's
  Tensor(g->add_input(), "x", c.in);
  Tensor(g->add_output(), "y", out);
  onnx::checker::check_model(m);
  onnx::shape_inference::InferShapes(m, onnx::OpSchemaRegistry::Instance(),
                                     onnx::ShapeInferenceOptions(true, 1, true));
  return m.SerializeAsString();
}

static std::string Text(const Ints& shape, const float* v, size_t n) {
  std::string s = "shape [1,1";
  for (int64_t d : shape) s += "," + std::to_string(d);
  s += "] values [";
  for (size_t i = 0; i < n; ++i) s += (i ? ", " : "") + std::to_string(int64_t(v[i]));
  return s + "]";
}

// OpenCV's result for the model: 0, or 77 when it refuses it.
static int Forward(const std::string& model, const Case& c, std::vector<float>& x, Ints& shape,
                   std::vector<float>& y) {
  try {
    cv::dnn::Net net = cv::dnn::readNetFromONNX(model.data(), model.size());
    std::vector<int> dims = {1, 1};
    for (int64_t d : c.in) dims.push_back(int(d));
    net.setInput(cv::Mat(int(dims.size()), dims.data(), CV_32F, x.data()));
    const cv::Mat out = net.forward();
    shape.assign(out.size.p + 2, out.size.p + out.dims);
    y.assign(out.ptr<float>(), out.ptr<float>() + out.total());
    return 0;
  } catch (const cv::Exception& e) {
    std::printf("  OpenCV refused it: %s\n", e.what());
    return 77;
  }
}

// 1: OpenCV differs from the loop, 0: agrees, 77: OpenCV refused the model.
static int Run(const Case& c, const char* dir) {
  std::vector<float> x, w;  // 1, 2, 3, …; 1, 10, 100, …: each output shows the taps it used
  int64_t nx = 1, nw = 1;
  for (size_t a = 0; a < c.in.size(); ++a) nx *= c.in[a], nw *= c.kernel[a];
  for (int64_t i = 0; i < nx; ++i) x.push_back(float(i + 1));
  for (int64_t i = 0; i < nw; ++i) w.push_back(i == 0 ? 1.f : w.back() * 10);
  Ints out;
  const std::vector<double> ref = Reference(c, x, w, out);
  const std::vector<float> expected(ref.begin(), ref.end());  // small integers: exact
  const std::string model = Model(c, w, out);
  if (dir && c.file) std::ofstream(std::string(dir) + "/" + c.file, std::ios::binary) << model;
  std::printf("%s\n  expected %s\n", c.title, Text(out, expected.data(), expected.size()).c_str());
  Ints got;
  std::vector<float> y;
  if (int rc = Forward(model, c, x, got, y)) return rc;
  std::printf("  OpenCV   %s\n", Text(got, y.data(), y.size()).c_str());
  const bool same = got == out && y == expected;
  std::printf("  -> %s\n", same ? "agrees" : "DIFFERS");
  return same ? 0 : 1;
}

// The controls first: they must agree (which checks the loop, and that OpenCV reads ONNX here).
// `--write-models DIR` also writes the models of convparity's cases there.
static int Main(int argc, char** argv, const std::vector<Case>& controls,
                const std::vector<Case>& cases) {
  cv::utils::logging::setLogLevel(cv::utils::logging::LOG_LEVEL_SILENT);
  const char* dir = argc == 3 && std::string(argv[1]) == "--write-models" ? argv[2] : nullptr;
  try {
    for (const Case& c : controls)
      if (int rc = Run(c, dir)) return rc == 77 ? 77 : 2;
    int differ = 0;
    for (const Case& c : cases) differ += Run(c, dir) != 0;
    std::printf("%d of %zu cases differ from ONNX's definition\n", differ, cases.size());
    return differ ? 1 : 0;
  } catch (const std::exception& e) {  // ONNX's checker: the model is not what it should be
    std::printf("invalid model: %s\n", e.what());
    return 2;
  }
}

int main(int argc, char** argv) {
  Case control = Make(
      "control: ConvTranspose X(1,1,1,1), W(1,1,1,1), strides [1,2], "
      "output_padding [0,1]",
      true, {1, 1}, {1, 1});
  control.strides = {1, 2};
  control.output_padding = {0, 1};
  Case minimal = control;
  minimal.title = "convparity's case: the same with output_shape [1,2]";
  minimal.output_shape = {1, 2};
  minimal.file = "model.onnx";
  Case cropped = Make("ConvTranspose X(1,1,1,1), W(1,1,1,3), output_shape [1,1] (pads 1 and 1)",
                      true, {1, 1}, {1, 3});
  cropped.output_shape = {1, 1};
  return Main(argc, argv, {control}, {minimal, cropped});
}
