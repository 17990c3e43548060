// tfjs-1: tf.conv3d with padding 'same' reads the wrong input when a stride exceeds the kernel.
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
  process.exit(2);  // packages that do not load: not the bug (Node.js itself would exit 1)
}

// TensorFlow's SAME padding: out = ceil(in / stride); the padding needed, never negative, split
// with the smaller half before.
function samePadding(size, kernel, stride) {
  const out = Math.ceil(size / stride);
  const total = Math.max((out - 1) * stride + kernel - size, 0);
  return {out, before: Math.floor(total / 2)};
}

// conv3d, NDHWC input, DHWIO filter, one channel in and out, padding 'same': a plain loop.
function referenceConv3dSame(x, [d, h, w], f, [kd, kh, kw], [sd, sh, sw]) {
  const [pd, ph, pw] = [samePadding(d, kd, sd), samePadding(h, kh, sh), samePadding(w, kw, sw)];
  const y = [];
  for (let od = 0; od < pd.out; ++od)
    for (let oh = 0; oh < ph.out; ++oh)
      for (let ow = 0; ow < pw.out; ++ow) {
        let sum = 0;
        for (let a = 0; a < kd; ++a)
          for (let b = 0; b < kh; ++b)
            for (let c = 0; c < kw; ++c) {
              const id = od * sd - pd.before + a, ih = oh * sh - ph.before + b;
              const iw = ow * sw - pw.before + c;
              if (id >= 0 && id < d && ih >= 0 && ih < h && iw >= 0 && iw < w)
                sum += x[(id * h + ih) * w + iw] * f[(a * kh + b) * kw + c];
            }
        y.push(sum);
      }
  return y;
}

async function main() {
  // Depth 2, kernel 1, stride 2: one output, which is x[0] (the padding needed is 1 - 2 < 0: none).
  const x = [1, 2], shape = [2, 1, 1], filter = [1], kernel = [1, 1, 1], strides = [2, 1, 1];
  const expected = referenceConv3dSame(x, shape, filter, kernel, strides);
  let differs = false;
  for (const backend of backends) {
    await tf.setBackend(backend);  // resolves to false (1.x: nothing) when it fails
    if (tf.getBackend() !== backend) throw new Error(`backend ${backend} did not start`);
    const got = Array.from(tf.conv3d(tf.tensor5d(x, [1, ...shape, 1]),
                                     tf.tensor5d(filter, [...kernel, 1, 1]), strides, 'same')
                               .dataSync());
    const same = got.length === expected.length && got.every((v, i) => v === expected[i]);
    differs = differs || !same;
    process.stdout.write(`tfjs ${tf.version.tfjs} ${backend}: conv3d 'same' stride [2,1,1] on ` +
                         `x=[1,2]: got [${got}], expected [${expected}]${same ? '' : '  WRONG'}\n`);
  }
  // The 2-D op clamps the padding (it reads x[0]); the 3-D one does not.
  await tf.setBackend('cpu');
  const got2d = Array.from(tf.conv2d(tf.tensor4d(x, [1, 2, 1, 1]), tf.tensor4d(filter, [1, 1, 1, 1]),
                                     [2, 1], 'same').dataSync());
  process.stdout.write(`for comparison, conv2d 'same' stride [2,1] on x=[1,2]: [${got2d}]\n`);
  return differs ? 1 : 0;
}

main().then((code) => process.exit(code), (e) => {
  console.error(e);
  process.exit(2);
});
