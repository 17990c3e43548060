// The child's side of convparity's process protocol, version 1 (harness/exec/PROTOCOL.md), for
// Node.js with no dependency.
//
//   serve({name, version, directions, capabilities, modelFormat, modelWeights, compute})
//
// answers convparity's hello, then every `run` request until stdin closes. compute(request,
// inputs, model) gets the request header and its input buffers as {name: Float32Array} (PyTorch's
// layouts, the shapes of request.inputs) and returns (or resolves to) a Float32Array of
// request.result.count values, or throws Unsupported(reason) to decline the case. Any other
// exception is answered as an `error` and the child goes on.
// With modelFormat ('onnx', 'tfjs-graph'), the child reads models (PROTOCOL.md, "Models"): `model`
// is the model's bytes (a Uint8Array), inputs.input its input, and compute may return {shape}
// instead of values when the stack computed a result of another shape than request.result.shape.
// With modelWeights 'inputs' too, the model's weights are its inputs after x: inputs holds each
// under its name in the model (request.inputs lists them, in the model's order, with their shapes).
// compute may also return {values, implementation}: the values and one line saying what the stack
// ran (the answer's "implementation").
//
// Only protocol messages go to stdout: console.log is sent to stderr before anything else loads,
// because libraries print banners (TensorFlow.js does).
'use strict';

const fs = require('fs');

console.log = console.error;
console.info = console.error;

const PROTOCOL_VERSION = 1;
const MAX_HEADER_BYTES = 65536;

class Unsupported extends Error {}

// Blocking reads of fd 0: header lines through a small buffer, float buffers straight into their
// arrays (a pipe hands over 64 KiB a read; growing one buffer per read would be quadratic).
function sleepMs(ms) {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}

// Reads into target[offset, end); returns the bytes read, 0 at end of file.
function readSome(target, offset, end) {
  for (;;) {
    try {
      return fs.readSync(0, target, offset, end - offset, null);
    } catch (e) {
      if (e.code === 'EAGAIN') {
        sleepMs(1);
        continue;
      }
      if (e.code === 'EOF') return 0;
      throw e;
    }
  }
}

class Input {
  constructor() {
    this.chunk = Buffer.alloc(1 << 16);
    this.start = 0;  // unread bytes of chunk: [start, end)
    this.end = 0;
  }
  // One line without its newline, or null at end of file.
  line() {
    let text = Buffer.alloc(0);
    for (;;) {
      const nl = this.chunk.subarray(this.start, this.end).indexOf(10);
      if (nl >= 0) {
        text = Buffer.concat([text, this.chunk.subarray(this.start, this.start + nl)]);
        this.start += nl + 1;
        return text.toString('utf8');
      }
      text = Buffer.concat([text, this.chunk.subarray(this.start, this.end)]);
      if (text.length > MAX_HEADER_BYTES) throw new Error('header line too long');
      this.start = 0;
      this.end = readSome(this.chunk, 0, this.chunk.length);
      if (this.end === 0) {
        if (text.length > 0) throw new Error('end of file inside a header line');
        return null;
      }
    }
  }
  bytes(count) {
    const out = new Uint8Array(count);
    const buffered = Math.min(count, this.end - this.start);
    this.chunk.copy(out, 0, this.start, this.start + buffered);
    this.start += buffered;
    for (let at = buffered; at < count;) {
      const n = readSome(out, at, count);
      if (n === 0) throw new Error(`end of file inside a model of ${count} bytes`);
      at += n;
    }
    return out;
  }
  floats(count) {
    const values = new Float32Array(count);
    const bytes = Buffer.from(values.buffer);
    const buffered = Math.min(bytes.length, this.end - this.start);
    this.chunk.copy(bytes, 0, this.start, this.start + buffered);
    this.start += buffered;
    for (let at = buffered; at < bytes.length;) {
      const n = readSome(bytes, at, bytes.length);
      if (n === 0) throw new Error(`end of file inside a buffer of ${count} floats`);
      at += n;
    }
    return values;
  }
}

function writeAll(data) {
  let done = 0;
  while (done < data.length) {
    try {
      done += fs.writeSync(1, data, done, data.length - done);
    } catch (e) {
      if (e.code !== 'EAGAIN') throw e;
      sleepMs(1);
    }
  }
}

function send(header, values) {
  writeAll(Buffer.from(JSON.stringify(header) + '\n', 'utf8'));
  if (values) writeAll(Buffer.from(values.buffer, values.byteOffset, values.byteLength));
}

function oneLine(text) {
  return String(text).replace(/\s+/g, ' ').trim().slice(0, 200);
}

async function answer(request, inputs, model, compute) {
  const id = request.id;
  try {
    let result = await compute(request, inputs, model);
    let said = {};  // what the stack says it ran, when compute returned {values, implementation}
    if (result && result.values instanceof Float32Array) {
      said = {implementation: oneLine(result.implementation)};
      result = result.values;
    }
    if (result && !(result instanceof Float32Array) && Array.isArray(result.shape))
      return [{type: 'ok', id, count: 0, shape: result.shape}];
    if (!(result instanceof Float32Array) || result.length !== request.result.count)
      return [{type: 'error', id, message: `the adapter made ${result && result.length} values, ` +
               `expected ${request.result.count}`}];
    return [{type: 'ok', id, count: result.length, ...said}, result];
  } catch (e) {
    if (e instanceof Unsupported) return [{type: 'unsupported', id, reason: oneLine(e.message)}];
    return [{type: 'error', id, message: oneLine(e && e.message ? e.message : e)}];
  }
}

async function serve({name, version, directions, capabilities = null, modelFormat = null,
                      modelWeights = null, compute}) {
  const input = new Input();
  const hello = input.line();
  if (hello === null) return 0;
  const h = JSON.parse(hello);
  if (h.type !== 'hello' || h.protocol !== PROTOCOL_VERSION) {
    send({type: 'error', message: `${name} speaks protocol ${PROTOCOL_VERSION} only`});
    return 2;
  }
  const ours = {type: 'hello', protocol: PROTOCOL_VERSION, name, version, directions, capabilities};
  if (modelFormat) ours.model_format = modelFormat;
  if (modelWeights) ours.model_weights = modelWeights;
  send(ours);
  for (;;) {
    const line = input.line();
    if (line === null) return 0;
    const request = JSON.parse(line);
    if (request.type !== 'run') throw new Error(`expected a run request, got ${request.type}`);
    const inputs = {};
    for (const b of request.inputs) inputs[b.name] = input.floats(b.count);
    const model = request.model ? input.bytes(request.model.size) : null;
    const [header, values] = await answer(request, inputs, model, compute);
    send(header, values);
  }
}

// Permutes a dense row-major array: result axis i is axis perm[i] of `shape`.
function permute(values, shape, perm) {
  const rank = shape.length;
  const outShape = perm.map((p) => shape[p]);
  const inStrides = new Array(rank);
  let s = 1;
  for (let i = rank - 1; i >= 0; --i) {
    inStrides[i] = s;
    s *= shape[i];
  }
  const strides = perm.map((p) => inStrides[p]);  // of the input, along each result axis
  const out = new Float32Array(values.length);
  const index = new Array(rank).fill(0);
  let offset = 0;
  for (let linear = 0; linear < values.length; ++linear) {
    out[linear] = values[offset];
    for (let d = rank - 1; d >= 0; --d) {
      offset += strides[d];
      if (++index[d] < outShape[d]) break;
      offset -= strides[d] * outShape[d];
      index[d] = 0;
    }
  }
  return {values: out, shape: outShape};
}

module.exports = {serve, Unsupported, permute, PROTOCOL_VERSION};
