// TensorFlow.js under test through convparity's process protocol (harness/exec/PROTOCOL.md).
//
//   node tfjs_sut.js cpu|wasm        (convparity: --sut tfjs-cpu, --sut tfjs-wasm)
//
// Ops: conv1d, conv2d, depthwiseConv2d (depth multiplier), conv2dTranspose, conv3d,
// conv3dTranspose; forward, and the gradients with respect to input and filter through tf.grad,
// i.e. the gradient functions and backprop kernels the backend registers. TensorFlow.js is
// channels-last with HWIO / DHWIO filters: buffers are converted in plain JavaScript (no backend op
// touches them), and what TensorFlow.js cannot express is declined with the reason:
//  - groups other than 1 or depthwise (groups = C_in, 1-D and 2-D, not transposed);
//  - stride > 1 together with dilation > 1 (the ops refuse it), dilation in transposed ops;
//  - conv3d / conv3dTranspose padding that is neither VALID nor SAME.
// 1-D depthwise and transposed problems run as 2-D ones of height 1 (how conv1d itself runs).
// What a backend does not register (a kernel, a gradient) is declined with TensorFlow.js's message.
'use strict';

const {serve, Unsupported, permute} = require('../common/convparity_protocol.js');

const backend = process.argv[2];
if (backend !== 'cpu' && backend !== 'wasm') {
  console.error('usage: node tfjs_sut.js cpu|wasm');
  process.exit(2);
}
// CommonJS: the full package registers the gradients (tfjs-core alone does not).
const tf = require('@tensorflow/tfjs');
if (backend === 'wasm') require('@tensorflow/tfjs-backend-wasm');

const range = (a, b) => Array.from({length: b - a}, (_, i) => a + i);
const prod = (v) => v.reduce((a, b) => a * b, 1);

// TensorFlow's SAME padding of a forward convolution over `size` elements, or null.
function samePads(size, kernel, stride, dilation) {
  const effective = dilation * (kernel - 1) + 1;
  const out = Math.ceil(size / stride);
  const total = Math.max((out - 1) * stride + effective - size, 0);
  return [Math.floor(total / 2), total - Math.floor(total / 2)];
}

// 'valid', 'same', or null when the padding is neither. `sizes` are the forward convolution's
// input sizes (for a transposed one: its output).
function namedPadding(sizes, p) {
  if (range(0, sizes.length).every((i) => p.pad_begin[i] === 0 && p.pad_end[i] === 0))
    return 'valid';
  const same = range(0, sizes.length).every((i) => {
    const [b, e] = samePads(sizes[i], p.kernel[i], p.stride[i], p.dilation[i]);
    return b === p.pad_begin[i] && e === p.pad_end[i];
  });
  return same ? 'same' : null;
}

// The problem as TensorFlow.js will run it: 1-D depthwise and transposed problems as 2-D ones of
// height 1 (the same data: a size-1 axis moves nothing).
function planFor(p) {
  const depthwise = p.groups > 1 && p.groups === p.in_channels;
  if (p.groups > 1 && !depthwise)
    throw new Unsupported(`TensorFlow.js has no grouped convolution (groups=${p.groups})`);
  if (depthwise && p.transposed)
    throw new Unsupported('TensorFlow.js has no grouped (depthwise) transposed convolution');
  if (depthwise && p.rank === 3) throw new Unsupported('TensorFlow.js has no 3-D depthwise conv');
  const kind = depthwise ? 'depthwise' : p.transposed ? 'transpose' : 'conv';
  const q = JSON.parse(JSON.stringify(p));
  if (p.rank === 1 && kind !== 'conv') {
    const one = {input: 1, kernel: 1, stride: 1, pad_begin: 0, pad_end: 0, dilation: 1,
                 output_padding: 0, output: 1};
    for (const [key, v] of Object.entries(one)) q[key] = [v, ...p[key]];
    q.rank = 2;
  }
  const r = q.rank;
  const strided = q.stride.some((s) => s > 1), dilated = q.dilation.some((d) => d > 1);
  if (strided && dilated)
    throw new Unsupported('TensorFlow.js convolutions take stride > 1 or dilation > 1, not both');
  if (kind === 'transpose' && dilated)
    throw new Unsupported(`conv${r}dTranspose has no dilation`);
  let pad;
  if (r === 3) {
    pad = namedPadding(kind === 'transpose' ? q.output : q.input, q);
    if (pad === null)
      throw new Unsupported(`conv3d${kind === 'transpose' ? 'Transpose' : ''} takes VALID or SAME ` +
                            'padding only');
  } else {
    pad = [[0, 0], ...range(0, r).map((i) => [q.pad_begin[i], q.pad_end[i]]), [0, 0]];
    if (r === 1) pad.splice(1, 0, [0, 0]);  // conv1d runs conv2d over (N, 1, W, C)
  }
  const op = kind === 'depthwise' ? 'depthwiseConv2d'
             : kind === 'transpose' ? `conv${r}dTranspose` : `conv${r}d`;
  return {q, r, kind, pad, op};
}

