// tfjs-7: tfjs-converter ignores the data_format of a TensorFlow BiasAdd: with NCHW it adds the bias
// along the last axis (width) instead of the channels, silently when the width equals the number of
// channels (or is 1: then the result is wider than it should be).
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

// BiasAdd in NCHW: bias[c] added to every element of channel c. A plain loop.
function referenceBiasAddNchw(x, bias) {
  const pixels = x.length / bias.length;
  return x.map((v, i) => v + bias[Math.floor(i / pixels)]);
}

async function main() {
  // Two channels, one row of two pixels: x is [channel 0: 1 2, channel 1: 3 4] in NCHW.
  const x = [1, 2, 3, 4], bias = [10, 20];
  const expected = referenceBiasAddNchw(x, bias);
  let differs = false;
  for (const backend of backends) {
    await tf.setBackend(backend);
    if (tf.getBackend() !== backend) throw new Error(`backend ${backend} did not start`);
    const model = await graphModel([
      {name: 'x', op: 'Placeholder', attr: {dtype: {type: 'DT_FLOAT'}}},
      {name: 'y', op: 'BiasAdd', input: ['x', 'bias'],
       attr: {T: {type: 'DT_FLOAT'}, data_format: text('NCHW')}},
    ], {bias: {shape: [2], values: bias}});
    const got = Array.from(model.execute(tf.tensor4d(x, [1, 2, 1, 2]), 'y').dataSync());
    const same = got.length === expected.length && got.every((v, i) => v === expected[i]);
    differs = differs || !same;
    process.stdout.write(`tfjs ${tf.version.tfjs} ${backend}: BiasAdd NCHW, bias [${bias}], ` +
                         `x [${x}]: got [${got}], expected [${expected}]${same ? '' : '  WRONG'}\n`);
  }
  return differs ? 1 : 0;
}

main().then((code) => process.exit(code), (e) => {
  console.error(e);
  process.exit(2);
});
