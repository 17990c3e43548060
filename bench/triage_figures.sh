#!/usr/bin/env bash
# The triage's figures per planted-bug class (docs/TRIAGE.md): a campaign of S seconds (default 10)
# against each variant of tests/planted/planted_bugs.c, one worker, and from its summary.json: time
# to the first report, buckets, hits, MACs and shrink calls of the first reported case, and the
# campaign's cases/s while that case was being shrunk (cases_beside / shrink seconds), its cases/s
# overall, the share of the worker's time that went to the protocol (its requests, its restarts),
# and how long the campaign took against its budget.
# Usage: bench/triage_figures.sh <build dir> [seconds]
set -euo pipefail
build=${1:?usage: bench/triage_figures.sh <build dir> [seconds]}
seconds=${2:-10}
plugin=$build/harness/plugin/libplanted_bugs.so
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
printf '| class | first report (s) | buckets | hits | MACs of the first | shrink calls | shrink s | cases/s while shrinking | cases/s overall | protocol share | elapsed (s) |\n'
printf '|---|---|---|---|---|---|---|---|---|---|---|\n'
for variant in everywhere narrow crash heap-overflow hang unwritten large-kernel slow; do
  extra=()
  [[ $variant == heap-overflow ]] && extra=(--malloc-check)
  [[ $variant == large-kernel ]] && extra=(--dims 1)
  "$build/harness/convparity" fuzz --sut "plugin:$plugin#$variant" --time "$seconds" --jobs 1 \
    --quiet --out "$out/$variant" "${extra[@]}" >/dev/null 2>&1 || true
  python3 - "$out/$variant/summary.json" "$variant" <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))
buckets = s["buckets"]
t = s["time_seconds"]
worker = sum(t[k] for k in ("fill", "oracle", "sut", "compare", "protocol", "idle"))
tail = (f"{s['throughput']['cases_per_second']:.0f} | {t['protocol'] / max(worker, 1e-9):.0%} | "
        f"{s['elapsed_seconds']:.1f} |")
if not buckets:
    print(f"| {sys.argv[2]} | not found | 0 | 0 | | | | | {tail}")
    sys.exit()
first = min(buckets, key=lambda b: b["first_seen"]["seconds"])
sh = first["shrink"]
rate = sh["cases_beside"] / sh["seconds"] if sh["seconds"] > 0 else 0
print(f"| {sys.argv[2]} | {first['first_seen']['seconds']:.1f} | {len(buckets)} | "
      f"{s['findings']['hits']} | {sh['macs']} | {sh['calls']} | {sh['seconds']:.1f} | {rate:.0f} | "
      f"{tail}")
PY
done
