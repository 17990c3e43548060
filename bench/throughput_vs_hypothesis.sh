#!/usr/bin/env bash
# Checks per second of a convparity campaign against the Python property a user would otherwise
# write (bench/hypothesis_property.py), side by side on this machine, one after the other:
#   1. convparity fuzz, torch-f32 vs the float64 oracle, forward (incl. transposed), random fill,
#      one worker process (the default, isolated campaign);
#   2. the same campaign with --isolate none, to show what the worker process costs;
#   3. Hypothesis drawing the same space, torch float32 vs float64, allclose, one torch thread.
# Reports the rates, the ratio and whether it meets the 8x target, per check what everything but
# the SUT costs against the SUT's own time (target: at most 60%), and the harness's own share of a
# check, neither the SUT nor the oracle (target: at most 25%); it does not assert (exit 0 whatever
# the figures; non-zero only when a run itself fails).
#
# Usage: bench/throughput_vs_hypothesis.sh [convparity binary]
#        (default ./build/harness/convparity)
# Environment: SECONDS_PER_RUN (default 25), PY_EXAMPLES (default 10000, ~20-30 s here),
#              SEED (default 1), PYTHON (default /usr/bin/python3: Debian's, which has
#              python3-torch and python3-hypothesis; a pyenv python3 on PATH does not),
#              OUT (keep the campaigns' summary.json and logs there; default a temporary folder).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
cp=${1:-./build/harness/convparity}
py=${PYTHON:-/usr/bin/python3}
time_s=${SECONDS_PER_RUN:-25}
examples=${PY_EXAMPLES:-10000}
seed=${SEED:-1}
target=8
nonsut_target=60  # percent of the SUT's own time per check
own_target=25     # percent of a check that is neither the SUT nor the oracle

[[ -x "$cp" ]] || { echo "error: no convparity binary at $cp (pass its path)" >&2; exit 2; }
[[ -x "$py" ]] || { echo "error: no python at $py" >&2; exit 2; }
cp=$(cd "$(dirname "$cp")" && pwd)/$(basename "$cp")
if [[ -n "${OUT:-}" ]]; then
  tmp=$OUT
  rm -rf "$tmp/iso" "$tmp/inproc"
  mkdir -p "$tmp"
else
  tmp=$(mktemp -d)
  trap 'rm -rf "$tmp"' EXIT
fi

cpu_model=$(sed -n 's/^model name[^:]*: //p' /proc/cpuinfo | head -n 1)
echo "machine: $(nproc) cores, $(uname -m), ${cpu_model:-unknown CPU}"

# Busy CPU time of the whole machine in clock ticks, to tell afterwards whether something else ran
# alongside a measurement: each run keeps about one core busy, anything well above that was
# another process, and then the rates are not clean. (The load average lags by a minute.)
busy_ticks() { awk '/^cpu /{print $2+$3+$4+$7+$8+$9; exit}' /proc/stat; }
cores=$(nproc)
tick=$(getconf CLK_TCK)
contended=()
machine_load() {  # <label> <busy ticks at start> <seconds since>
  local used
  used=$(awk -v b="$2" -v n="$(busy_ticks)" -v s="$3" -v t="$tick" \
    'BEGIN{printf "%.2f", (n-b)/t/s}')
  # The isolated campaign is two processes: the worker checks while the parent draws the next
  # cases and records outcomes (cases in flight), about a quarter of a core more.
  local own=1
  [ "$1" = isolated ] && own=1.25
  echo "  machine busy during the run: $used of $cores cores (the run itself: ~$own)"
  if awk -v u="$used" -v o="$own" 'BEGIN{exit !(u > o + 0.2)}'; then contended+=("$1"); fi
}
timed() {  # <label> <command...>: runs it, then says how busy the machine was meanwhile
  local label=$1 b0 t0; shift
  b0=$(busy_ticks); t0=$(date +%s.%N)
  "$@"
  machine_load "$label" "$b0" "$(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN{print b-a}')"
}

# Exit 1 means discrepancies were found, which is still a complete run here.
campaign() {  # <out dir> [extra flags...]
  local out=$1; shift
  local rc=0
  "$cp" fuzz --sut torch-f32 --direction fwd --fill random --jobs 1 --max-macs 200000 \
    --time "$time_s" --seed "$seed" --out "$out" --quiet "$@" > "$out.log" 2>&1 || rc=$?
  if (( rc > 1 )); then
    echo "error: convparity fuzz $* exited $rc:" >&2
    cat "$out.log" >&2
    exit 3
  fi
  tail -n 1 "$out.log"
}

