#!/usr/bin/python3
"""The property a PyTorch user would write instead of running a convparity campaign.

Hypothesis draws forward and transposed-forward convolutions from the space of
`convparity fuzz --direction fwd --max-macs 200000` (rank 1-3, groups incl. depthwise, stride,
dilation, symmetric and asymmetric padding, output_padding, kernels 1-9, batch, channels-last,
bias), computes each in float32 and float64 with torch.nn.functional on the same random data, and
checks torch.allclose. Timed over a fixed number of examples (in runs of --batch, see there), with
generation only (no shrinking, no example database) and one torch thread: the baseline of
bench/throughput_vs_hypothesis.sh. Not drawn here, though convparity draws them: padding past the
dilated kernel's reach (about one ordinary dimension in eight) and weight layouts other than
channels-last.

Run with Debian's interpreter (/usr/bin/python3), which sees python3-torch and python3-hypothesis:
    /usr/bin/python3 bench/hypothesis_property.py --examples 10000 --seed 1
Prints "python-hypothesis: N cases in T s (R cases/s)" and a line of details.
"""

import argparse
import math
import sys
import time

import torch
import torch.nn.functional as F
from hypothesis import HealthCheck, Phase, assume, given, seed, settings
from hypothesis import strategies as st

MAX_MACS = 200_000
MAX_KERNEL = 9
# Largest output size (ordinary) or input size (transposed) per dimension, by rank: as in
# convparity's generator, so that 3-D problems leave room for channels under the MAC cap.
MAX_EXTENT = {1: 48, 2: 16, 3: 6}

CONV = {1: F.conv1d, 2: F.conv2d, 3: F.conv3d}
CONV_T = {1: F.conv_transpose1d, 2: F.conv_transpose2d, 3: F.conv_transpose3d}

# Filled in by the property body, read by main().
stats = {"drawn": 0, "cases": 0, "macs": 0, "transposed": 0, "mismatches": 0}


@st.composite
def dimension(draw, rank, transposed):
    """One spatial dimension, drawn so that it is valid by construction where a user easily can."""
    k = draw(st.integers(1, MAX_KERNEL))
    d = draw(st.integers(1, 4))
    # Mostly small strides, sometimes larger than the kernel.
    s = draw(st.one_of(st.integers(1, 4), st.integers(1, 10)))
    reach = d * (k - 1)
    op = draw(st.integers(0, max(s, d) - 1)) if transposed else 0
    if draw(st.booleans()):
        pad_begin = pad_end = draw(st.integers(0, reach))
    else:
        pad_begin = draw(st.integers(0, reach))
        pad_end = draw(st.integers(0, reach + op))
    extent = draw(st.integers(1, MAX_EXTENT[rank]))
    if transposed:
        size = extent
        out = (size - 1) * s + reach + 1 + op - pad_begin - pad_end
        assume(out >= 1)  # cropped to nothing
        small = size
    else:
        # Draw the output size and derive the input: drawing the input instead would reject
        # most large kernels with dilation.
        remainder = draw(st.integers(0, s - 1))
        size = max(1, (extent - 1) * s + reach + 1 - pad_begin - pad_end + remainder)
        out = (size + pad_begin + pad_end - reach - 1) // s + 1
        small = out
    return dict(k=k, d=d, s=s, op=op, pb=pad_begin, pe=pad_end, size=size, small=small)


@st.composite
def problems(draw):
    stats["drawn"] += 1  # attempts; those not reaching the body were rejected
    # About a third transposed, as in convparity's generator (35%), so both sides check the same
    # mix; transposed problems are the larger ones there.
    transposed = draw(st.sampled_from([False, False, True]))
    rank = draw(st.integers(1, 3))
    dims = [draw(dimension(rank, transposed)) for _ in range(rank)]
    # MACs = batch · groups · (C_in/g) · (C_out/g) · small-side positions · kernel taps; the
    # channel counts are drawn within what the spatial part leaves of the budget.
    spatial = math.prod(x["small"] * x["k"] for x in dims)
    budget = MAX_MACS // spatial
    assume(budget >= 1)

    def within(hi):
        nonlocal budget
        v = draw(st.integers(1, max(1, min(hi, budget))))
        budget //= v
        return v

    kind = draw(st.sampled_from(["plain", "grouped", "depthwise"]))
    if kind == "plain":
        groups, in_pg, out_pg = 1, within(16), within(16)
    elif kind == "grouped":
        groups = within(8)
        in_pg, out_pg = within(16), within(16)
    else:  # depthwise: groups == C_in, C_out a multiple of it
        groups, in_pg = within(32), 1
        out_pg = within(4)
    batch = within(8)
    macs = batch * groups * in_pg * out_pg * spatial
    assume(macs <= MAX_MACS)
    return dict(transposed=transposed, rank=rank, dims=dims, groups=groups,
                c_in=groups * in_pg, c_out=groups * out_pg, batch=batch, macs=macs,
                channels_last=draw(st.booleans()), bias=draw(st.booleans()))


def channels_last(t):
    # A channels-last copy for any rank (torch.channels_last covers only 4-D tensors).
    return t.movedim(1, -1).contiguous().movedim(-1, 1)


