// onnxruntime-web under test: its WebAssembly build (kernels compiled apart from onnxruntime-node's)
// run in Node.js, reading the ONNX models convparity writes (convparity: --sut onnxruntime-web).
// It needs a process of its own: loaded beside onnxruntime-node in one process, one package's
// sessions silently run on the other's backend.
'use strict';

const {serveOnnxModels} = require('../common/onnx_models.js');
const ort = require('onnxruntime-web');

ort.env.wasm.numThreads = 1;  // one core per worker: campaigns run workers in parallel
ort.env.logLevel = 'error';

serveOnnxModels({
  ort,
  name: 'onnxruntime-web',
  version: `${ort.env.versions.web} (wasm, node ${process.versions.node})`,
  sessionOptions: {executionProviders: ['wasm'], graphOptimizationLevel: 'all', logSeverityLevel: 3},
}).then((code) => process.exit(code), (e) => {
  console.error(e && e.stack ? e.stack : e);
  process.exit(1);
});
