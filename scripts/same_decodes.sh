#!/usr/bin/env bash
# Shows that two convparity binaries agree on the problem space's other outputs, which
# scripts/same_outputs.sh (campaigns) does not reach: the fuzz seeds (the encoder, on corpus/ and
# on generated cases), the byte decoder's decode of those seeds and of 2000 fixed pseudo-random
# inputs, and the benchdnn import of ../shared/benchdnn, scaled four ways (the fit to a budget).
# Usage: scripts/same_decodes.sh OLD_CONVPARITY NEW_CONVPARITY. Exit 0 when all agree; else 1.
set -uo pipefail
# shellcheck disable=SC2034  # read through ${!side}
old=$(realpath "$1") new=$(realpath "$2")
src=$(cd "$(dirname "$0")/.." && pwd)
shapes=${CONVPARITY_SHARED:-$src/../shared}/benchdnn
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
bad=0
same() {  # same WHAT A B: compares two files or directories
  if diff -r -q "$2" "$3" >/dev/null; then echo "same: $1"; else echo "DIFFERENT: $1"; bad=1; fi
}

for side in old new; do
  bin=${!side}
  "$bin" export-fuzz-seeds "$src/corpus" --generate 300 --quiet --out "$work/$side/seeds" \
    >/dev/null 2>&1
  "$bin" export-fuzz-seeds "$src/corpus/regression/known_bugs" --generate 50 --quiet \
    --target inputs --out "$work/$side/seeds_inputs" >/dev/null 2>&1
done
same "fuzz_parity seeds ($(ls "$work/old/seeds" | wc -l) files)" "$work/old/seeds" "$work/new/seeds"
same "fuzz_inputs seeds" "$work/old/seeds_inputs" "$work/new/seeds_inputs"

mkdir -p "$work/inputs"
cp "$work/old/seeds"/* "$work/inputs/"
python3 - "$work/inputs" <<'PY'
import os, random, sys
r = random.Random(20261124)
for i in range(2000):
    data = bytes(r.randrange(256) for _ in range(r.randint(1, 200)))
    open(os.path.join(sys.argv[1], f"random{i:04d}"), "wb").write(data)
PY
for side in old new; do
  bin=${!side}
  # shellcheck disable=SC2046
  (cd "$work/inputs" && "$bin" import-fuzz-input $(ls) --corpus "$work/$side/decoded" 2>&1 |
    sed "s#$work/$side##") >"$work/$side/decoded.txt"
done
same "decodes ($(wc -l <"$work/old/decoded.txt") inputs): lines" "$work/old/decoded.txt" \
  "$work/new/decoded.txt"
same "decodes: case files" "$work/old/decoded" "$work/new/decoded"

k=0
for opts in "" "--max-batch 2 --max-spatial 16 --scale-macs 100000" \
  "--max-batch 1 --max-spatial 4 --scale-macs 5000" "--scale-macs 2000000"; do
  k=$((k + 1))
  for side in old new; do
    bin=${!side}
    # shellcheck disable=SC2046,SC2086
    "$bin" import-benchdnn $(find "$shapes" -type f -path '*conv*' | sort) $opts --json \
      --corpus "$work/$side/import$k" 2>&1 | sed "s#$work/$side##" >"$work/$side/import$k.json"
  done
  same "import-benchdnn ${opts:-unscaled}: summary" "$work/old/import$k.json" \
    "$work/new/import$k.json"
  same "import-benchdnn ${opts:-unscaled}: $(ls "$work/old/import$k" | wc -l) case files" \
    "$work/old/import$k" "$work/new/import$k"
done
exit $bad
