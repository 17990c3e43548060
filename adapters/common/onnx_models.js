// A frontend under test through the process protocol: an ONNX Runtime package (onnxruntime-node
// or onnxruntime-web, which share their API) reading the ONNX models convparity writes of each
// case (harness/exec/PROTOCOL.md, "Models"), forward, every spelling and graph form.
//
//   serveOnnxModels({ort, name, version, sessionOptions, reportOptimized, weightsAsInputs,
//                    declines})
//
// By default the weights are constants of the model, as in a deployed one, and a session is made
// from each model's bytes and released after its run. With weightsAsInputs the hello asks for the
// weights as the model's inputs: a model's bytes then depend on the case's problem, graph form and
// spelling alone, and sessions are cached by them (the least recently used of kMaxCachedSessions
// released), so that one session serves every case of a model. With reportOptimized
// (onnxruntime-node, which can write the model its optimizer made), each answer says which ops
// the optimized graph runs ("implementation": "com.microsoft.nchwc:Conv ReorderInput …", sorted):
// which rewrites fired, counted in the campaign's summary. What ONNX Runtime refuses
// with a status (a model its loader or a kernel's checks do not take: "Dilation not supported for
// AutoPadType", an output shape it computes otherwise) is a decline with its message, the node's
// name left out so that the summary counts refusals by reason; a crash of the process stays a
// crash. declines(request) may decline a case up front: a reason, or '' to run it.
//
// $CONVPARITY_SESSION_LOG names a file that gets one line per session made: how the tests see a
// session reused without timing it.
'use strict';

const fs = require('fs');
const os = require('os');
const path = require('path');
const {serve, Unsupported} = require('./convparity_protocol.js');

// A protobuf message's fields in bytes[start, end): {field, start, end} for the length-delimited
// ones (the others skipped). Enough to read a ModelProto's nodes without a protobuf library.
function* fields(bytes, start, end) {
  const varint = (at) => {
    let value = 0, scale = 1;
    for (;;) {
      const b = bytes[at++];
      value += (b & 0x7f) * scale;
      scale *= 128;
      if (b < 0x80) return [value, at];
    }
  };
  for (let at = start; at < end;) {
    const [key, next] = varint(at);
    const field = Math.floor(key / 8), wire = key % 8;
    at = next;
    if (wire === 0) at = varint(at)[1];
    else if (wire === 1) at += 8;
    else if (wire === 5) at += 4;
    else if (wire === 2) {
      const [length, body] = varint(at);
      yield {field, start: body, end: body + length};
      at = body + length;
    } else throw new Error(`not a protobuf message (wire type ${wire})`);
  }
}

// The ops of a serialized ModelProto's graph (graph = 7; its nodes = 1; a node's op_type = 4,
// domain = 7), as "domain:op" ("op" in the default domain), sorted, each once.
function graphOps(bytes) {
  const text = (f) => Buffer.from(bytes.buffer, bytes.byteOffset + f.start, f.end - f.start)
                          .toString('utf8');
  const ops = new Set();
  for (const graph of fields(bytes, 0, bytes.length)) {
    if (graph.field !== 7) continue;
    for (const node of fields(bytes, graph.start, graph.end)) {
      if (node.field !== 1) continue;
      let op = '', domain = '';
      for (const f of fields(bytes, node.start, node.end)) {
        if (f.field === 4) op = text(f);
        if (f.field === 7) domain = text(f);
      }
      ops.add(domain ? `${domain}:${op}` : op);
    }
  }
  return [...ops].sort().join(' ');
}

// A status ONNX Runtime returned (onnxruntime-node: "[ONNXRuntimeError] : 2 : …" when loading,
// "Non-zero status code returned while running …" when running; onnxruntime-web: "… ERROR_CODE: 2,
// ERROR_MESSAGE: …"), not a failure of its code such as WebAssembly's "memory access out of
// bounds", which stays an error.
const kStatus =
    /ONNXRuntimeError|ERROR_CODE|Non-zero status code|NOT_IMPLEMENTED|not (yet )?(supported|implemented)/i;

// ONNX Runtime's refusal as a decline, one line without the node's name (the writer's, not the
// reason's); anything else as it is.
function refusal(e) {
  const text = String(e && e.message ? e.message : e);
  return kStatus.test(text) ? new Unsupported(text.replace(/Name:'[^']*' /g, '')) : e;
}

function sameShape(a, b) {
  return a.length === b.length && a.every((d, i) => Number(d) === b[i]);
}

const kMaxCachedSessions = 64;

function serveOnnxModels({ort, name, version, sessionOptions, reportOptimized = false,
                          weightsAsInputs = false, declines = () => ''}) {
  const optimized = path.join(os.tmpdir(), `convparity-${name}-${process.pid}.onnx`);
  const options = reportOptimized ? {...sessionOptions, optimizedModelFilePath: optimized}
                                  : sessionOptions;
  const sessionLog = process.env.CONVPARITY_SESSION_LOG;
  // A session of `model` and the ops it runs.
  async function made(model) {
    let session;
    try {
      session = await ort.InferenceSession.create(model, options);
    } catch (e) {
      throw refusal(e);  // the loader checks the model against its kernels
    }
    if (sessionLog) fs.appendFileSync(sessionLog, `${name}: a session of ${model.length} bytes\n`);
    let implementation = '';
    if (reportOptimized) {
      implementation = graphOps(fs.readFileSync(optimized));
      fs.rmSync(optimized, {force: true});
    }
    return {session, implementation};
  }
  const cached = new Map();  // model bytes (latin1) → made(model), least recently used first
  async function sessionOf(model) {
    if (!weightsAsInputs) return made(model);
    const key = Buffer.from(model.buffer, model.byteOffset, model.length).toString('latin1');
    let entry = cached.get(key);
    if (entry) {
      cached.delete(key);  // set again below as the most recently used
    } else {
      entry = await made(model);
      if (cached.size >= kMaxCachedSessions) {
        const [oldest, old] = cached.entries().next().value;
        cached.delete(oldest);
        await old.session.release();
      }
    }
    cached.set(key, entry);
    return entry;
  }
  async function compute(request, inputs, model) {
    if (!model) throw new Error('a model reader got a run without a model');
    const reason = declines(request);
    if (reason) throw new Unsupported(reason);
    const {session, implementation} = await sessionOf(model);
    try {
      // x, then (weightsAsInputs) the weights, each by its name in the model.
      const feeds = {x: new ort.Tensor('float32', inputs.input, request.inputs[0].shape)};
      for (const b of request.inputs.slice(1))
        feeds[b.name] = new ort.Tensor('float32', inputs[b.name], b.shape);
      const y = (await session.run(feeds)).y;
      if (!sameShape(y.dims, request.result.shape)) return {shape: y.dims.map(Number)};
      const values = Float32Array.from(y.data);
      return reportOptimized ? {values, implementation} : values;
    } catch (e) {
      throw refusal(e);
    } finally {
      if (!weightsAsInputs) await session.release();
    }
  }
  return serve({
    name,
    version,
    directions: ['fwd'],
    modelFormat: 'onnx',
    modelWeights: weightsAsInputs ? 'inputs' : null,
    compute,
  });
}

module.exports = {serveOnnxModels};
