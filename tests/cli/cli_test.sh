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
contains "$tmp/out" 'chain  *a residual block' list-names-graph-forms

expect 2 unknown-flag -- "$cp" fuzz --no-such-flag
one_line_error unknown-flag
expect 2 bad-descriptor -- "$cp" repro '2d_ic4_oc4_i9_k3_s2x2x2'
one_line_error bad-descriptor
contains "$tmp/err" 's has 3 values' bad-descriptor-says-why
expect 2 invalid-problem -- "$cp" repro 'fwd:2d_ic4_oc4_i2_k3' --isolate none
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

# The gate (gate_test.sh tries every verdict): a known bug's case expecting its symptom passes, with
# JUnit and summary files; the same case expecting passed fails, naming the case.
mkdir -p "$tmp/gate"
cat >"$tmp/gate/bug.json" <<JSON
{"schema": "convparity.case/1", "descriptor": "fwd:2d_g2_ic2_oc4_i1x1_k1x1", "sut": "known-bug:pytorch-19912",
 "fill": "exact", "seed": 3, "expect": "failed", "note": "pytorch-19912"}
JSON
cat >"$tmp/gate/ok.json" <<JSON
{"schema": "convparity.case/1", "descriptor": "fwd:2d_g2_ic2_oc4_i1x1_k1x1", "sut": "direct", "fill": "exact", "seed": 3}
JSON
expect 0 check-as-expected -- "$cp" check "$tmp/gate" --junit "$tmp/junit.xml" --summary "$tmp/check-summary.json"
contains "$tmp/out" '^2 passed, 0 failed$' check-closing-line
contains "$tmp/junit.xml" '<testsuite ' junit-written
sed 's/"failed"/"passed"/' "$tmp/gate/bug.json" >"$tmp/gate/bug.json.new" && mv "$tmp/gate/bug.json.new" "$tmp/gate/bug.json"
expect 1 check-unexpected -- "$cp" check "$tmp/gate"
contains "$tmp/out" '^UNEXPECTED .*/gate/bug.json: .*: expected passed, got failed' check-names-the-case
# With --sut, case files run on the SUTs named, not on their own: a corpus replays on another
# library (or another build of one through --sut-map). Their expectation is their own SUT's; on
# another SUT a case is expected to pass.
expect 0 check-on-sut -- "$cp" check "$tmp/gate" --sut direct --junit "$tmp/junit-direct.xml"
contains "$tmp/out" '^2 passed, 0 failed$' check-on-sut-replays-all
[ "$(grep -c 'classname="convparity.direct"' "$tmp/junit-direct.xml")" -eq 2 ] &&
  passed=$((passed + 1)) || { failed=$((failed + 1)); echo "FAIL check-on-sut-runs-the-sut-named"; }
expect 1 check-on-buggy-sut -- "$cp" check "$tmp/gate/ok.json" --sut known-bug:pytorch-19912
unexpected='^UNEXPECTED .*ok.json: .* known-bug:pytorch-19912 .*expected passed, got failed'
contains "$tmp/out" "$unexpected" check-on-buggy-sut-says-so
expect 1 repro-on-sut -- "$cp" repro "$tmp/gate/ok.json" --sut known-bug:pytorch-19912
contains "$tmp/out" 'known-bug:pytorch-19912 exact seed=3: failed' repro-on-sut-says-so
# A command takes only its own flags (harness/cli/flags.def).
expect 2 foreign-flag -- "$cp" list --shard 3/4
one_line_error foreign-flag
contains "$tmp/err" "list does not take '--shard 3/4'" foreign-flag-named
expect 2 old-isolation-spelling -- "$cp" repro 'fwd:1d_ic1_oc1_i4_k1' --no-isolation

