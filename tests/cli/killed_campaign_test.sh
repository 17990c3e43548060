#!/usr/bin/env bash
# A campaign killed with SIGKILL in the middle of a write leaves only whole files (files are written
# atomically: docs/INTERFACES.md, "Corpora and run folders"). Each run starts `convparity fuzz`
# against known bugs (so findings are being written) with its k-th write stalled halfway
# ($CONVPARITY_TEST_STALL_WRITE=k, which announces the stall on stderr; k drawn from the kill seed:
# the first summary, a finding's case or report, a later summary), and kills it -9 during the stall.
# Then it checks what it left:
#  - the kill landed in the middle of a write: the temp file of the aimed write is still there;
#  - every other file is JSON or an abandoned temp file (<name>.tmp.<pid>, which nothing reads);
#  - every *.json parses and validates against its schema (case, report, summary);
#  - `convparity check <out>/corpus` replays every case: exit 1 (the known bugs' findings expect
#    passed, and still fail), or 0 when nothing was found yet; never 2 (a torn or malformed file).
# tests/test_the_tests/ shows it failing when writes are not atomic (tests/README.md).
# Usage: killed_campaign_test.sh <convparity binary> <source dir>
# CONVPARITY_KILL_SEED=N repeats the aims of an earlier run (the seed is printed);
# CONVPARITY_KILL_RUNS=N (default 8) runs; CONVPARITY_TEST_PRELOAD=lib.so is preloaded into the
# campaigns only (the demonstration's non-atomic writes).
# CONVPARITY_SANITIZED=1 (the asan preset): everything runs 2-5 times slower.
# Under CI=true a missing python3-jsonschema is a failure; elsewhere the files are only parsed.
set -u
cp=$1
src=$2
py=/usr/bin/python3
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
passed=0 failed=0 with_findings=0
runs=${CONVPARITY_KILL_RUNS:-8}
seed=${CONVPARITY_KILL_SEED:-$((RANDOM * 32768 + RANDOM))}
RANDOM=$seed
echo "kill seed $seed (CONVPARITY_KILL_SEED=$seed repeats these aims)"

fail() {
  failed=$((failed + 1))
  echo "FAIL $*"
}

slowdown=1 need_findings=2
[ "${CONVPARITY_SANITIZED:-0}" = 1 ] && slowdown=3 need_findings=1
have_jsonschema=0
$py -c 'import jsonschema' 2>/dev/null && have_jsonschema=1
if [ $have_jsonschema = 0 ]; then
  if [ "${CI:-}" = true ]; then
    fail "/usr/bin/python3 has no jsonschema, and CI=true (scripts/setup.sh installs it)"
  else
    echo "schema checks reduced to parsing: /usr/bin/python3 has no jsonschema (scripts/setup.sh installs it)"
  fi
fi
preload=()
[ -n "${CONVPARITY_TEST_PRELOAD:-}" ] && preload=(env "LD_PRELOAD=$CONVPARITY_TEST_PRELOAD")

for run in $(seq "$runs"); do
  out="$tmp/run$run"
  err="$tmp/stderr$run"
  aim=$((1 + RANDOM % 6))
  # Two jobs: two workers and the campaign's threads write concurrently when the kill comes.
  CONVPARITY_TEST_STALL_WRITE=$aim "${preload[@]}" "$cp" fuzz --sut known-bug:tvm-7912 \
    --sut known-bug:pytorch-19912 --time 60 --seed "$run" --jobs 2 --out "$out" --quiet \
    >/dev/null 2>"$err" &
  victim=$!
  stalled=
  for _ in $(seq $((1200 * slowdown))); do
    stalled=$(sed -n 's/^convparity: test stall in the middle of writing //p' "$err")
    [ -n "$stalled" ] && break
    kill -0 "$victim" 2>/dev/null || break
    sleep 0.1
  done
  kill -9 "$victim" 2>/dev/null
  wait "$victim" 2>/dev/null
  # Orphaned workers end when their parent's pipe closes; wait until none writes into $out.
  sleep 0.5
  if [ -z "$stalled" ]; then
    fail "run $run: the campaign ended or hung before its write $aim"
    head -3 "$err"
    continue
  fi

  # The kill came while the aimed file was half written: its temp file is left.
  [ -f "$stalled" ] && passed=$((passed + 1)) ||
    fail "run $run: killed in write $aim, but its temp file ${stalled#"$out"/} is not there"

  # Whatever is not JSON must be an abandoned temp file.
  strays=$(find "$out" -type f ! -name '*.json' ! -regex '.*\.json\.tmp\.[0-9]+' 2>/dev/null)
  [ -z "$strays" ] && passed=$((passed + 1)) || fail "run $run: files that are neither JSON nor temp files: $strays"

  cases=$(find "$out/corpus" -name '*.json' 2>/dev/null | wc -l)
  reports=$(find "$out/reports" -name '*.json' 2>/dev/null | wc -l)
  temps=$(find "$out" -regex '.*\.json\.tmp\.[0-9]+' 2>/dev/null | wc -l)
  echo "run $run: killed in write $aim (${stalled#"$out"/}): $cases corpus cases, $reports reports, $temps temp files"
  [ "$cases" -gt 0 ] && with_findings=$((with_findings + 1))

  # Every JSON file parses (and validates against its schema).
  for kind in case:corpus report:reports summary:.; do
    schema=${kind%%:*} dir=${kind#*:}
    if [ "$dir" = . ]; then files=$(ls "$out"/summary.json 2>/dev/null); else
      files=$(find "$out/$dir" -name '*.json' 2>/dev/null); fi
    [ -n "$files" ] || continue
    # shellcheck disable=SC2086  # file names are hashes, no spaces
    if [ $have_jsonschema = 1 ]; then
      $py "$src/reports/schema/validate.py" "$src/reports/schema/$schema.schema.json" $files >"$tmp/validate" 2>&1
    else
      $py -c 'import json, sys; [json.load(open(f)) for f in sys.argv[1:]]' $files >"$tmp/validate" 2>&1
    fi
    if [ $? -eq 0 ]; then passed=$((passed + 1)); else
      fail "run $run: $schema files are not whole"; head -5 "$tmp/validate"; fi
  done

  # The corpus replays: findings (1) or nothing yet (0), never a malformed file (2).
  if [ -d "$out/corpus" ]; then
    timeout -k 5 120 "$cp" check "$out/corpus" --quiet >"$tmp/check" 2>&1
    got=$?
    if [ "$got" -eq 1 ] || { [ "$got" -eq 0 ] && [ "$cases" -eq 0 ]; }; then passed=$((passed + 1)); else
      fail "run $run: check $out/corpus: exit $got"; tail -3 "$tmp/check"; fi
  fi
done

# The aims must have caught campaigns in the middle of writing findings, not only the summary.
[ "$with_findings" -ge "$need_findings" ] && passed=$((passed + 1)) ||
  fail "only $with_findings of $runs runs had findings when killed"
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