# Throughput and time split from summary.json. The worker's time is fill + oracle + sut + compare
# + protocol (requests and answers, its start) + idle (waiting for cases); generate is the campaign
# thread's, overlapping the worker's. "Everything but the SUT" is the wall time per check minus the
# SUT's own time: what the harness costs a user whose kernel is the SUT.
split() {  # <label> <summary.json>
  "$py" - "$1" "$2" <<'PY'
import json, sys
label, path = sys.argv[1:]
s = json.load(open(path))
t, el = s["time_seconds"], s["elapsed_seconds"]
n = s["cases"]["total"]
rate = s["throughput"]["cases_per_second"]
worker = ["fill", "oracle", "bound", "sut", "compare", "protocol", "idle"]
accounted = sum(t.get(k, 0.0) for k in worker)
print(f"  {label}: {n} checks, {el:.2f} s, {rate:.1f} checks/s; per check:")
for k in ["generate"] + worker + ["shrink", "io", "(unaccounted)"]:
    v = el - accounted if k == "(unaccounted)" else t.get(k, 0.0)
    if v or k in ("oracle", "sut", "(unaccounted)"):
        print(f"    {k:<14} {v:7.2f} s {100 * v / el:5.1f}%  {1e6 * v / max(n, 1):7.1f} us")
sut = t["sut"] / max(n, 1)
rest = (el - t["sut"]) / max(n, 1)
print(f"    everything but the SUT: {1e6 * rest:.1f} us per check = "
      f"{100 * rest / sut if sut else float('inf'):.0f}% of the SUT's {1e6 * sut:.1f} us")
# The oracle is LibTorch's own float64 convolution (and, in random mode, a second one for the
# bound's magnitudes): its share alone is the floor the rest of the harness adds to.
oracle = t["oracle"] / max(n, 1)
print(f"    of which the oracle alone: {1e6 * oracle:.1f} us = "
      f"{100 * oracle / sut if sut else float('inf'):.0f}% of the SUT's time")
# The harness's own share: of a check's wall time, what is neither the SUT nor the oracle (fill,
# comparison, the worker's protocol and waits; generation overlaps them on the campaign's thread).
own = 100 * (el - t["sut"] - t["oracle"]) / el
print(f"    the harness's own share: {own:.1f}% of a check (SUT {100 * t['sut'] / el:.1f}%, "
      f"oracle {100 * t['oracle'] / el:.1f}%, protocol {100 * t.get('protocol', 0) / el:.1f}%)")
verdicts = {k: v for k, v in s["cases"]["by_verdict"].items() if v}
print(f"    verdicts: {verdicts}")
print(f"RATE {rate}", file=sys.stderr)
print(f"NONSUT {100 * rest / sut if sut else float('inf')}", file=sys.stderr)
print(f"OWN {own}", file=sys.stderr)
PY
}

rate_of() { sed -n 's/^RATE //p' "$1"; }

echo "== convparity, isolated (default campaign, one worker process), ${time_s} s"
timed isolated campaign "$tmp/iso"
split "isolated" "$tmp/iso/summary.json" 2> "$tmp/iso.rate"
iso=$(rate_of "$tmp/iso.rate")
iso_nonsut=$(sed -n 's/^NONSUT //p' "$tmp/iso.rate")
iso_own=$(sed -n 's/^OWN //p' "$tmp/iso.rate")

echo "== convparity, --isolate none (in-process), ${time_s} s"
timed in-process campaign "$tmp/inproc" --isolate none
split "in-process" "$tmp/inproc/summary.json" 2> "$tmp/inproc.rate"
inproc=$(rate_of "$tmp/inproc.rate")

echo "== Python property (Hypothesis + torch float32 vs float64, allclose), $examples examples"
timed python "$py" "$here/hypothesis_property.py" --examples "$examples" --seed "$seed" \
  > "$tmp/py.log"
cat "$tmp/py.log"
pyrate=$(sed -n 's/^python-hypothesis: .*(\([0-9.]*\) cases\/s).*/\1/p' "$tmp/py.log")
[[ -n "$pyrate" ]] || { echo "error: no rate from the Python property" >&2; exit 3; }

"$py" - "$iso" "$inproc" "$pyrate" "$target" "$iso_nonsut" "$nonsut_target" "$iso_own" \
  "$own_target" "${contended[*]:-}" <<'PY'
import sys
iso, inproc, py, target, nonsut, nonsut_target, own, own_target = map(float, sys.argv[1:9])
contended = sys.argv[9]
print("== result")
print(f"convparity isolated:    {iso:9.1f} checks/s")
print(f"convparity in-process:  {inproc:9.1f} checks/s  "
      f"(isolation costs {100 * (1 - iso / inproc):.0f}% of the in-process rate)")
print(f"python-hypothesis:      {py:9.1f} cases/s")
print(f"ratio isolated/python:   {iso / py:.2f}x   (in-process/python: {inproc / py:.2f}x)")
print(f"meets the {target:g}x target: {'yes' if iso / py >= target else 'no'}")
print(f"everything but the SUT (isolated): {nonsut:.0f}% of the SUT's time; meets the "
      f"{nonsut_target:g}% target: {'yes' if nonsut <= nonsut_target else 'no'}")
print(f"the harness's own share (isolated): {own:.1f}% of a check; meets the {own_target:g}% "
      f"target: {'yes' if own <= own_target else 'no'}")
if contended:
    print(f"warning: other processes were busy during: {contended}; these rates are not clean")
PY