# A short campaign against a known bug: exit 1, and the report, the corpus case and the summary exist.
expect 1 fuzz-finds -- "$cp" fuzz --sut known-bug:tvm-7912 --direction fwd --cases 300 --seed 5 --out "$tmp/run" --quiet
ls "$tmp/run/reports/"*.json >/dev/null 2>&1 && passed=$((passed + 1)) || { failed=$((failed + 1)); echo "FAIL fuzz-report"; }
ls "$tmp/run/corpus/"*.json >/dev/null 2>&1 && passed=$((passed + 1)) || { failed=$((failed + 1)); echo "FAIL fuzz-corpus"; }
contains "$tmp/run/summary.json" '"convparity.summary/3"' fuzz-summary
expect 1 replay-finding -- "$cp" check "$tmp/run/corpus"
expect 0 fuzz-ours-clean -- "$cp" fuzz --cases 60 --seed 5 --jobs 2 --out "$tmp/clean" --quiet
# Without --jobs a campaign runs a worker per core; its progress lines give the rate and the time
# left (not on a terminal: one line per checkpoint and a last one).
expect 0 fuzz-default-jobs -- "$cp" fuzz --time 3 --seed 5 --out "$tmp/alljobs"
if /usr/bin/python3 -c 'import json,sys; s=json.load(open(sys.argv[1])); sys.exit(s["options"]["jobs"] != int(sys.argv[2]))' \
    "$tmp/alljobs/summary.json" "$(nproc)"; then passed=$((passed + 1)); else
  failed=$((failed + 1)); echo "FAIL fuzz-default-jobs: options.jobs is not $(nproc)"; fi
progress='^\[convparity\] [0-9]+ cases, [0-9]+ checks: [0-9]+ computed \([0-9]+/s\), '
progress+='[0-9]+ skipped, [0-9]+ buckets, [0-9]+ s, ETA [0-9]+ s$'
contains "$tmp/err" "$progress" fuzz-progress-eta
contains "$tmp/err" '^\[convparity\] [0-9]+ cases, .*, done$' fuzz-progress-done

# kill -9 in the middle of a campaign: whatever it had written is whole (replays as a finding, not
# as a malformed file, exit 1 not 2) and the summary parses.
"$cp" fuzz --sut known-bug:tvm-7912 --sut known-bug:pytorch-19912 --time 60 --seed 9 --out "$tmp/killed" --quiet >/dev/null 2>&1 &
victim=$!
# Killed once it has reported something (not after a fixed time: a loaded or sanitized machine may
# take longer than that to find the first bug), while it goes on checking and writing.
for _ in $(seq 600); do
  [ -f "$tmp/killed/summary.json" ] && ls "$tmp/killed/corpus/"*.json >/dev/null 2>&1 && break
  sleep 0.1
done
sleep 0.5
kill -9 $victim
wait $victim 2>/dev/null
expect 1 killed-corpus-replays -- "$cp" check "$tmp/killed/corpus"
if /usr/bin/python3 -c 'import json,sys; json.load(open(sys.argv[1]))' "$tmp/killed/summary.json" 2>/dev/null; then
  passed=$((passed + 1)); else failed=$((failed + 1)); echo "FAIL killed-summary-parses"; fi

