// TensorFlow.js's graph models under test: tfjs-converter executing the TensorFlow graph model
// (GraphDef JSON and weights) convparity writes of each case (harness/models/tf_graph_model.h),
// through the process protocol (harness/exec/PROTOCOL.md, "Models").
//
//   node tfjs_graph_sut.js cpu|wasm    (convparity: --sut tfjs-graph-cpu, --sut tfjs-graph-wasm)
//
// Every direction and spelling convparity writes: Conv2D, Conv3D, DepthwiseConv2dNative, the
// fused ops, Conv2DBackpropInput and the other backprop ops, whatever the converter maps. What
// TensorFlow.js refuses while loading or executing a model (an op it does not know, an assertion
// of an op: "Error in conv2d: …") is a decline with its message, its numbers written N so that the
// summary counts one refusal as one reason; a fault of JavaScript itself ("Cannot read properties
// of undefined") stays an error, and a trap of WebAssembly ends the child: a crash.
'use strict';

const {serve, Unsupported} = require('../common/convparity_protocol.js');

const backend = process.argv[2];
if (backend !== 'cpu' && backend !== 'wasm') {
  console.error('usage: node tfjs_graph_sut.js cpu|wasm');
  process.exit(2);
}
const tf = require('@tensorflow/tfjs');
if (backend === 'wasm') require('@tensorflow/tfjs-backend-wasm');

// Faults of JavaScript, not refusals (tfjs-converter's own "Unknown op" is a TypeError too).
const kFault = /Cannot read propert|is not a function|is not defined|call stack|Invalid array length/;

function refusal(e) {
  // A trap of the WebAssembly backend ("memory access out of bounds") leaves its memory in any
  // state: the child ends, a crash, and convparity starts a fresh one for the next case.
  if (e instanceof WebAssembly.RuntimeError) {
    console.error(`tfjs-graph-${backend}: ${e.message}`);
    process.exit(1);
  }
  const text = String(e && e.message ? e.message : e).split('\n')[0];
  return kFault.test(text) ? e : new Unsupported(text.replace(/\b\d+\b/g, 'N'));
}

// convparity's one-file graph model: model.json with its weights inline (weightData, base64).
async function load(bytes) {
  const json = JSON.parse(Buffer.from(bytes).toString('utf8'));
  const weights = Buffer.from(json.weightData, 'base64');
  const weightData = weights.buffer.slice(weights.byteOffset, weights.byteOffset + weights.length);
  return tf.loadGraphModel(tf.io.fromMemory({
    modelTopology: json.modelTopology,
    weightSpecs: json.weightsManifest[0].weights,
    weightData,
  }));
}

async function compute(request, inputs, model) {
  if (!model) throw new Error('a model reader got a run without a model');
  let graph;
  try {
    graph = await load(model);
  } catch (e) {
    throw refusal(e);
  }
  const input = graph.inputs[0];
  const x = tf.tensor(inputs.input, request.inputs[0].shape, 'float32');
  let y;
  try {
    y = graph.execute({[input.name]: x}, 'y');
    if (Array.isArray(y)) y = y[0];
    const shape = y.shape;
    const same = shape.length === request.result.shape.length &&
        shape.every((d, i) => d === request.result.shape[i]);
    if (!same) return {shape};
    return Float32Array.from(await y.data());
  } catch (e) {
    throw refusal(e);
  } finally {
    x.dispose();
    if (y) y.dispose();
    graph.dispose();
  }
}

async function main() {
  if (!(await tf.setBackend(backend))) throw new Error(`backend ${backend} did not initialize`);
  await tf.ready();
  return serve({
    name: `tfjs-graph-${backend}`,
    version: `tfjs-converter ${tf.version_converter} (${tf.getBackend()}; node ${process.versions.node})`,
    directions: ['fwd', 'bwd_data', 'bwd_weight'],
    modelFormat: 'tfjs-graph',
    compute,
  });
}

main().then((code) => process.exit(code), (e) => {
  console.error(e && e.stack ? e.stack : e);
  process.exit(1);
});