def convolve(p, x, w, b):
    dims = p["dims"]
    stride = [x_["s"] for x_ in dims]
    dilation = [x_["d"] for x_ in dims]
    symmetric = all(x_["pb"] == x_["pe"] for x_ in dims)
    if not p["transposed"]:
        if symmetric:
            return CONV[p["rank"]](x, w, b, stride, [x_["pb"] for x_ in dims], dilation,
                                   p["groups"])
        # F.pad lists the last dimension first.
        pads = [v for x_ in reversed(dims) for v in (x_["pb"], x_["pe"])]
        return CONV[p["rank"]](F.pad(x, pads), w, b, stride, 0, dilation, p["groups"])
    op = [x_["op"] for x_ in dims]
    if symmetric:
        return CONV_T[p["rank"]](x, w, b, stride, [x_["pb"] for x_ in dims], op, p["groups"],
                                 dilation)
    # Asymmetric padding of a transposed convolution: compute the full output, crop it.
    y = CONV_T[p["rank"]](x, w, b, stride, 0, op, p["groups"], dilation)
    for i, x_ in enumerate(dims):
        y = y.narrow(2 + i, x_["pb"], y.shape[2 + i] - x_["pb"] - x_["pe"])
    return y


def shapes(p):
    sizes = [x_["size"] for x_ in p["dims"]]
    kernel = [x_["k"] for x_ in p["dims"]]
    g = p["groups"]
    if p["transposed"]:
        weight = [p["c_in"], p["c_out"] // g] + kernel
    else:
        weight = [p["c_out"], p["c_in"] // g] + kernel
    return [p["batch"], p["c_in"]] + sizes, weight, [p["c_out"]]


def check(p):
    x_shape, w_shape, b_shape = shapes(p)
    x64 = torch.randn(x_shape, dtype=torch.float64)
    w64 = torch.randn(w_shape, dtype=torch.float64)
    b64 = torch.randn(b_shape, dtype=torch.float64) if p["bias"] else None
    x32, w32 = x64.float(), w64.float()
    b32 = b64.float() if b64 is not None else None
    if p["channels_last"]:
        x32, w32 = channels_last(x32), channels_last(w32)
    y64 = convolve(p, x64, w64, b64)
    y32 = convolve(p, x32, w32, b32)
    return torch.allclose(y32.double(), y64, rtol=1e-4, atol=1e-5)


def run(examples, seed_value, strict):
    @seed(seed_value)
    @settings(max_examples=examples, deadline=None, database=None, phases=[Phase.generate],
              suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])
    @given(problems())
    def conv_f32_matches_f64(p):
        stats["cases"] += 1
        stats["macs"] += p["macs"]
        stats["transposed"] += p["transposed"]
        ok = check(p)
        if strict:
            assert ok, p
        elif not ok:
            # Counted, not raised: a failing assert would end the timed run at its first
            # (tolerance) failure, and this run measures throughput.
            stats["mismatches"] += 1

    conv_f32_matches_f64()


def main():
    global MAX_MACS
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--examples", type=int, default=10000, help="valid examples to run")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--max-macs", type=int, default=MAX_MACS,
                        help="size cap of drawn problems (multiply-adds), as convparity's flag")
    # Hypothesis records every choice sequence a run has tried (to avoid repeats), so one very
    # long run gets slower per example: 5,000 examples in one run came out 5-15% slower here than
    # in runs of 1,000 (run-to-run noise is about as large). A user would run the property many
    # times at a usual max_examples anyway, so by default the examples are split into runs of
    # this many, each with its own seed: the faster option for Python. --batch 0: one run.
    parser.add_argument("--batch", type=int, default=1000,
                        help="examples per Hypothesis run (0: all in one run)")
    parser.add_argument("--strict", action="store_true",
                        help="assert allclose (stops at the first mismatch) instead of counting")
    args = parser.parse_args()
    if args.batch <= 0:
        args.batch = args.examples
    MAX_MACS = args.max_macs
    torch.set_num_threads(1)  # convparity's campaign here has one worker on one thread
    torch.manual_seed(args.seed)  # Hypothesis seeds `random`, not torch: same data every run

    start = time.perf_counter()
    done = 0
    for k in range(math.ceil(args.examples / args.batch)):
        n = min(args.batch, args.examples - done)
        run(n, args.seed * 1_000_003 + k, args.strict)
        done += n
    elapsed = time.perf_counter() - start

    n = stats["cases"]
    print(f"python-hypothesis: {n} cases in {elapsed:.2f} s ({n / elapsed:.1f} cases/s)")
    print(f"python-hypothesis details: runs of {min(args.batch, args.examples)} examples, "
          f"mean MACs {stats['macs'] / max(n, 1):.0f}, "
          f"transposed {100 * stats['transposed'] / max(n, 1):.0f}%, "
          f"rejected draws {stats['drawn'] - n} of {stats['drawn']}, "
          f"allclose mismatches {stats['mismatches']}, torch {torch.__version__}, "
          f"threads {torch.get_num_threads()}, mkldnn {torch.backends.mkldnn.is_available()}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
