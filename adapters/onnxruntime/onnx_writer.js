// A small writer of ONNX models (protobuf wire format, onnx.proto's field numbers), enough for
// one-node graphs of float32 tensors: no dependency, no protobuf compiler.
//
//   oneNodeModel({opType, attributes, nodeInputs, inputs, initializers, outputs, opset})
//     attributes: {name: integer | [integers]}
//     nodeInputs: the node's input names, in the operator's order
//     inputs, outputs: [{name, shape}]            graph inputs and outputs (float32)
//     initializers: [{name, shape, values}]       constant tensors (Float32Array)
//   returns a Uint8Array: the serialized ModelProto.
'use strict';

// Wire types.
const VARINT = 0, BYTES = 2;

class Writer {
  constructor() {
    this.parts = [];
  }
  varint(v) {
    // Non-negative integers below 2^53 (sizes, enums, field tags).
    const bytes = [];
    let n = BigInt(v);
    do {
      let b = Number(n & 0x7fn);
      n >>= 7n;
      if (n > 0n) b |= 0x80;
      bytes.push(b);
    } while (n > 0n);
    this.parts.push(Uint8Array.from(bytes));
    return this;
  }
  tag(field, wire) {
    return this.varint(field * 8 + wire);
  }
  int(field, v) {
    if (!Number.isInteger(v) || v < 0) throw new Error(`onnx_writer: ${v} is not a size`);
    return this.tag(field, VARINT).varint(v);
  }
  bytes(field, data) {
    this.tag(field, BYTES).varint(data.length);
    this.parts.push(data);
    return this;
  }
  string(field, s) {
    return this.bytes(field, new TextEncoder().encode(s));
  }
  message(field, build) {
    const inner = new Writer();
    build(inner);
    return this.bytes(field, inner.finish());
  }
  finish() {
    const length = this.parts.reduce((n, p) => n + p.length, 0);
    const out = new Uint8Array(length);
    let at = 0;
    for (const p of this.parts) {
      out.set(p, at);
      at += p.length;
    }
    return out;
  }
}

const FLOAT = 1;                        // TensorProto.DataType
const ATTRIBUTE_INT = 2, ATTRIBUTE_INTS = 7;  // AttributeProto.AttributeType

// ValueInfoProto {name = 1, type = 2 {tensor_type = 1 {elem_type = 1, shape = 2 {dim = 1
// {dim_value = 1}}}}}
function valueInfo(w, {name, shape}) {
  w.string(1, name);
  w.message(2, (type) => type.message(1, (tensor) => {
    tensor.int(1, FLOAT);
    tensor.message(2, (s) => {
      for (const d of shape) s.message(1, (dim) => dim.int(1, d));
    });
  }));
}

// TensorProto {dims = 1, data_type = 2, name = 8, raw_data = 9 (little-endian)}
function tensor(w, {name, shape, values}) {
  for (const d of shape) w.int(1, d);
  w.int(2, FLOAT);
  w.string(8, name);
  w.bytes(9, new Uint8Array(values.buffer, values.byteOffset, values.byteLength));
}

// AttributeProto {name = 1, i = 3, ints = 8, type = 20}
function attribute(w, name, value) {
  w.string(1, name);
  if (Array.isArray(value)) {
    for (const v of value) w.int(8, v);
    w.int(20, ATTRIBUTE_INTS);
  } else {
    w.int(3, value);
    w.int(20, ATTRIBUTE_INT);
  }
}

function oneNodeModel({opType, attributes, nodeInputs, inputs, initializers, outputs, opset}) {
  const model = new Writer();
  model.int(1, 8);  // ir_version
  model.string(2, 'convparity');  // producer_name
  // GraphProto {node = 1, name = 2, initializer = 5, input = 11, output = 12}
  model.message(7, (graph) => {
    // NodeProto {input = 1, output = 2, name = 3, op_type = 4, attribute = 5}
    graph.message(1, (node) => {
      for (const name of nodeInputs) node.string(1, name);
      for (const o of outputs) node.string(2, o.name);
      node.string(3, 'node');
      node.string(4, opType);
      for (const [name, value] of Object.entries(attributes))
        node.message(5, (a) => attribute(a, name, value));
    });
    graph.string(2, 'convparity');
    for (const t of initializers) graph.message(5, (w) => tensor(w, t));
    for (const i of inputs) graph.message(11, (w) => valueInfo(w, i));
    for (const o of outputs) graph.message(12, (w) => valueInfo(w, o));
  });
  model.message(8, (op) => op.string(1, '').int(2, opset));  // opset_import {domain, version}
  return model.finish();
}

module.exports = {oneNodeModel};
