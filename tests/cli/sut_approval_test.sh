#!/usr/bin/env bash
# A case file is data, never code. A corpus whose cases name `plugin:` or `exec:` SUTs makes
# check, repro and shrink exit 2 with one line, loading no library and running no command (the
# plugin's constructor and the command each leave a marker file: none appears); with the command
# line's approval (--allow-sut, --sut-map, --config) the same corpus replays normally. Also: a
# campaign whose exec: child crashes every few cases runs to its end and reports the crash with a
# repro line that carries the approval.
# Usage: sut_approval_test.sh <convparity> <source dir> <marker plugin .so>
set -u
exe=$1
src=$2
plugin=$3
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export CONVPARITY_MARKER_FILE=$tmp/plugin-loaded
ref="/usr/bin/python3 $src/adapters/python_reference/reference_sut.py"
plugin_sut="plugin:$plugin"
exec_sut="exec:sh -c 'touch $tmp/exec-ran; exec $ref'"
passed=0
failed=0

ok() { passed=$((passed + 1)); }
bad() {
  failed=$((failed + 1))
  echo "FAILED: $*"
}

# A corpus folder of one case naming $2 (a benchdnn regression case's problem, written here: the
# corpus's file names are hashes of whole cases and change with them).
corpus() {
  mkdir -p "$tmp/$1"
  printf '{"schema": "convparity.case/1", "descriptor": "%s", "fill": "exact", "seed": 1, "sut": "%s"}\n' \
    'bwd_weight:3d_ic1_oc1_i4x4x4_k3x5x7_s2x2x2_pb2x2x2_pe1x1x1_b' "$2" >"$tmp/$1/case.json"
}

# expect_refused NAME ARGS...: exit 2, one line on stderr that says why, no marker.
expect_refused() {
  local name=$1
  shift
  "$exe" "$@" >"$tmp/out" 2>"$tmp/err"
  local code=$?
  if [ "$code" -ne 2 ]; then
    bad "$name: exit $code, expected 2"
  elif [ "$(wc -l <"$tmp/err")" -ne 1 ] || ! grep -q "a case file is data" "$tmp/err"; then
    bad "$name: stderr is not the one line that says why: $(head -c 300 "$tmp/err")"
  elif [ -e "$tmp/plugin-loaded" ] || [ -e "$tmp/exec-ran" ]; then
    bad "$name: something was loaded or run: $(ls "$tmp")"
  else
    ok
  fi
}

# expect_runs NAME MARKER ARGS...: exit 0, and MARKER shows the SUT was loaded / run.
expect_runs() {
  local name=$1 marker=$2
  shift 2
  rm -f "$tmp/plugin-loaded" "$tmp/exec-ran"
  "$exe" "$@" >"$tmp/out" 2>"$tmp/err"
  local code=$?
  if [ "$code" -ne 0 ]; then
    bad "$name: exit $code, expected 0: $(head -c 300 "$tmp/err") $(tail -n 3 "$tmp/out")"
  elif [ ! -e "$tmp/$marker" ]; then
    bad "$name: $marker is missing: the SUT did not run"
  else
    ok
  fi
}

corpus plugin "$plugin_sut"
corpus exec "$exec_sut"
corpus logical mylib

for kind in plugin exec; do
  expect_refused "check $kind" check "$tmp/$kind" --quiet
  expect_refused "repro $kind" repro "$tmp/$kind/case.json"
  expect_refused "shrink $kind" shrink "$tmp/$kind/case.json" --out "$tmp/shrunk"
  expect_refused "check $kind, other SUTs approved" check "$tmp/$kind" --quiet \
    --allow-sut "plugin:/elsewhere/libother.so" --sut-map "mylib=exec:true"
done

expect_runs "check plugin --allow-sut" plugin-loaded check "$tmp/plugin" --quiet \
  --allow-sut "$plugin_sut"
expect_runs "repro plugin --allow-sut" plugin-loaded repro "$tmp/plugin/case.json" \
  --allow-sut "$plugin_sut"
expect_runs "check exec --allow-sut" exec-ran check "$tmp/exec" --quiet --allow-sut "$exec_sut"
expect_runs "check logical --sut-map plugin" plugin-loaded check "$tmp/logical" --quiet \
  --sut-map "mylib=$plugin_sut"
expect_runs "check logical --sut-map exec" exec-ran check "$tmp/logical" --quiet \
  --sut-map "mylib=$exec_sut"
/usr/bin/python3 -c 'import json, sys; json.dump({"schema": "convparity.config/1",
  "suts": {"mylib": sys.argv[1]}}, open(sys.argv[2], "w"))' "$plugin_sut" "$tmp/convparity.json"
expect_runs "check logical --config" plugin-loaded check "$tmp/logical" --quiet \
  --config "$tmp/convparity.json"

# A logical name nobody mapped is bad input too, and runs nothing.
rm -f "$tmp/plugin-loaded" "$tmp/exec-ran"
"$exe" check "$tmp/logical" --quiet >"$tmp/out" 2>"$tmp/err"
code=$?
if [ "$code" -ne 2 ] || ! grep -q "unknown system under test 'mylib'" "$tmp/err"; then
  bad "unmapped logical name: exit $code: $(head -c 300 "$tmp/err")"
else
  ok
fi
for bad_map in "no-equals-sign" "=plugin:/x.so" "my lib=direct" "a=b" ; do
  "$exe" check "$tmp/logical" --sut-map "$bad_map" --sut-map "b=direct" >"$tmp/out" 2>"$tmp/err"
  code=$?
  if [ "$code" -ne 2 ] || [ "$(wc -l <"$tmp/err")" -ne 1 ]; then
    bad "--sut-map '$bad_map': exit $code: $(head -c 300 "$tmp/err")"
  else
    ok
  fi
done

# A campaign whose child crashes on some problems goes on to its end, and the report's repro line
# carries the approval.
crashing="exec:/usr/bin/python3 $src/tests/harness/exec/misbehaving_sut.py crash-odd"
"$exe" fuzz --sut "$crashing" --cases 24 --direction fwd --fill exact --quiet \
  --out "$tmp/campaign" >"$tmp/out" 2>"$tmp/err"
code=$?
summary=$tmp/campaign/summary.json
if [ "$code" -ne 1 ] || [ ! -f "$summary" ]; then
  bad "crashing campaign: exit $code, expected 1: $(head -c 300 "$tmp/err")"
elif ! /usr/bin/python3 - "$summary" <<'EOF'; then
import json, sys
v = json.load(open(sys.argv[1]))["cases"]["by_verdict"]
ok = v["crashed"] >= 3 and v["passed"] + v["mistrusted"] >= 3 and sum(v.values()) == 24
print("verdicts:", {k: n for k, n in v.items() if n}) if not ok else None
sys.exit(0 if ok else 1)
EOF
  bad "crashing campaign: it did not go on after the crashes"
elif ! grep -q -- "--allow-sut" "$tmp/campaign"/reports/*.json; then
  bad "crashing campaign: the report's repro line has no --allow-sut"
else
  ok
fi

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
