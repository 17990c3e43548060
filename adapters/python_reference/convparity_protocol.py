"""The child's side of convparity's process protocol, version 1 (harness/exec/PROTOCOL.md).

serve(name, version, directions, compute) answers convparity's hello and then every `run` request
until stdin closes. compute(request, inputs) gets the request header and the input buffers as
float32 numpy arrays of their shapes (PyTorch's layouts), and returns the result array, or raises
Unsupported(reason) to decline the case. Any other exception is answered as an `error`.
"""

import json
import os
import sys

import numpy as np

PROTOCOL_VERSION = 1
MAX_HEADER_BYTES = 65536


class Unsupported(Exception):
    """Raised by compute() for a configuration the stack declines (verdict: skipped)."""


class ProtocolError(Exception):
    """convparity sent something this module does not understand: the child stops."""


def read_header(stream):
    line = stream.readline(MAX_HEADER_BYTES + 1)
    if not line:
        return None  # end of file: convparity is done
    if not line.endswith(b"\n"):
        raise ProtocolError("header line longer than %d bytes or cut short" % MAX_HEADER_BYTES)
    return json.loads(line)


def read_floats(stream, count):
    data = stream.read(4 * count)
    if len(data) != 4 * count:
        raise ProtocolError("end of file inside a buffer of %d floats" % count)
    return np.frombuffer(data, dtype="<f4")


def write_message(stream, header, values=None):
    stream.write((json.dumps(header, separators=(",", ":")) + "\n").encode())
    if values is not None:
        stream.write(np.ascontiguousarray(values, dtype="<f4").tobytes())
    stream.flush()


def one_line(text, limit=200):
    return " ".join(str(text).split())[:limit]


def answer(request, inputs, compute):
    """The answer header and buffer (or None) of one request."""
    rid = request["id"]
    expected = request["result"]
    try:
        result = np.asarray(compute(request, inputs), dtype=np.float32)
    except Unsupported as e:
        return {"type": "unsupported", "id": rid, "reason": one_line(e)}, None
    except Exception as e:  # the stack failed on this case: say so, stay alive
        return {"type": "error", "id": rid, "message": one_line("%s: %s" % (type(e).__name__, e))}, None
    if list(result.shape) != list(expected["shape"]):
        return {"type": "error", "id": rid, "message": "result has shape %s, expected %s" % (
            list(result.shape), expected["shape"])}, None
    return {"type": "ok", "id": rid, "count": int(result.size)}, result


def schema_validator():
    """A check of every header against harness/exec/protocol.schema.json (python3-jsonschema)."""
    import jsonschema
    here = os.path.dirname(os.path.abspath(__file__))
    with open(os.path.join(here, "..", "..", "harness", "exec", "protocol.schema.json")) as f:
        schema = json.load(f)
    validator = jsonschema.Draft202012Validator(schema)

    def check(header):
        errors = list(validator.iter_errors(header))
        if errors:
            raise ProtocolError("header %s fails the schema: %s" % (
                json.dumps(header)[:200], errors[0].message[:200]))
    return check


def serve(name, version, directions, compute, stdin=None, stdout=None, check=None,
          capabilities=None):
    """check(header), when given, sees every header read and written (e.g. schema_validator()).
    capabilities, when given, is what the child declares it can run (docs/INTERFACES.md)."""
    stdin = stdin or sys.stdin.buffer
    stdout = stdout or sys.stdout.buffer
    check = check or (lambda header: None)

    def send(header, values=None):
        check(header)
        write_message(stdout, header, values)

    hello = read_header(stdin)
    if hello is None:
        return 0
    check(hello)
    if hello.get("type") != "hello" or hello.get("protocol") != PROTOCOL_VERSION:
        send({"type": "error", "message": "%s speaks protocol %d only" % (name, PROTOCOL_VERSION)})
        return 2
    send({"type": "hello", "protocol": PROTOCOL_VERSION, "name": name, "version": version,
          "directions": list(directions), "capabilities": capabilities})
    while True:
        request = read_header(stdin)
        if request is None:
            return 0
        if request.get("type") != "run":
            raise ProtocolError("expected a run request, got %r" % request.get("type"))
        check(request)
        inputs = {b["name"]: read_floats(stdin, b["count"]).reshape(b["shape"])
                  for b in request["inputs"]}
        header, values = answer(request, inputs, compute)
        send(header, values)
