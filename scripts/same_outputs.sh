#!/usr/bin/env bash
# Shows that two convparity binaries write the same case, report and summary files for the same
# fixed-seed campaigns, apart from times: the check of a refactoring that must keep every file
# format. Usage: scripts/same_outputs.sh OLD_CONVPARITY NEW_CONVPARITY [cases]
# Exit 0 when every file agrees; else 1 with the first differences.
set -euo pipefail
old=$1 new=$2 cases=${3:-300}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# Our kernels and transforms (the default campaign), and known bugs of both kinds, so that findings,
# shrinking and reports are compared too.
campaigns=(
  "--seed 7"
  "--seed 11 --sut known-bug:tvm-9465 --sut known-bug:pytorch-19912 --sut known-bug:tvm-9954"
  "--seed 13 --sut known-bug:tvm-layout-fold --sut known-bug:tvm-6203 --fill random"
)
for i in "${!campaigns[@]}"; do
  for side in old new; do
    bin=${!side}
    # The same --out for both: reports name their case files by path.
    # shellcheck disable=SC2086
    "$bin" fuzz ${campaigns[$i]} --cases "$cases" --jobs 1 --quiet --out "$work/run" \
      >/dev/null 2>&1 || [ $? -eq 1 ]
    mkdir -p "$work/$side"
    mv "$work/run" "$work/$side/$i"
  done
done

python3 - "$work/old" "$work/new" <<'PY'
import json, pathlib, sys
# Keys whose values are times or rates: the only things allowed to differ. cases_beside (the cases
# checked while a finding was shrunk) counts time too: one binary differs from itself there; so
# does the timeline, sampled every 5 s (a 5.2-s run has one sample more than a 4.8-s one).
TIMES = {"start_time", "end_time", "elapsed_seconds", "throughput", "time_seconds", "seconds",
         "cases_beside", "timeline"}
def strip(v):
    if isinstance(v, dict):
        return {k: strip(x) for k, x in v.items() if k not in TIMES}
    if isinstance(v, list):
        return [strip(x) for x in v]
    return v
old, new = map(pathlib.Path, sys.argv[1:])
names = sorted({p.relative_to(old) for p in old.rglob("*.json")} |
               {p.relative_to(new) for p in new.rglob("*.json")})
bad = 0
for n in names:
    a, b = old / n, new / n
    if not a.exists() or not b.exists():
        print(f"only in {'new' if b.exists() else 'old'}: {n}"); bad += 1; continue
    ja, jb = json.loads(a.read_text()), json.loads(b.read_text())
    # Byte for byte where the file holds no time; else equal once the times are taken out.
    same = a.read_bytes() == b.read_bytes() if strip(ja) == ja else strip(ja) == strip(jb)
    if not same:
        print(f"differs: {n}"); bad += 1
print(f"{len(names) - bad} files the same, {bad} different")
sys.exit(1 if bad else 0)
PY
