#!/usr/bin/env bash
# Reproduces the campaign figures of the closing notes:
#  1. throughput of the default campaign with 1 and with 2 workers, and its time split;
#  2. seconds from start to the first report for every known-bug reproduction (median of 3 seeds);
#  3. how long `convparity check` takes on the regression corpus.
# Usage: bench/campaign_figures.sh [convparity binary] [seconds per default campaign]
set -euo pipefail
cd "$(dirname "$0")/.."
cp=${1:-./build/harness/convparity}
seconds=${2:-30}
py=/usr/bin/python3
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

echo "== default campaign (all our kernels, all directions, all fills), ${seconds} s"
for jobs in 1 2; do
  "$cp" fuzz --time "$seconds" --seed 1 --jobs $jobs --out "$tmp/default$jobs" --quiet >/dev/null || true
  $py - "$tmp/default$jobs/summary.json" $jobs <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))
t = s["time_seconds"]
total = sum(v for v in t.values())
split = ", ".join(f"{k} {v:.1f} s ({100 * v / total:.0f}%)" for k, v in t.items() if v > 0)
thr = s["throughput"]
print(f"jobs {sys.argv[2]}: {s['cases']['total']} checks in {s['elapsed_seconds']:.1f} s = "
      f"{thr['cases_per_second']:.0f} checks/s ({thr['cases_per_second_per_worker']:.0f} per worker); "
      f"buckets {len(s['buckets'])}")
print(f"  time split (summed over workers): {split}")
PY
done

echo "== time to the first report, per known bug (median of seeds 1-3, 1 worker, all directions)"
for bug in $("$cp" list --json | $py -c 'import json,sys; print(" ".join(b["sut"] for b in json.load(sys.stdin)["known_bugs"]))'); do
  times=()
  for seed in 1 2 3; do
    out="$tmp/${bug//[:\/]/_}-$seed"
    "$cp" fuzz --sut "$bug" --time 60 --seed $seed --jobs 1 --out "$out" --quiet --stop-after-buckets 1 >/dev/null || true
    times+=("$($py -c '
import json, sys
s = json.load(open(sys.argv[1]))
b = s["buckets"]
print(min(x["first_seen"]["seconds"] for x in b) if b else "none")' "$out/summary.json")")
  done
  printf '%-36s %s\n' "$bug" "$(printf '%s\n' "${times[@]}" | sort -g | sed -n 2p) s (seeds: ${times[*]})"
done

echo "== convparity check on corpus/regression"
/usr/bin/time -f "%e s wall" "$cp" check corpus/regression --jobs 2 --quiet | tail -1
