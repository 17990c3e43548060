#!/usr/bin/python3
"""convparity's reference SUT for the process protocol: a naive convolution in numpy.

Every direction of ordinary and transposed convolution, 1-3 spatial dimensions, groups, stride,
dilation, asymmetric padding, output_padding and bias, summed in float64 and rounded to float32
once. It is what the protocol's tests run, and the starting point for putting your own stack under
test: replace compute() by calls into your stack (README, "Testing your own stack").

    convparity fuzz --sut 'exec:/usr/bin/python3 adapters/python_reference/reference_sut.py'
"""

import itertools
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from convparity_protocol import schema_validator, serve  # noqa: E402


def _window(start, count, step):
    return slice(start, start + (count - 1) * step + 1, step)


def _tap_slices(tap, dilation, extent, stride):
    """The positions of the padded input that kernel tap `tap` meets, for each output element."""
    return tuple(_window(t * d, e, s) for t, d, e, s in zip(tap, dilation, extent, stride))


def _pad(x, begin, end):
    return np.pad(x, [(0, 0), (0, 0)] + list(zip(begin, end)))


ALL = (slice(None),) * 3  # (N, group, channel) or (group, out, in) axes


def conv_forward(x, w, groups, stride, pad_begin, pad_end, dilation, out):
    """Ordinary convolution: x (N, C, in...), w (O, C/g, k...) -> y (N, O, out...)."""
    n, c = x.shape[:2]
    o, kernel = w.shape[0], w.shape[2:]
    xg = _pad(x, pad_begin, pad_end).reshape(n, groups, c // groups, *[
        i + b + e for i, b, e in zip(x.shape[2:], pad_begin, pad_end)])
    wg = w.reshape(groups, o // groups, c // groups, *kernel)
    y = np.zeros((n, groups, o // groups) + tuple(out))
    for tap in itertools.product(*map(range, kernel)):
        xs = xg[ALL + _tap_slices(tap, dilation, out, stride)]
        y += np.einsum("ngc...,goc->ngo...", xs, wg[ALL + tap])
    return y.reshape(n, o, *out)


def conv_backward_data(dy, w, groups, stride, pad_begin, pad_end, dilation, in_size):
    """The gradient of conv_forward with respect to x: dy (N, O, out...) -> dx (N, C, in...)."""
    n, o, out = dy.shape[0], dy.shape[1], dy.shape[2:]
    cg, kernel = w.shape[1], w.shape[2:]
    padded = [i + b + e for i, b, e in zip(in_size, pad_begin, pad_end)]
    dx = np.zeros((n, groups, cg) + tuple(padded))
    dyg = dy.reshape(n, groups, o // groups, *out)
    wg = w.reshape(groups, o // groups, cg, *kernel)
    for tap in itertools.product(*map(range, kernel)):
        dx[ALL + _tap_slices(tap, dilation, out, stride)] += np.einsum(
            "ngo...,goc->ngc...", dyg, wg[ALL + tap])
    crop = tuple(slice(b, b + i) for b, i in zip(pad_begin, in_size))
    return dx[ALL + crop].reshape(n, groups * cg, *in_size)


def conv_backward_weight(x, dy, groups, stride, pad_begin, pad_end, dilation, kernel):
    """The gradient of conv_forward with respect to w: x, dy -> dw (O, C/g, k...)."""
    n, c = x.shape[:2]
    o, out = dy.shape[1], dy.shape[2:]
    xg = _pad(x, pad_begin, pad_end).reshape(n, groups, c // groups, *[
        i + b + e for i, b, e in zip(x.shape[2:], pad_begin, pad_end)])
    dyg = dy.reshape(n, groups, o // groups, *out)
    dw = np.zeros((groups, o // groups, c // groups) + tuple(kernel))
    for tap in itertools.product(*map(range, kernel)):
        xs = xg[ALL + _tap_slices(tap, dilation, out, stride)]
        dw[ALL + tap] = np.einsum("ngos,ngcs->goc", dyg.reshape(n, groups, o // groups, -1),
                                  xs.reshape(n, groups, c // groups, -1))
    return dw.reshape(o, c // groups, *kernel)


def compute(request, inputs):
    p = request["problem"]
    g, s, pb, pe, d = p["groups"], p["stride"], p["pad_begin"], p["pad_end"], p["dilation"]
    direction = request["direction"]
    f64 = {name: a.astype(np.float64) for name, a in inputs.items()}
    if not p["transposed"]:
        if direction == "fwd":
            y = conv_forward(f64["input"], f64["weight"], g, s, pb, pe, d, p["output"])
        elif direction == "bwd_data":
            y = conv_backward_data(f64["grad_output"], f64["weight"], g, s, pb, pe, d, p["input"])
        else:
            y = conv_backward_weight(f64["input"], f64["grad_output"], g, s, pb, pe, d, p["kernel"])
    else:
        # A transposed convolution is the ordinary one's backward-data pass: its input plays the
        # role of dy, its weight (C_in, C_out/g, k...) that of the ordinary weight (O, I/g, k...).
        if direction == "fwd":
            y = conv_backward_data(f64["input"], f64["weight"], g, s, pb, pe, d, p["output"])
        elif direction == "bwd_data":
            y = conv_forward(f64["grad_output"], f64["weight"], g, s, pb, pe, d, p["input"])
        else:
            y = conv_backward_weight(f64["grad_output"], f64["input"], g, s, pb, pe, d, p["kernel"])
    if direction == "fwd" and p["bias"]:
        y += f64["bias"].reshape((1, -1) + (1,) * p["rank"])
    return y.astype(np.float32)


def main():
    # --check-schema: every header read and written is checked against protocol.schema.json.
    check = schema_validator() if "--check-schema" in sys.argv[1:] else None
    return serve("python-reference", "1 (numpy %s)" % np.__version__,
                 ["fwd", "bwd_data", "bwd_weight"], compute, check=check)


if __name__ == "__main__":
    sys.exit(main())
