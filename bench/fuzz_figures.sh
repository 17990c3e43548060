#!/usr/bin/env bash
# fuzz_figures.sh <build dir> [work dir]: the figures of the libFuzzer targets. Measure without
# sanitizers (`cmake --preset fuzz`, build dir build-fuzz) on an otherwise idle machine:
#   1. exec/s of each fuzz target: EXEC_SECONDS (60) of one process from its seed corpus;
#   2. the coverage (libFuzzer's `cov:`, instrumented edges) fuzz_parity reaches in COV_SECONDS
#      (300) from its seed corpus;
#   3. which known-bug variants (`convparity list` → known-bug:*) fuzz_parity finds within
#      BUG_SECONDS (60) each, CONVPARITY_FUZZ_SUT=known-bug:<id>, starting from an empty corpus
#      (BUG_SEEDS=generated: from generated seeds that hold no trigger case).
set -euo pipefail
if [ $# -lt 1 ] || [ ! -d "$1/fuzz" ]; then
  echo "usage: fuzz_figures.sh <build dir with CONVPARITY_BUILD_FUZZERS=ON> [work dir]" >&2
  exit 2
fi
SRC=$(cd "$(dirname "$0")/.." && pwd)
BUILD=$(cd "$1" && pwd)
WORK=$(mkdir -p "${2:-/tmp/fuzz-figures}" && cd "${2:-/tmp/fuzz-figures}" && pwd)
EXEC_SECONDS=${EXEC_SECONDS:-60}
COV_SECONDS=${COV_SECONDS:-300}
BUG_SECONDS=${BUG_SECONDS:-60}
BUG_SEEDS=${BUG_SEEDS:-empty}
CONVPARITY=$BUILD/harness/convparity
source "$SRC/scripts/fuzz_options.sh"
export CONVPARITY_FUZZ_OUT=$WORK/findings

rm -rf "$WORK/seeds" && mkdir -p "$WORK/seeds"
bash "$SRC/fuzz/make_seeds.sh" "$CONVPARITY" "$WORK/seeds"
for zip in "$WORK"/seeds/*_seed_corpus.zip; do
  t=$(basename "$zip" _seed_corpus.zip)
  mkdir -p "$WORK/seeds/$t" && unzip -q -o "$zip" -d "$WORK/seeds/$t"
done

# run <target> <seconds> <log> [dirs…]: one libFuzzer process for a time budget.
run() {
  local target=$1 seconds=$2 log=$3
  shift 3
  # shellcheck disable=SC2046
  "$BUILD/fuzz/$target" $(options_flags "$SRC/fuzz/$target.options") -seed=1 \
    -max_total_time="$seconds" -print_final_stats=1 -artifact_prefix="$WORK/artifacts/" "$@" \
    >"$log" 2>&1
}
mkdir -p "$WORK/artifacts"

echo "== exec/s, $EXEC_SECONDS s per target, from the seed corpus"
for target in "$BUILD"/fuzz/fuzz_*; do
  [ -x "$target" ] && [ -f "$target" ] || continue
  t=$(basename "$target")
  rm -rf "$WORK/corpus-$t" && mkdir -p "$WORK/corpus-$t"
  run "$t" "$EXEC_SECONDS" "$WORK/exec-$t.log" "$WORK/corpus-$t" "$WORK/seeds/$t" || true
  echo "$t: $(grep -o 'stat::average_exec_per_sec: *[0-9]*' "$WORK/exec-$t.log" | grep -o '[0-9]*$') exec/s," \
    "$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$WORK/exec-$t.log" | grep -o '[0-9]*$') runs," \
    "$(grep -o 'cov: [0-9]*' "$WORK/exec-$t.log" | tail -1)"
done

echo "== fuzz_parity coverage in $COV_SECONDS s from the seed corpus"
rm -rf "$WORK/corpus-cov" && mkdir -p "$WORK/corpus-cov"
run fuzz_parity "$COV_SECONDS" "$WORK/cov.log" "$WORK/corpus-cov" "$WORK/seeds/fuzz_parity" || true
echo "after loading the seeds: $(grep -E 'INITED' "$WORK/cov.log" | grep -o 'cov: [0-9]*' | head -1)"
echo "after $COV_SECONDS s: $(grep -o 'cov: [0-9]*' "$WORK/cov.log" | tail -1)"

echo "== known bugs found by fuzz_parity within $BUG_SECONDS s each ($BUG_SEEDS corpus)"
mkdir -p "$WORK/bug-seeds"
if [ "$BUG_SEEDS" = generated ]; then
  bugs_seed_args=(--generate 300)
fi
found=0
total=0
for id in $("$CONVPARITY" list --json | python3 -c \
    'import json,sys; print(" ".join(b["id"] for b in json.load(sys.stdin)["known_bugs"]))'); do
  total=$((total + 1))
  corpus=$WORK/corpus-bug-$id
  rm -rf "$corpus" && mkdir -p "$corpus"
  if [ "$BUG_SEEDS" = generated ]; then
    CONVPARITY_FUZZ_SUT=known-bug:$id "$CONVPARITY" export-fuzz-seeds "${bugs_seed_args[@]}" \
      --quiet --out "$corpus" >/dev/null
  fi
  start=$(date +%s.%N)
  if CONVPARITY_FUZZ_SUT=known-bug:$id run fuzz_parity "$BUG_SECONDS" "$WORK/bug-$id.log" "$corpus"; then
    echo "known-bug:$id: not found in $BUG_SECONDS s"
  else
    found=$((found + 1))
    printf 'known-bug:%s: found after %.1f s: %s\n' "$id" "$(echo "$(date +%s.%N) - $start" | bc)" \
      "$(grep -m1 '^fuzz_parity: ' "$WORK/bug-$id.log" | cut -c14- | cut -d: -f1-4)"
  fi
done
echo "found $found of $total known-bug variants within $BUG_SECONDS s each"
