#!/usr/bin/env bash
# A campaign killed with SIGKILL at a random moment leaves only whole files (INTERFACES.md: files
# are written atomically). Eight times: start `convparity fuzz` against known bugs (so findings are
# being written), kill -9 it 0.3-4 s after its first summary, then check what it left:
#  - every *.json parses and validates against its schema (case, report, summary);
#  - every other file is an abandoned temp file (<name>.tmp.<pid>, which nothing reads);
#  - `convparity check <out>/corpus` replays every case: exit 1 (the known bugs still differ), or 0
#    when nothing was found yet; never 2 (a torn or malformed file).
# Usage: killed_campaign_test.sh <convparity binary> <source dir>
# CONVPARITY_KILL_SEED=N repeats the delays of an earlier run (the seed is printed).
# CONVPARITY_SANITIZED=1 (the asan preset): everything runs 2-5 times slower, so are the delays.
set -u
cp=$1
src=$2
py=/usr/bin/python3
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
passed=0 failed=0 with_findings=0
seed=${CONVPARITY_KILL_SEED:-$((RANDOM * 32768 + RANDOM))}
RANDOM=$seed
echo "kill seed $seed (CONVPARITY_KILL_SEED=$seed repeats these delays)"

fail() {
  failed=$((failed + 1))
  echo "FAIL $*"
}

slowdown=1 need_findings=2
[ "${CONVPARITY_SANITIZED:-0}" = 1 ] && slowdown=3 need_findings=1
have_jsonschema=0
$py -c 'import jsonschema' 2>/dev/null && have_jsonschema=1
[ $have_jsonschema = 1 ] || echo "schema checks skipped: /usr/bin/python3 has no jsonschema (scripts/setup.sh installs it)"

for run in 1 2 3 4 5 6 7 8; do
  out="$tmp/run$run"
  delay_ms=$(((300 + RANDOM % 3701) * slowdown))
  delay=$(printf '%d.%03d' $((delay_ms / 1000)) $((delay_ms % 1000)))
  # Two jobs: two workers and the campaign's threads write concurrently when the kill comes.
  "$cp" fuzz --sut known-bug:tvm-7912 --sut known-bug:pytorch-19912 --time 60 --seed "$run" \
    --jobs 2 --out "$out" --quiet >/dev/null 2>&1 &
  victim=$!
  # The delay counts from the campaign's first summary (written at once), not from loading libtorch.
  for _ in $(seq 300); do [ -f "$out/summary.json" ] && break; sleep 0.1; done
  sleep "$delay"
  kill -9 "$victim" 2>/dev/null
  wait "$victim" 2>/dev/null
  # Orphaned workers end when their parent's pipe closes; wait until none writes into $out.
  sleep 0.5

  # Whatever is not JSON must be an abandoned temp file.
  strays=$(find "$out" -type f ! -name '*.json' ! -regex '.*\.json\.tmp\.[0-9]+' 2>/dev/null)
  [ -z "$strays" ] && passed=$((passed + 1)) || fail "run $run: files that are neither JSON nor temp files: $strays"

  cases=$(find "$out/corpus" -name '*.json' 2>/dev/null | wc -l)
  reports=$(find "$out/reports" -name '*.json' 2>/dev/null | wc -l)
  temps=$(find "$out" -regex '.*\.json\.tmp\.[0-9]+' 2>/dev/null | wc -l)
  echo "run $run: killed after $delay s: $cases corpus cases, $reports reports, $temps temp files"
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

# The delays must have caught campaigns in the middle of writing findings, not only at start-up.
[ "$with_findings" -ge "$need_findings" ] && passed=$((passed + 1)) ||
  fail "only $with_findings of 8 runs had findings when killed"
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
