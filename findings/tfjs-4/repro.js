// tfjs-4: tfjs-converter ignores the dilations of a TensorFlow Conv2DBackpropInput (a transposed
// convolution, or a convolution's input gradient): it runs the undilated op, and when that op's
// output size is not the graph's, the kernels read past the end of out_backprop (NaN on cpu, other
// memory on wasm).
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

// Conv2DBackpropInput along W (H = 1, one channel, padding VALID, stride 1), dilation d: each
// out_backprop element o spreads dy[o] * f[k] to input position o + k * d. A plain loop.
function referenceBackpropInput(dy, f, width, dilation) {
  const dx = new Array(width).fill(0);
  dy.forEach((g, o) => f.forEach((w, k) => { dx[o + k * dilation] += g * w; }));
  return dx;
}

async function main() {
  // Input width 3, filter [1, 10] dilated by 2 (it spans 3): out_backprop has one element.
  const width = 3, filter = [1, 10], dilation = 2, dy = [2];
  const expected = referenceBackpropInput(dy, filter, width, dilation);
  let differs = false;
  for (const backend of backends) {
    await tf.setBackend(backend);
    if (tf.getBackend() !== backend) throw new Error(`backend ${backend} did not start`);
    const model = await graphModel([
      {name: 'dy', op: 'Placeholder', attr: {dtype: {type: 'DT_FLOAT'}}},
      {name: 'y', op: 'Conv2DBackpropInput', input: ['input_sizes', 'filter', 'dy'],
       attr: {T: {type: 'DT_FLOAT'}, data_format: text('NHWC'), padding: text('VALID'),
              strides: ints([1, 1, 1, 1]), dilations: ints([1, 1, dilation, 1])}},
    ], {input_sizes: {shape: [4], values: [1, 1, width, 1], dtype: 'int32'},
        filter: {shape: [1, filter.length, 1, 1], values: filter}});
    const got = Array.from(model.execute(tf.tensor4d(dy, [1, 1, dy.length, 1]), 'y').dataSync());
    const same = got.length === expected.length && got.every((v, i) => v === expected[i]);
    differs = differs || !same;
    process.stdout.write(`tfjs ${tf.version.tfjs} ${backend}: Conv2DBackpropInput, dilations ` +
                         `[1,1,${dilation},1], filter [${filter}], out_backprop [${dy}]: got ` +
                         `[${got}], expected [${expected}]${same ? '' : '  WRONG'}\n`);
  }
  return differs ? 1 : 0;
}

main().then((code) => process.exit(code), (e) => {
  console.error(e);
  process.exit(2);
});
