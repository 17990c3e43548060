// ONNX Runtime under test through convparity's process protocol (harness/exec/PROTOCOL.md).
//
//   node ort_sut.js disabled|all     (convparity: --sut onnxruntime, --sut onnxruntime-opt)
//
// Forward only (ONNX Runtime's inference API has no gradients), on the CPU execution provider.
//  - `disabled`: graph optimizations off. Each case is a one-node ONNX model (Conv, or
//    ConvTranspose; 1-3-D, group, dilations, asymmetric pads, output_padding, strides) written by
//    onnx_writer.js with the weight and bias as graph inputs, so that one session serves every case
//    of the same problem (sessions are cached by problem).
//  - `all`: a frontend (common/onnx_models.js): it reads the ONNX model convparity writes of each
//    case, in every spelling and graph form, with the weights as constants as in a deployed model,
//    and runs it with every graph optimization (constant folding, Conv + BatchNormalization and
//    Conv + Add fusions, Pad folding, layout rewrites: NCHWc on x86 for suitable channel counts).
'use strict';

const {serve, Unsupported} = require('../common/convparity_protocol.js');
const {oneNodeModel} = require('./onnx_writer.js');

const level = process.argv[2];
if (level !== 'disabled' && level !== 'all') {
  console.error('usage: node ort_sut.js disabled|all');
  process.exit(2);
}
const ort = require('onnxruntime-node');

if (level === 'all') {
  const {serveOnnxModels} = require('../common/onnx_models.js');
  serveOnnxModels({
    ort,
    name: 'onnxruntime-opt',
    version: `${ort.env.versions.node || ort.env.versions.common} (cpu, optimization all, ` +
             `node ${process.versions.node})`,
    sessionOptions: {
      graphOptimizationLevel: 'all',
      executionProviders: ['cpu'],
      intraOpNumThreads: 1,
      interOpNumThreads: 1,
      executionMode: 'sequential',
      logSeverityLevel: 3,
    },
    reportOptimized: true,
  }).then((code) => process.exit(code), (e) => {
    console.error(e && e.stack ? e.stack : e);
    process.exit(1);
  });
  return;
}

const kOpset = 17;
const kMaxCachedSessions = 64;
const sessions = new Map();  // problem key → session, least recently used first

function modelFor(p) {

  const weightShape = p.transposed
      ? [p.in_channels, p.out_channels / p.groups, ...p.kernel]
      : [p.out_channels, p.in_channels / p.groups, ...p.kernel];
  const attributes = {
    group: p.groups,
    kernel_shape: p.kernel,
    strides: p.stride,
    dilations: p.dilation,
    pads: [...p.pad_begin, ...p.pad_end],
  };
  if (p.transposed) attributes.output_padding = p.output_padding;
  const x = {name: 'X', shape: [p.batch, p.in_channels, ...p.input]};
  const w = {name: 'W', shape: weightShape};
  const b = {name: 'B', shape: [p.out_channels]};
  const tensors = p.bias ? [w, b] : [w];
  const inputs = [x, ...tensors];
  const initializers = [];
  return oneNodeModel({
    opType: p.transposed ? 'ConvTranspose' : 'Conv',
    attributes,
    nodeInputs: ['X', ...tensors.map((t) => t.name)],
    inputs,
    initializers,
    outputs: [{name: 'Y', shape: [p.batch, p.out_channels, ...p.output]}],
    opset: kOpset,
  });
}

const options = {
  graphOptimizationLevel: level,
  executionProviders: ['cpu'],
  intraOpNumThreads: 1,  // one core per worker: campaigns run workers in parallel
  interOpNumThreads: 1,
  executionMode: 'sequential',
  logSeverityLevel: 3,
};

async function sessionFor(p) {
  const key = JSON.stringify(p);
  let session = sessions.get(key);
  if (session) {
    sessions.delete(key);  // refreshed below as the most recently used
  } else {
    session = await ort.InferenceSession.create(modelFor(p), options);
    if (sessions.size >= kMaxCachedSessions) {
      const [oldest, s] = sessions.entries().next().value;
      sessions.delete(oldest);
      await s.release();
    }
  }
  sessions.set(key, session);
  return session;
}

// ONNX Runtime saying it lacks something is a decline; anything else is an error.
const kLacks = /NOT_IMPLEMENTED|not (yet )?(supported|implemented)/i;

async function compute(request, inputs) {
  if (request.direction !== 'fwd') throw new Unsupported('ONNX Runtime runs forward only');
  const p = request.problem;
  // ONNX Runtime checks that the forward convolution of the ConvTranspose output gives back its
  // input, which holds only for output_padding < stride (PyTorch allows < max(stride, dilation)).
  if (p.transposed && p.output_padding.some((op, i) => op >= p.stride[i]))
    throw new Unsupported('ONNX Runtime\'s ConvTranspose takes output_padding < stride only');
  const feeds = {X: new ort.Tensor('float32', inputs.input, request.inputs[0].shape)};
  let session;
  try {
    session = await sessionFor(p);
    feeds.W = new ort.Tensor('float32', inputs.weight, request.inputs[1].shape);
    if (p.bias) feeds.B = new ort.Tensor('float32', inputs.bias, [p.out_channels]);
    const results = await session.run(feeds);
    return Float32Array.from(results.Y.data);
  } catch (e) {
    if (kLacks.test(String(e && e.message))) throw new Unsupported(String(e.message));
    throw e;
  }
}

serve({
  name: 'onnxruntime',
  version: `${ort.env.versions.node || ort.env.versions.common} (cpu, optimization disabled, ` +
           `node ${process.versions.node})`,
  directions: ['fwd'],
  // What compute runs (docs/INTERFACES.md, "Capabilities"): every forward case but a transposed one
  // with output_padding ≥ stride.
  capabilities: [{output_padding: 'below_stride'}],
  compute,
}).then((code) => process.exit(code), (e) => {
  console.error(e && e.stack ? e.stack : e);
  process.exit(1);
});
