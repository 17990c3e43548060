#!/usr/bin/python3
"""libtorch-1: optimize_for_mobile turns a legal ConvTranspose2d into one that fails at run time.

PyTorch allows a transposed convolution's output_padding up to max(stride, dilation) - 1; XNNPACK's
deconvolution takes it as its "adjustment", which must be below the stride. optimize_for_mobile
rewrites the convolution into XNNPACK's prepacked conv2d_transpose_clamp anyway, and the optimized
module raises "xnn_setup_deconvolution2d_nhwc_f32 failed!" where the original computes the right
result. A control with output_padding below the stride passes through the same path, which checks
the reference loop.

Exit 1: the optimized module fails or differs from the plain loop (the bug is there); 0: it agrees;
77: this PyTorch's optimize_for_mobile does not use XNNPACK for the convolution (nothing to test).
"""
import sys

import torch
from torch.utils.mobile_optimizer import optimize_for_mobile


def reference(x, w, stride, padding, output_padding, dilation):
    """conv_transpose2d with one group and no bias, as a scatter of every input element."""
    n, c_in, h, wd = x.shape
    _, c_out, kh, kw = w.shape
    oh = (h - 1) * stride[0] - 2 * padding[0] + dilation[0] * (kh - 1) + output_padding[0] + 1
    ow = (wd - 1) * stride[1] - 2 * padding[1] + dilation[1] * (kw - 1) + output_padding[1] + 1
    y = [[[[0.0] * ow for _ in range(oh)] for _ in range(c_out)] for _ in range(n)]
    for b in range(n):
        for ci in range(c_in):
            for i in range(h):
                for j in range(wd):
                    for co in range(c_out):
                        for p in range(kh):
                            for q in range(kw):
                                r = i * stride[0] - padding[0] + p * dilation[0]
                                s = j * stride[1] - padding[1] + q * dilation[1]
                                if 0 <= r < oh and 0 <= s < ow:
                                    y[b][co][r][s] += float(x[b, ci, i, j]) * float(w[ci, co, p, q])
    return torch.tensor(y)


def check(output_padding):
    stride, padding, dilation = (1, 1), (0, 0), (2, 1)
    conv = torch.nn.ConvTranspose2d(2, 3, (2, 1), stride=stride, padding=padding,
                                    output_padding=output_padding, dilation=dilation, bias=False)
    with torch.no_grad():
        conv.weight.copy_(torch.arange(conv.weight.numel()).reshape(conv.weight.shape) % 5 - 2)
    conv.eval()
    x = (torch.arange(2 * 2 * 3 * 2).reshape(2, 2, 3, 2) % 7 - 3).float()
    expected = reference(x, conv.weight.detach(), stride, padding, output_padding, dilation)
    assert torch.equal(conv(x).detach(), expected), "eager PyTorch disagrees with the loop"
    optimized = optimize_for_mobile(torch.jit.script(conv))
    kinds = {node.kind() for node in optimized.graph.nodes()}
    if "prepacked::conv2d_transpose_clamp_run" not in kinds:
        print("optimize_for_mobile left no prepacked::conv2d_transpose_clamp_run:", sorted(kinds))
        sys.exit(77)
    label = f"output_padding={output_padding}, stride={stride}, dilation={dilation}"
    try:
        got = optimized(x)
    except RuntimeError as e:
        print(f"{label}: the optimized module failed: {str(e).strip().splitlines()[-1]}")
        return False
    same = torch.equal(got, expected)
    print(f"{label}: optimized module {'agrees with' if same else 'DIFFERS from'} the loop")
    return same


print("torch", torch.__version__)
if not check((0, 0)):  # control: output_padding below the stride
    print("the control failed: the reproduction itself is wrong")
    sys.exit(2)
sys.exit(0 if check((1, 0)) else 1)
