#!/usr/bin/env bash
# fuzz_smoke.sh <build dir> [runs]: runs every fuzz target built in <build dir>/fuzz for a fixed
# number of inputs (-runs, default 1500) from a small seed corpus (the known-bug regression cases
# and generated cases, encoded by `convparity export-fuzz-seeds`). Exits non-zero when a target
# crashes, aborts or finds a discrepancy, and when one of the targets (fuzz_parity, fuzz_inputs,
# fuzz_transforms) is not built; prints the input and the report. About a minute on two cores
# without sanitizers. Used by .ci/run.
set -euo pipefail
if [ $# -lt 1 ] || [ ! -d "$1/fuzz" ]; then
  echo "usage: fuzz_smoke.sh <build dir with CONVPARITY_BUILD_FUZZERS=ON> [runs]" >&2
  exit 2
fi
SRC=$(cd "$(dirname "$0")/.." && pwd)
BUILD=$(cd "$1" && pwd)
RUNS=${2:-${FUZZ_SMOKE_RUNS:-1500}}
CONVPARITY=$BUILD/harness/convparity
# A smoke run that finds nothing to run must not pass.
for t in fuzz_parity fuzz_inputs fuzz_transforms; do
  if [ ! -x "$BUILD/fuzz/$t" ] || [ ! -f "$BUILD/fuzz/$t" ]; then
    echo "fuzz_smoke: no fuzz target $t in $BUILD/fuzz (configure with -DCONVPARITY_BUILD_FUZZERS=ON)" >&2
    exit 1
  fi
done
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export CONVPARITY_FUZZ_OUT=$work/findings

"$CONVPARITY" export-fuzz-seeds "$SRC/corpus/regression/known_bugs" --generate 100 --quiet \
  --out "$work/seeds/fuzz_parity" >/dev/null
"$CONVPARITY" export-fuzz-seeds "$SRC/corpus/regression/known_bugs" --generate 20 --quiet \
  --target inputs --out "$work/seeds/fuzz_inputs" >/dev/null
cp -r "$work/seeds/fuzz_parity" "$work/seeds/fuzz_transforms"

source "$SRC/scripts/fuzz_options.sh"

status=0
for target in "$BUILD"/fuzz/fuzz_*; do
  [ -x "$target" ] && [ -f "$target" ] || continue
  t=$(basename "$target")
  mkdir -p "$work/corpus/$t" "$work/artifacts/$t"
  start=$(date +%s)
  # shellcheck disable=SC2046
  if "$target" $(options_flags "$SRC/fuzz/$t.options") -runs="$RUNS" -seed=1 \
      -artifact_prefix="$work/artifacts/$t/" -print_final_stats=1 \
      "$work/corpus/$t" "$work/seeds/$t" >"$work/$t.log" 2>&1; then
    echo "fuzz_smoke: $t: ok, $(grep -o 'stat::number_of_executed_units: [0-9]*' "$work/$t.log" \
      | grep -o '[0-9]*$') runs, $(grep -o 'cov: [0-9]*' "$work/$t.log" | tail -1), \
$(( $(date +%s) - start )) s"
  else
    status=1
    echo "fuzz_smoke: $t: FAILED" >&2
    grep -E 'fuzz_parity:|fuzz_inputs:|fuzz_transforms:|ERROR|SUMMARY|report|Test unit written' \
      "$work/$t.log" | head -20 >&2
    for a in "$work/artifacts/$t"/*; do
      [ -f "$a" ] && echo "  input (base64): $(base64 -w0 "$a")" >&2
    done
  fi
done
exit $status
