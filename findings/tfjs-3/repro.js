// tfjs-3: tfjs-converter runs a TensorFlow Conv2D whose data_format is NCHW with the strides and
// dilations of the wrong axes: it takes entries [1] and [2] of the attributes, which are H and W in
// NHWC but C and H in NCHW.
//   npm install @tensorflow/tfjs@4.22.0 && node repro.js
// Exits 1 while TensorFlow.js disagrees with the plain loop below, 0 once it agrees.
'use strict';
console.log = console.error;  // tfjs prints a banner
// TFJS_BACKENDS=wasm,cpu runs those backends (scripts/tfjs_affected_versions.sh); cpu by default
// (wasm refuses NCHW Conv2D with an error).
const backends = (process.env.TFJS_BACKENDS || 'cpu').split(',');
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
  for (const [name, {shape, values}] of Object.entries(constants)) {
    const dims = shape.map((d) => ({size: String(d)}));
    constNodes.push({name, op: 'Const', attr: {dtype: {type: 'DT_FLOAT'},
                     value: {tensor: {dtype: 'DT_FLOAT', tensorShape: {dim: dims}}}}});
    specs.push({name, shape, dtype: 'float32'});
    buffers.push(Buffer.from(Float32Array.from(values).buffer));
  }
  const data = Buffer.concat(buffers);
  return tf.loadGraphModel(tf.io.fromMemory({
    modelTopology: {node: [...constNodes, ...nodes], versions: {producer: 1}},
    weightSpecs: specs,
    weightData: data.buffer.slice(data.byteOffset, data.byteOffset + data.length)}));
}
const text = (s) => ({s: Buffer.from(s).toString('base64')});
const ints = (values) => ({list: {i: values.map(String)}});

// TensorFlow's Conv2D in NCHW, one channel in and out, padding VALID: a plain loop.
function referenceConv2dNchw(x, [h, w], f, [kh, kw], [sh, sw], [dh, dw]) {
  const oh = Math.floor((h - (kh - 1) * dh - 1) / sh) + 1;
  const ow = Math.floor((w - (kw - 1) * dw - 1) / sw) + 1;
  const y = [];
  for (let i = 0; i < oh; ++i)
    for (let j = 0; j < ow; ++j) {
      let sum = 0;
      for (let a = 0; a < kh; ++a)
        for (let b = 0; b < kw; ++b) sum += x[(i * sh + a * dh) * w + j * sw + b * dw] * f[a * kw + b];
      y.push(sum);
    }
  return {shape: [1, 1, oh, ow], values: y};
}

async function main() {
  const cases = [
    // [what, input H x W, kernel, strides (H, W), dilations (H, W)]
    ['stride 2 along H', [3, 3], [1, 1], [2, 1], [1, 1]],
    ['dilation 2 along W', [1, 3], [1, 2], [1, 1], [1, 2]],
  ];
  let wrong = 0;
  for (const backend of backends) {
    await tf.setBackend(backend);
    if (tf.getBackend() !== backend) throw new Error(`backend ${backend} did not start`);
    for (const [what, [h, w], [kh, kw], [sh, sw], [dh, dw]] of cases) {
      const x = Array.from({length: h * w}, (_, i) => i + 1);
      const f = Array.from({length: kh * kw}, (_, i) => 10 ** i);
      const model = await graphModel([
        {name: 'x', op: 'Placeholder', attr: {dtype: {type: 'DT_FLOAT'}}},
        {name: 'y', op: 'Conv2D', input: ['x', 'filter'],
         attr: {T: {type: 'DT_FLOAT'}, data_format: text('NCHW'), padding: text('VALID'),
                strides: ints([1, 1, sh, sw]), dilations: ints([1, 1, dh, dw])}},
      ], {filter: {shape: [kh, kw, 1, 1], values: f}});
      const y = model.execute(tf.tensor4d(x, [1, 1, h, w]), 'y');
      const got = {shape: y.shape, values: Array.from(y.dataSync())};
      const want = referenceConv2dNchw(x, [h, w], f, [kh, kw], [sh, sw], [dh, dw]);
      const same = JSON.stringify(got) === JSON.stringify(want);
      if (!same) ++wrong;
      process.stdout.write(`tfjs ${tf.version.tfjs} ${backend}, Conv2D NCHW ${what} on x = [${x}] ` +
                           `(${h}x${w}): got shape [${got.shape}] [${got.values}], expected ` +
                           `[${want.shape}] [${want.values}]${same ? '' : '  WRONG'}\n`);
    }
    // The same convolution in NHWC (strides [1, 2, 1, 1]) is right: only NCHW's order is misread.
    const nhwc = await graphModel([
      {name: 'x', op: 'Placeholder', attr: {dtype: {type: 'DT_FLOAT'}}},
      {name: 'y', op: 'Conv2D', input: ['x', 'filter'],
       attr: {T: {type: 'DT_FLOAT'}, data_format: text('NHWC'), padding: text('VALID'),
              strides: ints([1, 2, 1, 1]), dilations: ints([1, 1, 1, 1])}},
    ], {filter: {shape: [1, 1, 1, 1], values: [1]}});
    const y = nhwc.execute(tf.tensor4d([1, 2, 3, 4, 5, 6, 7, 8, 9], [1, 3, 3, 1]), 'y');
    process.stdout.write(`for comparison, NHWC stride 2 along H: [${Array.from(y.dataSync())}]\n`);
  }
  return wrong > 0 ? 1 : 0;
}

main().then((code) => process.exit(code), (e) => {
  console.error(e);
  process.exit(2);
});
