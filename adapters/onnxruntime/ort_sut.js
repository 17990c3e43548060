// ONNX Runtime under test through convparity's process protocol (harness/exec/PROTOCOL.md), as a
// frontend (common/onnx_models.js): it reads the ONNX model convparity writes of each case, in
// every spelling and graph form.
//
//   node ort_sut.js disabled|all     (convparity: --sut onnxruntime, --sut onnxruntime-opt)
//
// Forward only (ONNX Runtime's inference API has no gradients), on the CPU execution provider.
//  - `disabled`: graph optimizations off, so that each op runs the kernel the model names. The
//    model's weights are its inputs (the hello's model_weights), so that one cached session serves
//    every case of the same model.
//  - `all`: the weights are constants as in a deployed model, and every graph optimization runs
//    (constant folding, Conv + BatchNormalization and Conv + Add fusions, Pad folding, layout
//    rewrites: NCHWc on x86 for suitable channel counts).
'use strict';

const {serveOnnxModels} = require('../common/onnx_models.js');

const level = process.argv[2];
if (level !== 'disabled' && level !== 'all') {
  console.error('usage: node ort_sut.js disabled|all');
  process.exit(2);
}
const ort = require('onnxruntime-node');
const disabled = level === 'disabled';

// ONNX Runtime checks that the forward convolution of a ConvTranspose's output gives back its
// input, which holds only for output_padding < stride (PyTorch allows < max(stride, dilation)).
function declines(request) {
  const p = request.problem;
  return p.transposed && p.output_padding.some((op, i) => op >= p.stride[i])
      ? 'ONNX Runtime\'s ConvTranspose takes output_padding < stride only'
      : '';
}

serveOnnxModels({
  ort,
  name: disabled ? 'onnxruntime' : 'onnxruntime-opt',
  version: `${ort.env.versions.node || ort.env.versions.common} (cpu, optimization ${level}, ` +
           `node ${process.versions.node})`,
  sessionOptions: {
    graphOptimizationLevel: level,
    executionProviders: ['cpu'],
    intraOpNumThreads: 1,  // one core per worker: campaigns run workers in parallel
    interOpNumThreads: 1,
    executionMode: 'sequential',
    logSeverityLevel: 3,
  },
  reportOptimized: !disabled,
  weightsAsInputs: disabled,
  // It declares nothing (docs/INTERFACES.md, "Capabilities"): what ONNX Runtime refuses depends on
  // the spelling too (no dilation with an auto_pad SAME mode), which a declaration cannot say.
  declines: disabled ? declines : () => '',
}).then((code) => process.exit(code), (e) => {
  console.error(e && e.stack ? e.stack : e);
  process.exit(1);
});
