#!/usr/bin/env bash
# The regression gate is exact (docs/INTERFACES.md): `convparity check` passes a case only when its
# verdict is the one the case expects. Each case below runs alone through `check`; the SUTs are a
# known bug (failed), another known bug (unwritten), our kernel (passed), a transform bug
# (broken_promise) and a plugin that declines forward (skipped) and returns an error for
# backward-data (crashed). One `check` run replays them all (a process loads libtorch). A corpus
# with invalid files beside them is replayed all the same, each bad file reported.
# Usage: gate_test.sh <convparity binary> <declining plugin (odd_plugin_declining)>
set -u
cp=$1
declining=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
passed=0 failed=0

# gate <passes: 0 or 1> <descriptor> <sut> <expect>: a case for the one `check` run below, which
# must pass it (0) or name it UNEXPECTED (1).
n=0
gate() {
  n=$((n + 1))
  printf '{"schema": "convparity.case/1", "descriptor": "%s", "sut": "%s", "expect": "%s"}\n' \
    "$2" "$3" "$4" >"$tmp/cases/$n.json"
  want[$n]=$1
  what[$n]="$3 on $2 expecting $4"
}
mkdir -p "$tmp/cases"
declare -a want what

bug='fwd:2d_g2_ic4_oc16_i4x4_k1x1'  # pytorch-19912's trigger: failed
gate 0 "$bug" known-bug:pytorch-19912 failed
for other in passed unwritten crashed hung skipped mistrusted shape_mismatch broken_promise; do
  gate 1 "$bug" known-bug:pytorch-19912 "$other"
done
gate 0 "$bug" direct passed
gate 1 "$bug" direct failed
gate 1 "$bug" direct mistrusted
# The old names: parity is passed, discrepancy is failed, and nothing else.
gate 0 "$bug" known-bug:pytorch-19912 discrepancy
gate 0 "$bug" direct parity
unwritten='fwd:t2d_ic2_oc2_i4x4_k3x3_s2x2_p1x1_op1x1'  # tvm-7912's trigger: unwritten
gate 0 "$unwritten" known-bug:tvm-7912 unwritten
gate 1 "$unwritten" known-bug:tvm-7912 discrepancy
gate 1 "$unwritten" known-bug:tvm-7912 failed
gate 0 'fwd:2d_ic2_oc2_i5x5_k3x3' known-bug:tvm-layout-fold broken_promise
gate 1 'fwd:2d_ic2_oc2_i5x5_k3x3' known-bug:tvm-layout-fold failed
# A SUT that declines is skipped, one that returns an error crashed: neither passes as anything
# else, and a skip passes only where it is expected.
gate 0 'fwd:2d_ic2_oc2_i5x5_k3x3' "plugin:$declining" skipped
gate 1 'fwd:2d_ic2_oc2_i5x5_k3x3' "plugin:$declining" passed
gate 1 'fwd:2d_ic2_oc2_i5x5_k3x3' "plugin:$declining" parity
gate 0 'bwd_data:2d_ic2_oc2_i5x5_k3x3' "plugin:$declining" crashed
gate 1 'bwd_data:2d_ic2_oc2_i5x5_k3x3' "plugin:$declining" failed
gate 1 'bwd_data:2d_ic2_oc2_i5x5_k3x3' "plugin:$declining" discrepancy

# The plugin is named in case files: the command line approves it (a case file is data).
allow=(--allow-sut "plugin:$declining")
"$cp" check "$tmp/cases" --jobs 2 "${allow[@]}" >"$tmp/out" 2>&1
got=$?
unexpected=0
for i in $(seq "$n"); do
  if grep -q "^UNEXPECTED $tmp/cases/$i.json: " "$tmp/out"; then
    unexpected=$((unexpected + 1))
    [ "${want[$i]}" -eq 1 ] && passed=$((passed + 1)) || {
      failed=$((failed + 1))
      echo "FAIL ${what[$i]}: not as expected, but it is"
      grep "^UNEXPECTED $tmp/cases/$i.json: " "$tmp/out"
    }
  else
    [ "${want[$i]}" -eq 0 ] && passed=$((passed + 1)) || {
      failed=$((failed + 1))
      echo "FAIL ${what[$i]}: passed the gate"
    }
  fi
