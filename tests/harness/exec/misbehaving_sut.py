#!/usr/bin/python3
"""A protocol child that misbehaves on purpose, for the tests of the exec: client.

    misbehaving_sut.py MODE [N]

answers like the reference SUT, except on the N-th request of each child (default 2), where it:
  crash        writes a line to stderr and dies on SIGSEGV
  hang         writes a line to stderr and sleeps forever
  exit         exits with code 3 after reading the request
  short        answers ok with the right count, writes half the floats and exits
  garbage      writes a log line to stdout before its answer
  count        answers ok with a count one too large
  error        answers an error (and goes on)
  unsupported  declines the case (and goes on)
and, for the hello:
  protocol2    says it speaks protocol 2
  lie          crashes like `crash`, and the child started next says another version than the
               first (a marker file in $CONVPARITY_TEST_STATE says a child started before)
  crash-odd    dies whenever the first input buffer has an odd count: a crash that depends on the
               problem alone, for campaigns that must go on (and shrink it)
"""

import os
import signal
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "adapters",
                                "python_reference"))
import convparity_protocol as protocol  # noqa: E402
import reference_sut  # noqa: E402

MODE = sys.argv[1]
NTH = int(sys.argv[2]) if len(sys.argv) > 2 else 2
requests = 0


def compute(request, inputs):
    global requests
    requests += 1
    if MODE == "crash-odd":
        misbehave = request["inputs"][0]["count"] % 2 == 1
    else:
        misbehave = requests == NTH
    if not misbehave:
        return reference_sut.compute(request, inputs)
    out = sys.stdout.buffer
    if MODE in ("crash", "crash-odd", "lie"):
        sys.stderr.write("misbehaving: about to crash on request %d\n" % request["id"])
        sys.stderr.flush()
        os.kill(os.getpid(), signal.SIGSEGV)
    if MODE == "hang":
        sys.stderr.write("misbehaving: hanging on request %d\n" % request["id"])
        sys.stderr.flush()
        while True:
            time.sleep(60)
    if MODE == "exit":
        os._exit(3)
    if MODE == "short":
        count = request["result"]["count"]
        protocol.write_message(out, {"type": "ok", "id": request["id"], "count": count},
                               reference_sut.compute(request, inputs).ravel()[:count // 2])
        os._exit(0)
    if MODE == "garbage":
        out.write(b"misbehaving: a log line on stdout\n")
    if MODE == "count":
        result = reference_sut.compute(request, inputs).ravel()
        protocol.write_message(out, {"type": "ok", "id": request["id"], "count": result.size + 1},
                               result)
        sys.stdin.buffer.read()  # whatever convparity does next
        os._exit(0)
    if MODE == "error":
        raise RuntimeError("misbehaving: an error of the stack")
    if MODE == "unsupported":
        raise protocol.Unsupported("misbehaving: declines request %d" % request["id"])
    return reference_sut.compute(request, inputs)


def version():
    if MODE != "lie":
        return "1"
    state = os.environ["CONVPARITY_TEST_STATE"]
    started_before = os.path.exists(state)
    open(state, "a").close()
    return "2, after a restart" if started_before else "1"


if MODE == "protocol2":
    protocol.read_header(sys.stdin.buffer)
    protocol.write_message(sys.stdout.buffer, {"type": "hello", "protocol": 2, "name": "m",
                                               "version": "1", "directions": ["fwd"]})
    sys.exit(0)
sys.exit(protocol.serve("misbehaving-" + MODE, version(), ["fwd", "bwd_data", "bwd_weight"],
                        compute))
