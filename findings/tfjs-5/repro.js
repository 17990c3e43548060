// tfjs-5: tfjs-converter ignores the data_format of a TensorFlow Conv2DBackpropInput (a transposed
// convolution, or a convolution's input gradient): an NCHW op is run as NHWC, channels read as
// width and width as channels.
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

// Conv2DBackpropInput with a 1x1 filter, stride 1, VALID: at every pixel, dx[c] is the sum over k of
// filter[c][k] * dy[k] (the filter is [1, 1, dx channels, dy channels]). NCHW data, a plain loop.
function referenceBackpropInput1x1Nchw(dy, filter, channels, pixels) {
  const dx = new Array(channels * pixels).fill(0);
  for (let c = 0; c < channels; ++c)
    for (let k = 0; k < channels; ++k)
      for (let p = 0; p < pixels; ++p) dx[c * pixels + p] += filter[c * channels + k] * dy[k * pixels + p];
  return dx;
}

async function main() {
  // Two channels, one row of two pixels; dy is [channel 0: 1 2, channel 1: 3 4] in NCHW.
  const filter = [1, 2, 3, 4], dy = [1, 2, 3, 4];
  const expected = referenceBackpropInput1x1Nchw(dy, filter, 2, 2);
  let differs = false;
  for (const backend of backends) {
    await tf.setBackend(backend);
    if (tf.getBackend() !== backend) throw new Error(`backend ${backend} did not start`);
    const model = (format, sizes) => graphModel([
      {name: 'dy', op: 'Placeholder', attr: {dtype: {type: 'DT_FLOAT'}}},
      {name: 'y', op: 'Conv2DBackpropInput', input: ['input_sizes', 'filter', 'dy'],
       attr: {T: {type: 'DT_FLOAT'}, data_format: text(format), padding: text('VALID'),
              strides: ints([1, 1, 1, 1]), dilations: ints([1, 1, 1, 1])}},
    ], {input_sizes: {shape: [4], values: sizes, dtype: 'int32'},
        filter: {shape: [1, 1, 2, 2], values: filter}});
    const nchw = await model('NCHW', [1, 2, 1, 2]);
    const got = Array.from(nchw.execute(tf.tensor4d(dy, [1, 2, 1, 2]), 'y').dataSync());
    const same = got.length === expected.length && got.every((v, i) => v === expected[i]);
    differs = differs || !same;
    // The same op in NHWC, on the same data transposed, for comparison.
    const nhwc = await model('NHWC', [1, 1, 2, 2]);
    const dyNhwc = tf.transpose(tf.tensor4d(dy, [1, 2, 1, 2]), [0, 2, 3, 1]);
    const viaNhwc = Array.from(tf.transpose(nhwc.execute(dyNhwc, 'y'), [0, 3, 1, 2]).dataSync());
    process.stdout.write(`tfjs ${tf.version.tfjs} ${backend}: Conv2DBackpropInput NCHW, 1x1 filter ` +
                         `[${filter}], dy [${dy}]: got [${got}], expected [${expected}]` +
                         `${same ? '' : '  WRONG'}; the same in NHWC: [${viaNhwc}]\n`);
  }
  return differs ? 1 : 0;
}

main().then((code) => process.exit(code), (e) => {
  console.error(e);
  process.exit(2);
});
