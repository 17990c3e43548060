// OpenCV DNN under test through the models convparity writes (plugin ABI 4, model_format "onnx"):
// cv::dnn::readNetFromONNX from memory, the default backend and target (OpenCV's own CPU code),
// the case's input as an N-dimensional Mat. 1-3-D, ordinary and transposed, forward: ONNX has no
// gradients. Every spelling of the ONNX writer reaches OpenCV's importer as written.
//
// OpenCV refuses what its importer or layers do not support by throwing cv::Exception (a failed
// assertion, an unknown attribute): that is a decline, reported with OpenCV's own reason (its
// message's last line, without the source path). A crash stays a crash.
#include <cstddef>
#include <cstring>
#include <exception>
#include <opencv2/core.hpp>
#include <opencv2/core/utils/logger.hpp>
#include <opencv2/core/version.hpp>
#include <opencv2/dnn.hpp>
#include <regex>
#include <string>
#include <vector>

#include "adapter_support.h"
#include "convparity_plugin.h"

namespace {

using convparity_adapter::Decline;
using convparity_adapter::Fail;
using convparity_adapter::LastMessageText;

// OpenCV's message, "OpenCV(4.6.0) /path/file.cpp:123: error: (-215:Assertion failed) cond in
// function 'f'", on one line without the versions, paths and node names ("onnx_node!v3"), which
// are the model's, so that the summary counts one refusal as one reason.
std::string Reason(const cv::Exception& e) {
  std::string text = e.err.empty() ? e.what() : e.err;
  if (!e.func.empty()) text += " in " + e.func;
  static const std::regex kNoise(R"(OpenCV\([^)]*\) [^ ]*:[0-9]+: |onnx_node![A-Za-z0-9_]*|\s+)");
  text = std::regex_replace(text, kNoise, " ");
  return "OpenCV:" + text.substr(0, 180);
}

int RunModel(const convparity_problem*, convparity_model* m) {
  // The fields it writes end within what the calling convparity gave.
  if (m->struct_size < offsetof(convparity_model, result_shape) + sizeof m->result_shape)
    return Fail("convparity_model is older than this adapter");
  if (std::strcmp(m->format, "onnx") != 0) return Decline("reads ONNX models only");
  // Its importer logs each refusal on stderr besides throwing it: the reason reaches the report.
  static const bool quiet =
      (cv::utils::logging::setLogLevel(cv::utils::logging::LOG_LEVEL_SILENT), true);
  (void)quiet;
  try {
    cv::dnn::Net net =
        cv::dnn::readNetFromONNX(static_cast<const char*>(m->bytes), static_cast<size_t>(m->size));
    net.setPreferableBackend(cv::dnn::DNN_BACKEND_OPENCV);
    net.setPreferableTarget(cv::dnn::DNN_TARGET_CPU);
    std::vector<int> in_shape(m->input_shape, m->input_shape + m->input_rank);
    cv::Mat input(m->input_rank, in_shape.data(), CV_32F, const_cast<float*>(m->input));
    net.setInput(input, m->input_name);
    cv::Mat out = net.forward(m->output_name);
    if (out.type() != CV_32F) return Fail("OpenCV's result is not float32");
    // What OpenCV computed, for the harness to compare with the model's declared output.
    if (out.dims > CONVPARITY_MAX_MODEL_RANK) return Fail("OpenCV's result has too many axes");
    m->result_rank = out.dims;
    for (int i = 0; i < out.dims; ++i) m->result_shape[i] = out.size[i];
    if (!out.isContinuous()) out = out.clone();
    size_t expected = 1;
    for (int i = 0; i < m->output_rank; ++i) expected *= static_cast<size_t>(m->output_shape[i]);
    if (out.total() == expected) std::memcpy(m->output, out.ptr<float>(), expected * sizeof(float));
    return CONVPARITY_OK;
  } catch (const cv::Exception& e) {
    return Decline(Reason(e));
  } catch (const std::exception& e) {  // not a refusal: a failure (std::bad_alloc, …)
    return Fail(std::string("OpenCV threw ") + e.what());
  }
}

const convparity_plugin kPlugin = {
    CONVPARITY_PLUGIN_ABI_VERSION,
    "OpenCV DNN " CV_VERSION " (ONNX importer, default CPU backend)",
    CONVPARITY_FORWARD,
    nullptr,
    nullptr,
    nullptr,
    LastMessageText,
    0,
    nullptr,
    nullptr,
    // Nothing declared: its refusals are its importer's and layers' assertions, spread over the
    // space, and each is a skip with OpenCV's reason.
    nullptr,
    nullptr,
    "onnx",
    RunModel,
};

}  // namespace

CONVPARITY_PLUGIN_EXPORT const convparity_plugin* convparity_plugin_entry(void) { return &kPlugin; }
