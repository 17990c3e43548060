// A frontend under test through the process protocol: an ONNX Runtime package (onnxruntime-node
// or onnxruntime-web, which share their API) reading the ONNX models convparity writes of each
// case (harness/exec/PROTOCOL.md, "Models"), forward, every spelling and graph form.
//
//   serveOnnxModels({ort, name, version, sessionOptions})
//
// A session is made from each model's bytes and released after its run. What ONNX Runtime refuses
// with a status (a model its loader or a kernel's checks do not take: "Dilation not supported for
// AutoPadType", an output shape it computes otherwise) is a decline with its message, the node's
// name left out so that the summary counts refusals by reason; a crash of the process stays a
// crash.
'use strict';

const {serve, Unsupported} = require('./convparity_protocol.js');

// A status ONNX Runtime returned (onnxruntime-node: "[ONNXRuntimeError] : 2 : …" when loading,
// "Non-zero status code returned while running …" when running; onnxruntime-web: "… ERROR_CODE: 2,
// ERROR_MESSAGE: …"), not a failure of its code such as WebAssembly's "memory access out of
// bounds", which stays an error.
const kStatus =
    /ONNXRuntimeError|ERROR_CODE|Non-zero status code|NOT_IMPLEMENTED|not (yet )?(supported|implemented)/i;

// ONNX Runtime's refusal as a decline, one line without the node's name (the writer's, not the
// reason's); anything else as it is.
function refusal(e) {
  const text = String(e && e.message ? e.message : e);
  return kStatus.test(text) ? new Unsupported(text.replace(/Name:'[^']*' /g, '')) : e;
}

function sameShape(a, b) {
  return a.length === b.length && a.every((d, i) => Number(d) === b[i]);
}

function serveOnnxModels({ort, name, version, sessionOptions}) {
  async function compute(request, inputs, model) {
    if (!model) throw new Error('a model reader got a run without a model');
    let session;
    try {
      session = await ort.InferenceSession.create(model, sessionOptions);
    } catch (e) {
      throw refusal(e);  // the loader checks the model against its kernels
    }
    try {
      const x = new ort.Tensor('float32', inputs.input, request.inputs[0].shape);
      const y = (await session.run({x})).y;
      if (!sameShape(y.dims, request.result.shape)) return {shape: y.dims.map(Number)};
      return Float32Array.from(y.data);
    } catch (e) {
      throw refusal(e);
    } finally {
      await session.release();
    }
  }
  return serve({name, version, directions: ['fwd'], modelFormat: 'onnx', compute});
}

module.exports = {serveOnnxModels};