// What planFor accepts and the backend runs, declared (docs/INTERFACES.md, "Capabilities"): a
// campaign draws inside it, and a decline inside it is a broken promise. Gradients take no
// dilation ("dilation rates greater than 1 are not yet supported in gradients"), conv3dTranspose
// has none ("gradient function not found for Conv3DBackpropInputV2"), and the wasm backend
// registers no Conv2DBackpropFilter and no depthwise gradient kernels. Each region was checked by
// campaigns of both backends.
function capabilities(backend) {
  const cpu = backend === 'cpu';
  const depthwise = ['plain', 'depthwise', 'depthwise_multiplier'];
  const tfPadding = 'tf_valid_or_same';
  return [
    {directions: ['fwd'], kinds: ['ordinary'], ranks: [1, 2], groups: depthwise,
     stride_with_dilation: false},
    {directions: cpu ? ['bwd_data', 'bwd_weight'] : ['bwd_data'], kinds: ['ordinary'],
     ranks: [1, 2], groups: cpu ? depthwise : ['plain'], dilation: false},
    {directions: ['fwd'], kinds: ['ordinary'], ranks: [3], groups: ['plain'],
     stride_with_dilation: false, padding: tfPadding},
    {directions: ['bwd_data', 'bwd_weight'], kinds: ['ordinary'], ranks: [3], groups: ['plain'],
     dilation: false, padding: tfPadding},
    {directions: cpu ? ['fwd', 'bwd_data', 'bwd_weight'] : ['fwd', 'bwd_data'],
     kinds: ['transposed'], ranks: [1, 2], groups: ['plain'], dilation: false},
    {directions: ['fwd'], kinds: ['transposed'], ranks: [3], groups: ['plain'], dilation: false,
     padding: tfPadding},
  ];
}

// Shapes, channels-last, of the op's input, filter and output.
function tfShapes({q, r, kind}) {
  const cin = q.in_channels, cout = q.out_channels;
  const filter = kind === 'depthwise' ? [...q.kernel, cin, cout / cin]
                 : kind === 'transpose' ? [...q.kernel, cout, cin] : [...q.kernel, cin, cout];
  return {x: [q.batch, ...q.input, cin], filter, y: [q.batch, ...q.output, cout]};
}

// Permutations between PyTorch's layouts (with the plan's spatial rank) and TensorFlow's.
const dataToTf = (r) => [0, ...range(2, r + 2), 1];
const dataFromTf = (r) => [0, r + 1, ...range(1, r + 1)];
// Ordinary (O, I, k...) and transposed (C_in, C_out, k...) weights → (k..., I, O) / (k..., C_out,
// C_in); depthwise (C*m, 1, k...) is (C, m, k...) → (k..., C, m).
const weightToTf = (r, kind) => kind === 'depthwise' ? [...range(2, r + 2), 0, 1]
                                                     : [...range(2, r + 2), 1, 0];
const weightFromTf = (r, kind) => kind === 'depthwise' ? [r, r + 1, ...range(0, r)]
                                                       : [r + 1, r, ...range(0, r)];
function torchWeightShape({q, r, kind}) {
  if (kind === 'depthwise') return [q.in_channels, q.out_channels / q.in_channels, ...q.kernel];
  if (kind === 'transpose') return [q.in_channels, q.out_channels, ...q.kernel];
  return [q.out_channels, q.in_channels, ...q.kernel];
}

