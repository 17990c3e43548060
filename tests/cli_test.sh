#!/usr/bin/env bash
# The command line as users and CI see it: exit codes, one-line errors, the files a run leaves.
# Usage: cli_test.sh <convparity binary> <source dir>
set -u
cp=$1
src=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
passed=0 failed=0

# expect <exit code> <name> -- command…
expect() {
  local want=$1 name=$2
  shift 3
  "$@" >"$tmp/out" 2>"$tmp/err"
  local got=$?
  if [ "$got" -eq "$want" ]; then
    passed=$((passed + 1))
  else
    failed=$((failed + 1))
    echo "FAIL $name: exit $got, expected $want"
    head -5 "$tmp/out" "$tmp/err"
  fi
}
# contains <file> <pattern> <name>
contains() {
  if grep -qE -- "$2" "$1"; then passed=$((passed + 1)); else
    failed=$((failed + 1)); echo "FAIL $3: no /$2/ in $1"; head -5 "$1"; fi
}
one_line_error() {
  if [ "$(wc -l <"$tmp/err")" -eq 1 ] && grep -q '^convparity: ' "$tmp/err"; then passed=$((passed + 1)); else
    failed=$((failed + 1)); echo "FAIL $1: error is not one line"; cat "$tmp/err"; fi
}

expect 0 list -- "$cp" list
contains "$tmp/out" 'torch-f32-slow' list-names-aten
contains "$tmp/out" 'known-bug:tvm-9465' list-names-known-bugs

expect 2 unknown-flag -- "$cp" fuzz --no-such-flag
one_line_error unknown-flag
expect 2 bad-descriptor -- "$cp" repro '2d_ic4_oc4_i9_k3_s2x2x2'
one_line_error bad-descriptor
contains "$tmp/err" 's has 3 values' bad-descriptor-says-why
expect 2 invalid-problem -- "$cp" repro 'fwd:2d_ic4_oc4_i2_k3' --no-isolation
one_line_error invalid-problem
expect 2 bad-direction -- "$cp" fuzz --direction sideways
one_line_error bad-direction
printf '{"schema": "convparity.case/1", "descriptor": "fwd:1d_ic1_oc1_i4_k' >"$tmp/truncated.json"
expect 2 truncated-case -- "$cp" repro "$tmp/truncated.json"
one_line_error truncated-case
expect 2 missing-file -- "$cp" check "$tmp/nothing-here"

expect 0 repro-parity -- "$cp" repro 'fwd:t2d_g2_ic4_oc6_i5x5_k3x3_s2x2_p1x1_op1x0_nhwc' --sut direct --fill wide
expect 1 repro-known-bug -- "$cp" repro 'fwd:t1d_ic1_oc1_i1_k1_s2_pb0_pe1_op1' --sut known-bug:tvm-5758
contains "$tmp/out" 'first mismatch at' repro-shows-coordinates

# The gate: an expected discrepancy that still differs passes; the same case expecting parity fails.
mkdir -p "$tmp/gate"
cat >"$tmp/gate/bug.json" <<JSON
{"schema": "convparity.case/1", "descriptor": "fwd:2d_g2_ic2_oc4_i1x1_k1x1", "sut": "known-bug:pytorch-19912",
 "fill": "exact", "seed": 3, "expect": "discrepancy", "note": "pytorch-19912"}
JSON
cat >"$tmp/gate/ok.json" <<JSON
{"schema": "convparity.case/1", "descriptor": "fwd:2d_g2_ic2_oc4_i1x1_k1x1", "sut": "direct", "fill": "exact", "seed": 3}
JSON
expect 0 check-as-expected -- "$cp" check "$tmp/gate" --junit "$tmp/junit.xml" --summary "$tmp/check-summary.json"
contains "$tmp/out" '^2 passed, 0 failed$' check-closing-line
contains "$tmp/junit.xml" '<testsuite ' junit-written
sed 's/"discrepancy"/"parity"/' "$tmp/gate/bug.json" >"$tmp/gate/bug.json.new" && mv "$tmp/gate/bug.json.new" "$tmp/gate/bug.json"
expect 1 check-unexpected -- "$cp" check "$tmp/gate"
contains "$tmp/out" '^UNEXPECTED ' check-names-the-case

# A short campaign against a known bug: exit 1, and the report, the corpus case and the summary exist.
expect 1 fuzz-finds -- "$cp" fuzz --sut known-bug:tvm-7912 --direction fwd --cases 300 --seed 5 --out "$tmp/run" --quiet
ls "$tmp/run/reports/"*.json >/dev/null 2>&1 && passed=$((passed + 1)) || { failed=$((failed + 1)); echo "FAIL fuzz-report"; }
ls "$tmp/run/corpus/"*.json >/dev/null 2>&1 && passed=$((passed + 1)) || { failed=$((failed + 1)); echo "FAIL fuzz-corpus"; }
contains "$tmp/run/summary.json" '"convparity.summary/1"' fuzz-summary
expect 1 replay-finding -- "$cp" check "$tmp/run/corpus"
expect 0 fuzz-ours-clean -- "$cp" fuzz --cases 60 --seed 5 --jobs 2 --out "$tmp/clean" --quiet

# Every file a run wrote validates against its schema (with Debian's python3-jsonschema).
py=/usr/bin/python3
if $py -c 'import jsonschema' 2>/dev/null; then
  expect 0 schema-report -- $py "$src/reports/schema/validate.py" "$src/reports/schema/report.schema.json" "$tmp"/run/reports/*.json
  expect 0 schema-case -- $py "$src/reports/schema/validate.py" "$src/reports/schema/case.schema.json" "$tmp"/run/corpus/*.json
  expect 0 schema-summary -- $py "$src/reports/schema/validate.py" "$src/reports/schema/summary.schema.json" "$tmp/run/summary.json" "$tmp/check-summary.json"
else
  echo "skipped schema checks: /usr/bin/python3 has no jsonschema (scripts/setup.sh installs it)"
fi

# Shrinking a failing case, and refusing a passing one.
big=$(ls "$tmp"/run/corpus/*.json | head -1)
cat >"$tmp/big.json" <<JSON
{"schema": "convparity.case/1", "descriptor": "fwd:t2d_g2_mb2_ic4_oc6_i6x5_k3x2_s2x3_pb1x0_pe0x1_op1x2_nhwc", "sut": "known-bug:tvm-7912", "fill": "exact", "seed": 9}
JSON
expect 0 shrink -- "$cp" shrink "$tmp/big.json" --out "$tmp/shrunk" --quiet
contains "$tmp/out" 'shrunk in [0-9]+ steps' shrink-says-steps
contains "$tmp/out" 't1d_ic1_oc1_i1_k1_(s2|d2)_op1' shrink-is-minimal
expect 1 shrink-passing -- "$cp" shrink "$tmp/gate/ok.json" --out "$tmp/shrunk"

# benchdnn lists become cases that pass on our kernels.
expect 0 import -- "$cp" import-benchdnn "$src/../shared/benchdnn/deconv/shapes_1d" --max-batch 2 --max-spatial 6 --scale-macs 50000 --fill exact --out "$tmp/imp"
expect 0 import-replays -- "$cp" check "$tmp/imp/corpus"

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
