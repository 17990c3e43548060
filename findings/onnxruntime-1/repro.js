#!/usr/bin/env node
// onnxruntime-1: ONNX Runtime's Conv with auto_pad SAME_UPPER / SAME_LOWER reads its input shifted
// when a stride is larger than the kernel (findings/onnxruntime-1/README.md). A standalone ONNX
// writer, the model run by ONNX Runtime, and a plain loop of the ONNX definition; exits 1 when they
// differ.
//
//   npm install onnxruntime-node@1.30.0 && node repro.js      onnxruntime-node, CPU
//   npm install onnxruntime-web@1.30.0 && node repro.js --web  onnxruntime-web, WebAssembly
'use strict';

const path = require('path');
// ---------- minimal protobuf writer ----------
function varint(n) {
  const out = [];
  let v = BigInt.asUintN(64, BigInt(n));
  do {
    let b = Number(v & 0x7fn);
    v >>= 7n;
    if (v) b |= 0x80;
    out.push(b);
  } while (v);
  return out;
}
const key = (field, wire) => varint((field << 3) | wire);
const fVarint = (field, n) => [...key(field, 0), ...varint(n)];
const fBytes = (field, bytes) => [...key(field, 2), ...varint(bytes.length), ...bytes];
const fStr = (field, s) => fBytes(field, [...Buffer.from(s, 'utf8')]);
const cat = (...parts) => parts.flat();

// onnx.proto field numbers
function attrInts(name, ints) {  // AttributeProto: name=1, ints=8, type=20 (INTS=7)
  return cat(fStr(1, name), ...ints.map((i) => fVarint(8, i)), fVarint(20, 7));
}
function attrStr(name, s) {  // s=4, type=20 (STRING=3)
  return cat(fStr(1, name), fBytes(4, [...Buffer.from(s)]), fVarint(20, 3));
}
function tensorF32(name, dims, data) {  // TensorProto: dims=1, data_type=2 (FLOAT=1), name=8, raw_data=9
  const raw = Buffer.alloc(4 * data.length);
  data.forEach((v, i) => raw.writeFloatLE(v, i * 4));
  return cat(...dims.map((d) => fVarint(1, d)), fVarint(2, 1), fStr(8, name), fBytes(9, [...raw]));
}
function valueInfo(name, dims) {  // ValueInfoProto{name=1,type=2{tensor_type=1{elem_type=1,shape=2{dim=1{dim_value=1}}}}}
  const shape = cat(...dims.map((d) => fBytes(1, fVarint(1, d))));
  const tensorType = cat(fVarint(1, 1), fBytes(2, shape));
  return cat(fStr(1, name), fBytes(2, fBytes(1, tensorType)));
}
// Conv model: X graph input, W (+ optional B) initializers, Y output. opset 13, IR 7.
function convModel({xShape, wShape, w, b, strides, autoPad, kernelShape, yShape}) {
  const inputs = ['X', 'W'].concat(b ? ['B'] : []);
  const node = cat(
      ...inputs.map((n) => fStr(1, n)), fStr(2, 'Y'), fStr(3, 'conv0'), fStr(4, 'Conv'),
      fBytes(5, attrStr('auto_pad', autoPad)), fBytes(5, attrInts('kernel_shape', kernelShape)),
      fBytes(5, attrInts('strides', strides)));
  const graph = cat(
      fBytes(1, node), fStr(2, 'g'),
      fBytes(5, tensorF32('W', wShape, w)),
      ...(b ? [fBytes(5, tensorF32('B', [b.length], b))] : []),
      fBytes(11, valueInfo('X', xShape)), fBytes(12, valueInfo('Y', yShape)));
  const opset = cat(fStr(1, ''), fVarint(2, 13));
  const model = cat(fVarint(1, 7), fStr(2, 'repro'), fBytes(7, graph), fBytes(8, opset));
  return Uint8Array.from(model);
}

// ---------- reference: ONNX Conv, N=C=M=1, group 1, dilation 1 ----------
function samePads(inDims, k, s, autoPad) {
  return inDims.map((inD, i) => {
    const out = Math.ceil(inD / s[i]);
    const total = Math.max(0, (out - 1) * s[i] + (k[i] - 1) + 1 - inD);
    const head = autoPad === 'SAME_UPPER' ? Math.floor(total / 2) : total - Math.floor(total / 2);
    return {out, head};
  });
}
// Conv with explicit per-axis head padding and output size (zeros outside X).
function convWithHeads(x, inDims, w, k, s, b, heads, outDims) {
  const y = [];
  const D = inDims.length;
  const outCount = outDims.reduce((a, c) => a * c, 1);
  for (let o = 0; o < outCount; o++) {
    const oi = [];
    let r = o;
    for (let d = D - 1; d >= 0; d--) { oi[d] = r % outDims[d]; r = Math.floor(r / outDims[d]); }
    let acc = b ? b[0] : 0;
    const kCount = k.reduce((a, c) => a * c, 1);
    for (let q = 0; q < kCount; q++) {
      const ki = [];
      let rr = q;
      for (let d = D - 1; d >= 0; d--) { ki[d] = rr % k[d]; rr = Math.floor(rr / k[d]); }
      let xi = 0, inside = true;
      for (let d = 0; d < D; d++) {
        const p = oi[d] * s[d] - heads[d] + ki[d];
        if (p < 0 || p >= inDims[d]) inside = false;
        xi = xi * inDims[d] + p;
      }
      if (inside) acc += x[xi] * w[q];
    }
    y.push(acc);
  }
  return y;
}
function reference(c) {
  const pads = samePads(c.inDims, c.k, c.s, c.autoPad);
  const outDims = pads.map((p) => p.out);
  return {outDims, y: convWithHeads(c.x, c.inDims, c.w, c.k, c.s, c.b, pads.map((p) => p.head), outDims)};
}