function toTf(values, torchShape, perm) {
  const t = permute(values, torchShape, perm);
  return tf.tensor(t.values, t.shape, 'float32');
}

// The op as a function of (x, filter), channels-last tensors.
function opFunction(plan, shapes) {
  const {q, r, kind, pad} = plan;
  const strides = q.stride, dilations = q.dilation;
  if (kind === 'depthwise')
    return (x, w) => tf.depthwiseConv2d(x, w, strides, pad, 'NHWC', dilations);
  if (kind === 'transpose') {
    if (r === 3) return (x, w) => tf.conv3dTranspose(x, w, shapes.y, strides, pad);
    return (x, w) => tf.conv2dTranspose(x, w, shapes.y, strides, pad);
  }
  if (r === 1) return (x, w) => tf.conv1d(x, w, strides[0], pad, 'NWC', dilations[0]);
  if (r === 2) return (x, w) => tf.conv2d(x, w, strides, pad, 'NHWC', dilations);
  return (x, w) => tf.conv3d(x, w, strides, pad, 'NDHWC', dilations);
}

// TensorFlow.js saying it lacks something is a decline; anything else is an error.
const kLacks = /not registered for backend|gradient function not found|not (yet )?supported/i;

function compute(request, inputs) {
  const plan = planFor(request.problem);
  const {q, r, kind} = plan;
  const shapes = tfShapes(plan);
  const dataShape = (c, spatial) => [q.batch, c, ...spatial];
  const xTorch = dataShape(q.in_channels, q.input), yTorch = dataShape(q.out_channels, q.output);
  const wTorch = torchWeightShape(plan);
  const f = opFunction(plan, shapes);
  const direction = request.direction;
  let result;
  try {
    result = tf.tidy(() => {
      const x = inputs.input && toTf(inputs.input, xTorch, dataToTf(r));
      const w = inputs.weight && toTf(inputs.weight, wTorch, weightToTf(r, kind));
      const dy = inputs.grad_output && toTf(inputs.grad_output, yTorch, dataToTf(r));
      if (direction === 'fwd') {
        const y = f(x, w);
        return inputs.bias ? tf.add(y, tf.tensor1d(inputs.bias, 'float32')) : y;
      }
      // The value a gradient is taken at does not matter (the op is linear in it): zeros.
      if (direction === 'bwd_data') return tf.grad((xv) => f(xv, w))(tf.zeros(shapes.x), dy);
      return tf.grad((wv) => f(x, wv))(tf.zeros(shapes.filter), dy);
    });
  } catch (e) {
    if (kLacks.test(String(e && e.message))) throw new Unsupported(`${plan.op}: ${e.message}`);
    throw e;
  }
  const values = result.dataSync();
  const shape = result.shape;
  result.dispose();
  const back = direction === 'bwd_weight' ? weightFromTf(r, kind) : dataFromTf(r);
  const out = permute(values, shape, back);
  const expected = direction === 'bwd_weight' ? wTorch : direction === 'fwd' ? yTorch : xTorch;
  if (out.values.length !== prod(expected))
    throw new Error(`${plan.op} made ${shape} (${out.values.length} values), expected ` +
                    `${expected} in channels-last order`);
  return out.values;
}

async function main() {
  if (!(await tf.setBackend(backend))) throw new Error(`backend ${backend} did not initialize`);
  await tf.ready();
  const flags = backend === 'wasm'
      ? `, simd ${tf.env().getBool('WASM_HAS_SIMD_SUPPORT')}, threads ` +
        `${tf.env().getBool('WASM_HAS_MULTITHREAD_SUPPORT')}` : '';
  return serve({
    name: `tfjs-${backend}`,
    version: `${tf.version.tfjs} (${tf.getBackend()}${flags}; node ${process.versions.node})`,
    directions: ['fwd', 'bwd_data', 'bwd_weight'],
    capabilities: capabilities(backend),
    compute,
  });
}

main().then((code) => process.exit(code), (e) => {
  console.error(e && e.stack ? e.stack : e);
  process.exit(1);
});
