#!/usr/bin/env bash
# make_seeds.sh <convparity> <dir>: writes <dir>/<target>_seed_corpus.zip for every fuzz target,
# encoding corpus/ (and generated cases) with `convparity export-fuzz-seeds`. Seeds are built, not
# checked in: they follow the byte format wherever it goes.
set -euo pipefail
SRC=$(cd "$(dirname "$0")/.." && pwd)
CONVPARITY=$1
OUT=$2
GENERATE=${SEED_GENERATE:-300}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# Under $CONVPARITY_FUZZ_SUT the seeds name those SUTs, as fuzz_parity will decode them.
"$CONVPARITY" export-fuzz-seeds "$SRC/corpus" --generate "$GENERATE" --quiet \
  --out "$tmp/fuzz_parity" >/dev/null
"$CONVPARITY" export-fuzz-seeds "$SRC/corpus/regression/known_bugs" --generate 50 --quiet \
  --target inputs --out "$tmp/fuzz_inputs" >/dev/null
[ -f "$SRC/fuzz/fuzz_transforms.cc" ] && cp -r "$tmp/fuzz_parity" "$tmp/fuzz_transforms"
mkdir -p "$OUT"
for dir in "$tmp"/*/; do
  t=$(basename "$dir")
  rm -f "$OUT/${t}_seed_corpus.zip"
  (cd "$dir" && zip -q -r "$OUT/${t}_seed_corpus.zip" .)
  echo "$OUT/${t}_seed_corpus.zip: $(ls "$dir" | wc -l) seeds"
done