# Transforms: a buggy pass found by a campaign; its report carries the graphs before and after the
# pipeline, its case replays; the correct pass agrees; an unknown pass is a one-line error.
expect 1 fuzz-transform -- "$cp" fuzz --sut known-bug:tvm-9954 --direction bwd_weight --cases 60 --seed 5 --out "$tmp/trun" --quiet
treport=$(ls "$tmp"/trun/reports/*.json 2>/dev/null | head -1)
contains "${treport:-/dev/null}" '"graph_after"' transform-report-has-graphs
contains "${treport:-/dev/null}" 'legalize@tvm-9954' transform-report-names-the-pass
expect 1 transform-repro -- "$cp" repro "$(ls "$tmp"/trun/corpus/*.json | head -1)"
expect 0 transform-correct -- "$cp" repro 'bwd_weight:2d_g2_ic4_oc4_i5x5_k3x3' --sut transform:gradient,legalize
expect 1 transform-promise -- "$cp" repro 'fwd:2d_ic2_oc2_i5x5_k3x3' --sut known-bug:tvm-layout-fold
contains "$tmp/out" 'broken_promise' transform-promise-verdict
expect 1 chain-known-bug -- "$cp" repro 'bwd_weight:2d_g2_ic4_oc4_i5x5_k3x3' --sut known-bug:tvm-9954 --graph chain
contains "$tmp/out" '(as a chain)' chain-repro-says-so
expect 0 chain-correct -- "$cp" repro 'bwd_data:t2d_g2_ic4_oc6_i4x5_k3x3_s2x2_op1x0_nhwc' --sut transform:convert_layout,fold_constants --graph chain --fill uniform
expect 0 chain-kernel-skipped -- "$cp" repro 'fwd:2d_ic2_oc2_i5x5_k3x3' --sut direct --graph chain
contains "$tmp/out" 'skipped: direct runs single convolutions' chain-kernel-skip-reason
expect 2 chain-bad-form -- "$cp" repro 'fwd:2d_ic2_oc2_i5x5_k3x3' --graph tree
one_line_error chain-bad-form
expect 2 transform-unknown-pass -- "$cp" repro 'fwd:2d_ic1_oc1_i3_k1' --sut transform:no_such_pass
one_line_error transform-unknown-pass

# Every file a run wrote validates against its schema (with Debian's python3-jsonschema; without it,
# ctest shows python_jsonschema skipped, and under CI=true this fails).
py=/usr/bin/python3
have_jsonschema=0
$py -c 'import jsonschema' 2>/dev/null && have_jsonschema=1
if [ $have_jsonschema = 0 ] && [ "${CI:-}" = true ]; then
  failed=$((failed + 1))
  echo "FAIL schema checks: /usr/bin/python3 has no jsonschema, and CI=true (scripts/setup.sh installs it)"
fi
if [ $have_jsonschema = 1 ]; then
  expect 0 schema-report -- $py "$src/reports/schema/validate.py" "$src/reports/schema/report.schema.json" "$tmp"/run/reports/*.json
  expect 0 schema-transform-report -- $py "$src/reports/schema/validate.py" "$src/reports/schema/report.schema.json" "$tmp"/trun/reports/*.json
  expect 0 schema-transform-case -- $py "$src/reports/schema/validate.py" "$src/reports/schema/case.schema.json" "$tmp"/trun/corpus/*.json
  expect 0 schema-chain-cases -- $py "$src/reports/schema/validate.py" "$src/reports/schema/case.schema.json" "$src"/corpus/regression/chains/*.json
  expect 0 schema-case -- $py "$src/reports/schema/validate.py" "$src/reports/schema/case.schema.json" "$tmp"/run/corpus/*.json
  expect 0 schema-summary -- $py "$src/reports/schema/validate.py" "$src/reports/schema/summary.schema.json" "$tmp/run/summary.json" "$tmp/check-summary.json"
else
  echo "skipped schema checks: /usr/bin/python3 has no jsonschema (scripts/setup.sh installs it)"
fi

# Sharding and merging. Shard I/N takes case indices I, I+N, …, and --cases counts per process, so
# shards 0/2 and 1/2 with --cases 150 check exactly the cases of the unsharded --cases 300 run above
# ($tmp/run): equal verdict counts prove the shards disjoint and complete.
shard_args=(--sut known-bug:tvm-7912 --direction fwd --cases 150 --seed 5 --quiet)
expect 1 shard-0 -- "$cp" fuzz "${shard_args[@]}" --shard 0/2 --out "$tmp/s0"
expect 1 shard-1 -- "$cp" fuzz "${shard_args[@]}" --shard 1/2 --out "$tmp/s1"
expect 0 merge -- "$cp" merge "$tmp/s0" "$tmp/s1" --out "$tmp/merged"
contains "$tmp/out" '^merged 2 runs: 300 checks, [0-9]+ buckets? \([0-9]+ duplicates? collapsed\), [0-9]+ corpus cases?' merge-says-what
if [ -x $py ]; then
  expect 0 merge-counts -- $py - "$tmp" <<'PY'
import json, os, sys
tmp = sys.argv[1]
def summary(run): return json.load(open(os.path.join(tmp, run, "summary.json")))
def files(run, sub):
    folder = os.path.join(tmp, run, sub)
    return set(os.listdir(folder)) if os.path.isdir(folder) else set()
s0, s1, merged, whole = summary("s0"), summary("s1"), summary("merged"), summary("run")
problems = []
def check(ok, what):
    if not ok: problems.append(what)
check(merged["cases"]["total"] == s0["cases"]["total"] + s1["cases"]["total"] == 300, "cases add up")
check(merged["cases"]["by_sut"] == whole["cases"]["by_sut"], "verdicts equal the unsharded run's")
check(merged["cases"]["by_verdict"] == whole["cases"]["by_verdict"], "totals equal the unsharded run's")
n0, n1, n = len(s0["buckets"]), len(s1["buckets"]), len(merged["buckets"])
check(max(n0, n1) <= n <= n0 + n1, f"buckets: {n0} + {n1} -> {n}")
check(n > 0, "the known bug was found")
check(len({b["signature"] for b in merged["buckets"]}) == n, "one entry per signature")
check(files("merged", "reports") == {b["report"] for b in merged["buckets"]}, "one report per bucket")
check(files("merged", "corpus") == files("s0", "corpus") | files("s1", "corpus"), "corpus union")
check(merged["shards"] == ["0/2", "1/2"], f"shards {merged['shards']}")
check(merged["throughput"]["workers"] == s0["throughput"]["workers"] + s1["throughput"]["workers"],
      "workers add up")
for p in problems: print("merge-counts:", p)
sys.exit(1 if problems else 0)
PY
else
  echo "skipped merge count checks: no $py"
fi
if [ $have_jsonschema = 1 ]; then
  expect 0 schema-merged-summary -- $py "$src/reports/schema/validate.py" "$src/reports/schema/summary.schema.json" "$tmp/merged/summary.json"
fi
expect 2 merge-overlap -- "$cp" merge "$tmp/s0" "$tmp/run" --out "$tmp/merged2"
one_line_error merge-overlap
contains "$tmp/err" 'count them twice' merge-overlap-says-why
expect 2 merge-missing -- "$cp" merge "$tmp/s0" "$tmp/no-such-run" --out "$tmp/merged2"
one_line_error merge-missing
mkdir -p "$tmp/torn" && printf '{"schema": "convparity.summary/1", "cases": {' >"$tmp/torn/summary.json"
expect 2 merge-malformed -- "$cp" merge "$tmp/s0" "$tmp/torn" --out "$tmp/merged2"
one_line_error merge-malformed
sed 's/"total": 150/"total": -1/' "$tmp/s1/summary.json" >"$tmp/torn/summary.json"
expect 2 merge-bad-field -- "$cp" merge "$tmp/s0" "$tmp/torn" --out "$tmp/merged2"
one_line_error merge-bad-field
contains "$tmp/err" "field 'cases.total'" merge-names-the-field
[ ! -e "$tmp/merged2" ] && passed=$((passed + 1)) || { failed=$((failed + 1)); echo "FAIL merge wrote on bad input"; }

# Shrinking a failing case, and refusing a passing one.
big=$(ls "$tmp"/run/corpus/*.json | head -1)
cat >"$tmp/big.json" <<JSON
{"schema": "convparity.case/1", "descriptor": "fwd:t2d_g2_mb2_ic4_oc6_i6x5_k3x2_s2x3_pb1x0_pe0x1_op1x2_nhwc", "sut": "known-bug:tvm-7912", "fill": "exact", "seed": 9}
JSON
expect 0 shrink -- "$cp" shrink "$tmp/big.json" --out "$tmp/shrunk" --quiet
contains "$tmp/out" 'shrunk in [0-9]+ steps' shrink-says-steps
contains "$tmp/out" 't1d_ic1_oc1_i1_k1_(s2|d2)_op1' shrink-is-minimal
# shrink writes the finding as a campaign does: the case, and a report in its bucket whose repro
# command makes the case's SUT again (a mapped name with its --sut-map).
sed 's/"known-bug:tvm-7912"/"mine"/' "$tmp/big.json" >"$tmp/mapped.json"
expect 0 shrink-mapped -- "$cp" shrink "$tmp/mapped.json" --sut-map mine=known-bug:tvm-7912 \
  --out "$tmp/shrunk-mapped" --quiet
cat "$tmp"/shrunk-mapped/reports/*.json >"$tmp/shrink-report" 2>/dev/null
contains "$tmp/shrink-report" '"bucket": "mine/fwd/unwritten/t1d\.' shrink-report-bucket
contains "$tmp/shrink-report" '"command": "convparity repro .* --sut-map mine=known-bug:tvm-7912"' \
  shrink-report-repro-flags
expect 1 shrink-passing -- "$cp" shrink "$tmp/gate/ok.json" --out "$tmp/shrunk"

# benchdnn lists become cases that pass on our kernels.
expect 0 import -- "$cp" import-benchdnn "$src/../shared/benchdnn/deconv/shapes_1d" --max-batch 2 --max-spatial 6 --scale-macs 50000 --fill exact --out "$tmp/imp"
expect 0 import-replays -- "$cp" check "$tmp/imp/corpus"
# benchdnn batch files of our own (tests/data/benchdnn/README.md): includes, option products and
# formats honoured, a summary that counts skips and ignored options, cases that say where they are
# from and replay as parity (winograd ones against the bound).
data="$src/tests/data/benchdnn"
expect 0 import-batch -- "$cp" import-benchdnn "$data/conv/test_nested" "$data/conv/test_options" --fill exact --out "$tmp/batch"
contains "$tmp/out" '^benchdnn import of 2 files: 14 problems read, 11 imported, 3 skipped$' import-batch-summary
contains "$tmp/out" '^  skipped +1  data type: bf16; first .*test_options:4: --dt=bf16$' import-batch-skip-line
contains "$tmp/out" '^  ignored +1  --attr-post-ops: post-ops act on the result' import-batch-ignored-line
contains "$tmp/out" '^12 problems, 24 cases written to ' import-batch-cases
grep -l '"via": \[' "$tmp"/batch/corpus/*.json >"$tmp/found" 2>/dev/null
contains "$tmp/found" 'json' import-batch-origin-via
grep -l '"algorithm": "winograd"' "$tmp"/batch/corpus/*.json >"$tmp/found" 2>/dev/null
contains "$tmp/found" 'json' import-batch-winograd-case
expect 0 import-batch-replays -- "$cp" check "$tmp/batch/corpus"
expect 0 import-batch-json -- "$cp" import-benchdnn "$data/conv/test_products" --dry-run --json
cp "$tmp/out" "$tmp/import.json"
contains "$tmp/import.json" '"read": 4' import-batch-json-read
expect 0 import-driver -- "$cp" import-benchdnn "$data/conv/shapes_small" --driver deconv --dry-run
contains "$tmp/out" '3 problems read, 3 imported' import-driver-deconv
expect 2 import-cycle -- "$cp" import-benchdnn "$data/conv/test_cycle_a" --out "$tmp/batch"
one_line_error import-cycle
contains "$tmp/err" 'test_cycle_b:2: --batch=test_cycle_a: including .* again makes a cycle' import-cycle-says
expect 2 import-missing -- "$cp" import-benchdnn "$data/conv/test_missing" --out "$tmp/batch"
one_line_error import-missing
contains "$tmp/err" 'test_missing:2: --batch=no_such_file: .*no such file' import-missing-says
if $py -c 'import jsonschema' 2>/dev/null; then
  expect 0 schema-imported-cases -- $py "$src/reports/schema/validate.py" "$src/reports/schema/case.schema.json" "$tmp"/batch/corpus/*.json
  expect 0 schema-import-summary -- $py "$src/reports/schema/validate.py" "$src/reports/schema/import.schema.json" "$tmp/import.json"
fi

# libFuzzer inputs and cases, both ways: a case exported as a fuzz_parity seed imports back as the
# same case (with the same SUT list, which the byte format depends on), and still shows the bug.
cat >"$tmp/fuzzbug.json" <<JSON
{"schema": "convparity.case/1", "descriptor": "fwd:t1d_ic1_oc1_i1_k1_s2_pb0_pe1_op1", "sut": "known-bug:tvm-5758", "fill": "exact", "seed": 3}
JSON
expect 0 export-fuzz-seeds -- "$cp" export-fuzz-seeds "$tmp/fuzzbug.json" --sut known-bug:tvm-5758 --out "$tmp/seeds"
expect 0 import-fuzz-input -- "$cp" import-fuzz-input "$tmp"/seeds/* --sut known-bug:tvm-5758 --corpus "$tmp/fromfuzz"
contains "$tmp/out" 'fwd:t1d_ic1_oc1_i1_k1_s2_pb0_pe1_op1 known-bug:tvm-5758 exact seed 3' fuzz-input-round-trip
expect 1 fuzz-input-repro -- "$cp" repro "$tmp"/fromfuzz/*.json --isolate none
# Chains both ways: the regression chains, given to a SUT that runs graphs, come back as chains
# (every seed written; the known bug's trigger still differs); given to a kernel, as its convolution.
expect 0 export-fuzz-seeds-chains -- "$cp" export-fuzz-seeds "$src/corpus/regression/chains" --sut known-bug:tvm-9954 --out "$tmp/chainseeds" --quiet
expect 0 import-fuzz-input-chains -- "$cp" import-fuzz-input "$tmp"/chainseeds/* --sut known-bug:tvm-9954 --corpus "$tmp/fromchains"
contains "$tmp/out" '^bwd_weight:2d_g2_ic4_oc4_i5x5_k3x3 \(as a chain\) known-bug:tvm-9954 exact seed 1: ' fuzz-input-chain-round-trip
if [ "$(ls "$tmp"/chainseeds | wc -l)" -gt 0 ] &&
   [ "$(grep -l '"graph": "chain"' "$tmp"/fromchains/*.json | wc -l)" -eq "$(ls "$tmp"/chainseeds | wc -l)" ]; then
  passed=$((passed + 1)); else failed=$((failed + 1)); echo "FAIL fuzz-input-chains-stay-chains"; fi
trigger=$(sed -n 's/^bwd_weight:2d_g2_ic4_oc4_i5x5_k3x3 (as a chain) known-bug:tvm-9954 exact seed 1: //p' "$tmp/out")
expect 1 fuzz-input-chain-repro -- "$cp" repro "${trigger:-$tmp/no-trigger}" --isolate none
contains "$tmp/out" '\(as a chain\)' fuzz-input-chain-repro-is-a-chain
expect 0 export-fuzz-seeds-chains-to-kernel -- "$cp" export-fuzz-seeds "$src/corpus/regression/chains/tvm-9954-trigger-exact.json" --sut direct --out "$tmp/chainconv"
expect 0 import-fuzz-input-chains-to-kernel -- "$cp" import-fuzz-input "$tmp"/chainconv/* --sut direct --corpus "$tmp/fromchainconv"
contains "$tmp/out" '^bwd_weight:2d_g2_ic4_oc4_i5x5_k3x3 direct exact seed 1: ' fuzz-input-chain-to-kernel-is-a-conv
expect 2 import-fuzz-input-missing -- "$cp" import-fuzz-input "$tmp/no-such-input"
one_line_error import-fuzz-input-missing
expect 2 import-fuzz-input-bad-sut -- "$cp" import-fuzz-input "$tmp"/seeds/* --sut no-such-sut
one_line_error import-fuzz-input-bad-sut

# Ctrl-C reaches the terminal's whole process group: the campaign stops after its cases in flight
# and its workers, in a group of their own, are not killed (their death would read as crashes).
setsid "$cp" fuzz --sut direct --time 60 --out "$tmp/interrupted" --quiet >"$tmp/out" 2>"$tmp/err" &
campaign=$!
for _ in $(seq 100); do [ -e "$tmp/interrupted/summary.json" ] && break; sleep 0.1; done
sleep 1
kill -INT -- -"$campaign"
wait "$campaign"
got=$?
if [ "$got" -eq 0 ] && [ -z "$(ls -A "$tmp/interrupted/reports" 2>/dev/null)" ]; then
  passed=$((passed + 1))
else
  failed=$((failed + 1)); echo "FAIL ctrl-c: exit $got"; ls "$tmp/interrupted/reports"; cat "$tmp/err"
fi

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
