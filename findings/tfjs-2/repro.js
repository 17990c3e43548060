// tfjs-2: the WebAssembly backend's conv3d gradients (kernels Conv3DBackpropInputV2 and
// Conv3DBackpropFilterV2) are wrong as soon as the depth is > 1 or a stride is > 1; conv3dTranspose,
// which runs Conv3DBackpropInputV2, too. The cpu backend agrees with the plain loops below.
//   npm install @tensorflow/tfjs@4.22.0 @tensorflow/tfjs-backend-wasm@4.22.0 && node repro.js
// Exits 1 while the wasm backend disagrees with the loops, 0 once it agrees.
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

// One channel in and out, padding 'valid': y[o] = sum over k of x[o*s + k] * w[k] (per axis).
// dx and dw of that, as plain loops over (depth, height, width).
function* positions([d, h, w]) {
  for (let a = 0; a < d; ++a)
    for (let b = 0; b < h; ++b)
      for (let c = 0; c < w; ++c) yield [a, b, c];
}
const offset = ([a, b, c], [, h, w]) => (a * h + b) * w + c;

function referenceGradients(x, xShape, wv, kShape, dy, yShape, strides) {
  const dx = new Array(x.length).fill(0), dw = new Array(wv.length).fill(0);
  for (const o of positions(yShape))
    for (const k of positions(kShape)) {
      const i = o.map((v, n) => v * strides[n] + k[n]);
      dx[offset(i, xShape)] += dy[offset(o, yShape)] * wv[offset(k, kShape)];
      dw[offset(k, kShape)] += dy[offset(o, yShape)] * x[offset(i, xShape)];
    }
  return {dx, dw};
}

const cases = [
  // [what, x shape (D, H, W), kernel (D, H, W), strides]
  ['depth 2, kernel 1x1x1, stride 1', [2, 1, 1], [1, 1, 1], [1, 1, 1]],
  ['depth 1, kernel 1x1x1, stride 2 along height', [1, 1, 1], [1, 1, 1], [1, 2, 1]],
  ['depth 2, kernel 2x1x1, stride 2 along depth', [2, 1, 1], [2, 1, 1], [2, 1, 1]],
  ['height 2, kernel 1x1x1, stride 1 (correct: depth 1, stride 1)', [1, 2, 1], [1, 1, 1], [1, 1, 1]],
];

async function main() {
  let wrong = 0;
  for (const [what, xShape, kShape, strides] of cases) {
    const yShape = xShape.map((v, n) => Math.floor((v - kShape[n]) / strides[n]) + 1);
    const count = (s) => s.reduce((a, b) => a * b, 1);
    const x = Array.from({length: count(xShape)}, (_, i) => i + 1);
    const w = Array.from({length: count(kShape)}, (_, i) => i + 2);
    const dy = Array.from({length: count(yShape)}, (_, i) => 3 + 2 * i);
    const ref = referenceGradients(x, xShape, w, kShape, dy, yShape, strides);
    for (const backend of backends) {
      await tf.setBackend(backend);  // resolves to false (1.x: nothing) when it fails
      if (tf.getBackend() !== backend) throw new Error(`backend ${backend} did not start`);
      const xt = tf.tensor5d(x, [1, ...xShape, 1]), wt = tf.tensor5d(w, [...kShape, 1, 1]);
      const dyt = tf.tensor5d(dy, [1, ...yShape, 1]);
      const conv = (a, b) => tf.conv3d(a, b, strides, 'valid');
      const dx = Array.from(tf.grad((a) => conv(a, wt))(tf.zerosLike(xt), dyt).dataSync());
      const dw = Array.from(tf.grad((b) => conv(xt, b))(tf.zerosLike(wt), dyt).dataSync());
      const ok = (got, want) => got.every((v, i) => v === want[i]);
      const bad = !ok(dx, ref.dx) || !ok(dw, ref.dw);
      if (bad) ++wrong;
      process.stdout.write(`${backend} ${what}: dx [${dx}] (expected [${ref.dx}]), dw [${dw}] ` +
                           `(expected [${ref.dw}])${bad ? '  WRONG' : ''}\n`);
    }
  }
  process.stdout.write(`tfjs ${tf.version.tfjs}: ${wrong} wrong\n`);
  return wrong > 0 ? 1 : 0;
}

main().then((code) => process.exit(code), (e) => {
  console.error(e);
  process.exit(2);
});
