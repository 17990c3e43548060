#!/usr/bin/python3
"""What a torchscript case costs, step by step (README.md, "Caching, and what a case costs").

The adapter's module (torchscript_adapter.cc) written as a Python module, compiled, rewritten and
run with the same LibTorch (Debian's python3-torch), on one thread. Usage: rewrite_cost.py
"""
import time

import torch
from torch.utils.mobile_optimizer import optimize_for_mobile


class ConvUnderRewrite(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.weight = torch.nn.Parameter(torch.randn(8, 4, 3, 3))
        self.bias = torch.nn.Parameter(torch.randn(8))
        for name, value in [("bn_weight", torch.ones(8)), ("bn_bias", torch.zeros(8)),
                            ("bn_mean", torch.zeros(8)), ("bn_var", torch.ones(8))]:
            self.register_buffer(name, value)

    def forward(self, x):
        x = x * 2.0
        y = torch.conv2d(x, self.weight, self.bias, [1, 1], [1, 1], [1, 1], 1)
        y = torch.batch_norm(y, self.bn_weight, self.bn_bias, self.bn_mean, self.bn_var, False,
                             0.0, 0.0, False)
        return y * 0.5


def mean_ms(step, repetitions):
    start = time.perf_counter()
    for _ in range(repetitions):
        result = step()
    return (time.perf_counter() - start) / repetitions * 1e3, result


torch.set_num_threads(1)
x = torch.randn(1, 4, 9, 9)
ms, scripted = mean_ms(lambda: torch.jit.script(ConvUnderRewrite()).eval(), 20)
print(f"compile (cached by the adapter): {ms:.2f} ms")
rewrites = [("freeze", lambda: torch.jit.freeze(scripted)),
            ("freeze + optimize_for_inference",
             lambda: torch.jit.optimize_for_inference(torch.jit.freeze(scripted))),
            ("optimize_for_mobile", lambda: optimize_for_mobile(scripted))]
# As in a campaign: every case rewrites a module and runs it once (a fresh module's first run pays
# the graph executor's own work). The first case of a process is left out (one-time set-up).
for name, rewrite in rewrites:
    rewrite_ms = run_ms = 0.0
    repetitions = 50
    for i in range(repetitions + 1):
        start = time.perf_counter()
        module = rewrite()
        middle = time.perf_counter()
        module(x)
        end = time.perf_counter()
        if i > 0:
            rewrite_ms += (middle - start) * 1e3
            run_ms += (end - middle) * 1e3
    print(f"{name}: rewrite {rewrite_ms / repetitions:.2f} ms, "
          f"its one run {run_ms / repetitions:.3f} ms")
