// tfjs-6: a TensorFlow DepthwiseConv2dNative with data_format NCHW is computed as if it were NHWC
// (tfjs-converter passes the format on, tf.depthwiseConv2d accepts 'NCHW', and the cpu and wasm
// kernels ignore it): wrong values, wrong shapes, and on wasm writes out of bounds.
//   npm install @tensorflow/tfjs@4.22.0 @tensorflow/tfjs-backend-wasm@4.22.0 && node repro.js
// Exits 1 while TensorFlow.js disagrees with the plain loop below, 0 once it agrees.
'use strict';
console.log = console.error;  // tfjs prints a banner
// TFJS_BACKENDS=cpu runs one backend (scripts/tfjs_affected_versions.sh checks each release, and not
// every tfjs release has a wasm backend of the same version); both by default.
const backends = (process.env.TFJS_BACKENDS || 'cpu,wasm').split(',');
let tf;
try {
  tf = require('@tensorflow/tfjs');
  if (backends.includes('wasm')) require('@tensorflow/tfjs-backend-wasm');
} catch (e) {
  console.error(e);
  process.exit(2);  // packages that do not load: not the bug
}

// A graph model of float constants and the given nodes, as tf.io.fromMemory takes it.
function graphModel(nodes, constants) {
  const specs = [], buffers = [], constNodes = [];
  for (const [name, {shape, values, dtype = 'float32'}] of Object.entries(constants)) {
    const type = dtype === 'int32' ? 'DT_INT32' : 'DT_FLOAT';
    const dims = shape.map((d) => ({size: String(d)}));
    constNodes.push({name, op: 'Const', attr: {dtype: {type},
                     value: {tensor: {dtype: type, tensorShape: {dim: dims}}}}});
    specs.push({name, shape, dtype});
    const array = dtype === 'int32' ? Int32Array.from(values) : Float32Array.from(values);
    buffers.push(Buffer.from(array.buffer));
  }
  const data = Buffer.concat(buffers);
  return tf.loadGraphModel(tf.io.fromMemory({
    modelTopology: {node: [...constNodes, ...nodes], versions: {producer: 1}},
    weightSpecs: specs,
    weightData: data.buffer.slice(data.byteOffset, data.byteOffset + data.length)}));
}
const text = (s) => ({s: Buffer.from(s).toString('base64')});
const ints = (values) => ({list: {i: values.map(String)}});

// DepthwiseConv2dNative, multiplier 1, filter 1x1, NCHW: every channel c scaled by filter[c].
function referenceDepthwise1x1Nchw(x, filter, channels) {
  const pixels = x.length / channels;
  return x.map((v, i) => v * filter[Math.floor(i / pixels)]);
}

async function main() {
  // Two channels, one row of two pixels: x is [channel 0: 1 2, channel 1: 3 4] in NCHW.
  const x = [1, 2, 3, 4], filter = [10, 100];
  const expected = referenceDepthwise1x1Nchw(x, filter, 2);
  let differs = false;
  for (const backend of backends) {
    await tf.setBackend(backend);
    if (tf.getBackend() !== backend) throw new Error(`backend ${backend} did not start`);
    const model = await graphModel([
      {name: 'x', op: 'Placeholder', attr: {dtype: {type: 'DT_FLOAT'}}},
      {name: 'y', op: 'DepthwiseConv2dNative', input: ['x', 'filter'],
       attr: {T: {type: 'DT_FLOAT'}, data_format: text('NCHW'), padding: text('VALID'),
              strides: ints([1, 1, 1, 1]), dilations: ints([1, 1, 1, 1])}},
    ], {filter: {shape: [1, 1, 2, 1], values: filter}});
    const got = Array.from(model.execute(tf.tensor4d(x, [1, 2, 1, 2]), 'y').dataSync());
    const same = got.length === expected.length && got.every((v, i) => v === expected[i]);
    differs = differs || !same;
    process.stdout.write(`tfjs ${tf.version.tfjs} ${backend}: DepthwiseConv2dNative NCHW, 1x1 filter ` +
                         `[${filter}], x [${x}]: got [${got}], expected [${expected}]` +
                         `${same ? '' : '  WRONG'}\n`);
  }
  return differs ? 1 : 0;
}

main().then((code) => process.exit(code), (e) => {
  console.error(e);
  process.exit(2);
});