// ---------- cases ----------
function makeCase(inDims, k, s, autoPad, withBias, wVals) {
  const n = inDims.reduce((a, c) => a * c, 1);
  const kn = k.reduce((a, c) => a * c, 1);
  return {
    name: `${inDims.length}-D in=[${inDims}] k=[${k}] s=[${s}] ${autoPad} ${withBias ? 'bias' : 'nobias'}`,
    inDims, k, s, autoPad,
    x: Array.from({length: n}, (_, i) => i + 1),                 // X = 1,2,3,...
    w: wVals || Array.from({length: kn}, () => 3),               // W = 3
    b: withBias ? [1] : null,                                    // B = 1
  };
}
const DEFAULT_CASES = [
  makeCase([4], [1], [4], 'SAME_UPPER', true),          // convparity's minimal case (case.json)
  makeCase([5], [1], [5], 'SAME_LOWER', true),          // convparity's minimal case (case-web.json)
  makeCase([4, 4], [1, 1], [4, 4], 'SAME_UPPER', true), // 2-D
  makeCase([4, 4], [2, 2], [3, 3], 'SAME_LOWER', true), // 2-D, kernel 2
];

async function runCase(ort, c, opt) {
  const ref = reference(c);
  const bytes = convModel({
    xShape: [1, 1, ...c.inDims], wShape: [1, 1, ...c.k], w: c.w, b: c.b,
    strides: c.s, autoPad: c.autoPad, kernelShape: c.k, yShape: [1, 1, ...ref.outDims],
  });
  const sess = await ort.InferenceSession.create(bytes, {
    executionProviders: [opt.pkg === 'web' ? 'wasm' : 'cpu'],
    graphOptimizationLevel: opt.level, logSeverityLevel: 3,
  });
  const feeds = {X: new ort.Tensor('float32', Float32Array.from(c.x), [1, 1, ...c.inDims])};
  const out = (await sess.run(feeds)).Y;
  await sess.release();
  const got = Array.from(out.data);
  const gotDims = out.dims.slice(2).map(Number);
  const ok = gotDims.join() === ref.outDims.join() && got.length === ref.y.length &&
      got.every((v, i) => v === ref.y[i]);
  return {ok, expected: ref.y, expectedDims: ref.outDims, got, gotDims};
}

function loadOrt(pkg) {
  if (pkg === 'web') {
    let ort;
    try {
      ort = require('onnxruntime-web');
    } catch (e) {  // in the repository: the onnxruntime-web adapter's packages
      ort = require(path.join(__dirname, '../../adapters/onnxruntime_web/node_modules/onnxruntime-web'));
    }
    ort.env.wasm.numThreads = 1;
    ort.env.logLevel = 'error';
    return ort;
  }
  return require('onnxruntime-node');
}

async function main() {
  const argv = process.argv.slice(2);
  const opt = {pkg: argv.includes('--web') ? 'web' : 'node', level: 'all'};
  const ort = loadOrt(opt.pkg);
  const ver = opt.pkg === 'web' ? `onnxruntime-web ${ort.env.versions.web} (wasm, numThreads 1)` :
                                  `onnxruntime-node ${ort.env.versions.node || ''} (cpu)`;
  console.log(`${ver}, graphOptimizationLevel '${opt.level}', node ${process.version}`);
  console.log('X = 1,2,3,...; W = 3; B = 1');
  let bad = 0;
  for (const c of DEFAULT_CASES) {
    const r = await runCase(ort, c, opt);
    if (!r.ok) bad++;
    console.log(`${r.ok ? 'OK  ' : 'FAIL'} ${c.name}: expected [${r.expected}] (dims ${r.expectedDims}), ` +
                `got [${r.got}] (dims ${r.gotDims})`);
  }
  console.log(bad ? `${bad} case(s) differ from the ONNX reference` : 'all cases match the ONNX reference');
  return bad ? 1 : 0;
}

main().then((code) => process.exit(code), (e) => {
  console.error(e && e.stack || e);
  process.exit(2);
});
