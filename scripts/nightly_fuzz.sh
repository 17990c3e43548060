#!/usr/bin/env bash
# nightly_fuzz.sh <build dir> [seconds per target] [out dir]: a night of coverage-guided fuzzing.
# Each fuzz target runs for its time budget in libFuzzer's fork mode (-fork=$JOBS, crashes kept
# and the run going), from its corpus of earlier nights plus freshly built seeds; the corpus is
# then merged (-merge=1: the smallest set with the same coverage) for the next night; each
# fuzz_parity finding becomes a case file (`convparity import-fuzz-input`) that `convparity repro`
# and `convparity check` take. Layout of the out dir (default nightly-fuzz/):
#   corpus/<target>/     the merged corpus, kept between nights
#   artifacts/<target>/  libFuzzer's crash-*, timeout-*, oom-* inputs
#   findings/            fuzz_parity's own case files and reports (as a campaign writes them)
#   cases/               every artifact of fuzz_parity converted to a case file
# Environment: JOBS (default 2), CONVPARITY_FUZZ_SUT (e.g. known-bug:tvm-9465), and
# CONVPARITY_FUZZ_MAX_MACS, which import-fuzz-input reads too, so cases decode the same.
set -euo pipefail
if [ $# -lt 1 ] || [ ! -d "$1/fuzz" ]; then
  echo "usage: nightly_fuzz.sh <build dir with CONVPARITY_BUILD_FUZZERS=ON> [seconds] [out]" >&2
  exit 2
fi
SRC=$(cd "$(dirname "$0")/.." && pwd)
BUILD=$(cd "$1" && pwd)
SECONDS_PER_TARGET=${2:-3600}
OUT=$(mkdir -p "${3:-nightly-fuzz}" && cd "${3:-nightly-fuzz}" && pwd)
JOBS=${JOBS:-2}
CONVPARITY=$BUILD/harness/convparity
export CONVPARITY_FUZZ_OUT=$OUT/findings

seeds=$OUT/seeds
rm -rf "$seeds" && mkdir -p "$seeds"
bash "$SRC/fuzz/make_seeds.sh" "$CONVPARITY" "$seeds" >/dev/null

source "$SRC/scripts/fuzz_options.sh"

for target in "$BUILD"/fuzz/fuzz_*; do
  [ -x "$target" ] && [ -f "$target" ] || continue
  t=$(basename "$target")
  corpus=$OUT/corpus/$t
  mkdir -p "$corpus" "$OUT/artifacts/$t" "$seeds/$t"
  [ -f "$seeds/${t}_seed_corpus.zip" ] && unzip -q -o "$seeds/${t}_seed_corpus.zip" -d "$seeds/$t"
  echo "nightly_fuzz: $t for $SECONDS_PER_TARGET s on $JOBS jobs"
  # shellcheck disable=SC2046
  "$target" $(options_flags "$SRC/fuzz/$t.options") -fork="$JOBS" -ignore_crashes=1 \
    -ignore_timeouts=1 -ignore_ooms=1 -max_total_time="$SECONDS_PER_TARGET" \
    -artifact_prefix="$OUT/artifacts/$t/" -print_final_stats=1 \
    "$corpus" "$seeds/$t" >"$OUT/$t.log" 2>&1 || true
  grep -E '^#[0-9]+' "$OUT/$t.log" | tail -1 || true
  # Merge: keep the smallest set of inputs with the coverage of the old corpus and what was found.
  rm -rf "$corpus.merged" && mkdir -p "$corpus.merged"
  # shellcheck disable=SC2046
  if "$target" $(options_flags "$SRC/fuzz/$t.options") -merge=1 "$corpus.merged" "$corpus" \
      >"$OUT/$t.merge.log" 2>&1; then
    rm -rf "$corpus" && mv "$corpus.merged" "$corpus"
  else
    echo "nightly_fuzz: $t: merge failed (see $OUT/$t.merge.log); corpus kept as it was" >&2
    rm -rf "$corpus.merged"
  fi
  echo "nightly_fuzz: $t: corpus $(ls "$corpus" | wc -l) inputs, artifacts" \
    "$(ls "$OUT/artifacts/$t" | wc -l)"
done

# fuzz_parity's artifacts are cases: decode them with the same decoder and SUT list.
shopt -s nullglob
artifacts=("$OUT"/artifacts/fuzz_parity/*)
if [ ${#artifacts[@]} -gt 0 ]; then
  "$CONVPARITY" import-fuzz-input "${artifacts[@]}" --corpus "$OUT/cases"
  echo "nightly_fuzz: replay them with: $CONVPARITY repro $OUT/cases/*.json"
fi
