// tfjs-8: the WebAssembly backend's conv2d and depthwiseConv2d with padding 'same' return zeros (or
// windows shifted far out) when a stride exceeds the (dilated) filter and the input is not a
// multiple of the stride: the padding TensorFlow's SAME needs is then negative, which means none,
// but the backend lets XNNPACK compute it without the clamp.
//   npm install @tensorflow/tfjs@4.22.0 @tensorflow/tfjs-backend-wasm@4.22.0 && node repro.js
// Exits 1 while TensorFlow.js disagrees with the plain loop below, 0 once it agrees.
'use strict';
console.log = console.error;  // tfjs prints a banner
// TFJS_BACKENDS=wasm runs one backend (scripts/tfjs_affected_versions.sh checks each release); both
// by default (cpu, which is right, for comparison).
const backends = (process.env.TFJS_BACKENDS || 'cpu,wasm').split(',');
let tf;
try {
  tf = require('@tensorflow/tfjs');
  if (backends.includes('wasm')) require('@tensorflow/tfjs-backend-wasm');
} catch (e) {
  console.error(e);
  process.exit(2);  // packages that do not load: not the bug
}

// TensorFlow's SAME along one axis: ceil(in / stride) outputs, the padding they need (never
// negative), the smaller half before. One channel: a plain loop.
function referenceSame1d(x, f, stride) {
  const out = Math.ceil(x.length / stride);
  const before = Math.floor(Math.max((out - 1) * stride + f.length - x.length, 0) / 2);
  const y = [];
  for (let o = 0; o < out; ++o) {
    let sum = 0;
    f.forEach((w, k) => {
      const i = o * stride - before + k;
      if (i >= 0 && i < x.length) sum += x[i] * w;
    });
    y.push(sum);
  }
  return y;
}

async function main() {
  // Width 3, filter 2, stride 3: one output, x[0] * f[0] + x[1] * f[1] (no padding: 2 - 3 < 0).
  const x = [1, 2, 3], f = [1, 10], stride = 3;
  const expected = referenceSame1d(x, f, stride);
  let differs = false;
  for (const backend of backends) {
    await tf.setBackend(backend);
    if (tf.getBackend() !== backend) throw new Error(`backend ${backend} did not start`);
    const xt = tf.tensor4d(x, [1, 1, x.length, 1]), ft = tf.tensor4d(f, [1, f.length, 1, 1]);
    for (const [op, y] of [['conv2d', tf.conv2d(xt, ft, [1, stride], 'same')],
                           ['depthwiseConv2d', tf.depthwiseConv2d(xt, ft, [1, stride], 'same')]]) {
      const got = Array.from(y.dataSync());
      const same = got.length === expected.length && got.every((v, i) => v === expected[i]);
      differs = differs || !same;
      process.stdout.write(`tfjs ${tf.version.tfjs} ${backend}: ${op} 'same' stride [1,${stride}] ` +
                           `filter [${f}] on x = [${x}]: got [${got}], expected [${expected}]` +
                           `${same ? '' : '  WRONG'}\n`);
    }
  }
  return differs ? 1 : 0;
}

main().then((code) => process.exit(code), (e) => {
  console.error(e);
  process.exit(2);
});