done
# The closing line and the exit code agree with the cases.
grep -q "^$((n - unexpected)) passed, $unexpected failed$" "$tmp/out" && [ "$got" -eq 1 ] &&
  passed=$((passed + 1)) || { failed=$((failed + 1)); echo "FAIL exit $got, closing line:"; tail -1 "$tmp/out"; }
# What the gate says about a case not as expected: where, what was expected and what came.
grep -q "^UNEXPECTED $tmp/cases/$n.json: bwd_data:2d_ic2_oc2_i5x5_k3x3 plugin:.* exact seed=0: expected failed, got crashed: " "$tmp/out" &&
  passed=$((passed + 1)) || { failed=$((failed + 1)); echo "FAIL the UNEXPECTED line of case $n"; }
# Alone, the cases that pass make the gate pass.
mkdir -p "$tmp/passing"
for i in $(seq "$n"); do [ "${want[$i]}" -eq 0 ] && cp "$tmp/cases/$i.json" "$tmp/passing/"; done
"$cp" check "$tmp/passing" --quiet "${allow[@]}" >"$tmp/out" 2>&1 && passed=$((passed + 1)) ||
  { failed=$((failed + 1)); echo "FAIL the passing cases alone:"; tail -3 "$tmp/out"; }

# The gate reports every file: beside those passing cases, a malformed file and a case over the
# limits are each an error of the JUnit file and the summary and a line on stderr; every other case
# is still replayed, and the exit status is 2 (bad input), not 0.
printf '{"schema": "convparity.case/1", "descriptor": "fwd:2d_ic' >"$tmp/passing/malformed.json"
printf '{"schema": "convparity.case/1", "sut": "direct", "descriptor": "%s"}' \
  'fwd:2d_ic2_oc2_i999x999_k3x3' >"$tmp/passing/oversized.json"
"$cp" check "$tmp/passing" --quiet "${allow[@]}" --max-elements 100000 --junit "$tmp/junit.xml" \
  --summary "$tmp/summary.json" >"$tmp/out" 2>"$tmp/err"
got=$?
replayed=$(find "$tmp/passing" -name '[0-9]*.json' | wc -l)
if /usr/bin/python3 - "$tmp" "$got" "$replayed" <<'PY'; then
import json, re, sys, xml.etree.ElementTree as ET
tmp, got, replayed = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
bad = [f"{tmp}/passing/{name}.json" for name in ("malformed", "oversized")]
problems = []
def check(ok, what):
    if not ok:
        problems.append(what)
check(got == 2, f"exit {got}, expected 2")
suite = ET.parse(f"{tmp}/junit.xml").getroot().find("testsuite")
cases = suite.findall("testcase")
check(len(cases) == replayed + 2, f"{len(cases)} JUnit test cases, expected {replayed} + 2")
check((suite.get("errors"), suite.get("failures")) == ("2", "0"),
      f"errors={suite.get('errors')} failures={suite.get('failures')}")
errors = {c.get("name"): c.find("error").get("message")
          for c in cases if c.find("error") is not None}
for file, reason in zip(bad, ["malformed case JSON", "over the limit of 100000"]):
    check(reason in errors.get(file, ""), f"no JUnit error /{reason}/ for {file}: {errors}")
summary = json.load(open(f"{tmp}/summary.json"))
check([f["file"] for f in summary["invalid_files"]] == bad, f"{summary['invalid_files']}")
check(summary["cases"]["total"] == replayed, f"{summary['cases']['total']} cases replayed")
err = open(f"{tmp}/err").read().splitlines()
check(len(err) == 2 and all(line.startswith(f"convparity: {tmp}/passing/") for line in err),
      f"stderr: {err}")
out = open(f"{tmp}/out").read()
check(re.search(rf"^check: {replayed} cases in .* s; 2 invalid case files$", out, re.M), out)
check(re.search(rf"^{replayed} passed, 2 failed$", out, re.M), f"closing line: {out}")
for p in problems:
    print("FAIL the gate with invalid files:", p)
sys.exit(1 if problems else 0)
PY
  passed=$((passed + 1))
else
  failed=$((failed + 1))
fi

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
