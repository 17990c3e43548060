#!/usr/bin/env bash
# A merge that can be trusted across machines, and last night against tonight (issue 26):
#  - shards whose SUT versions (or convparity's) differ are refused with one line and exit 2, and
#    merged with --mix-versions, the merged summary saying what differed;
#  - a shard stopped by a signal names itself incomplete, and the merge names it, and the shards no
#    run covered as missing;
#  - `convparity compare` tells new, still failing, fixed and not drawn apart on two campaigns where
#    each occurs (known bugs and their fixed twin `direct` behind logical names), its JSON validates
#    against reports/schema/comparison.schema.json, and its exit status says whether anything is
#    new.
# Usage: merge_compare_test.sh <convparity binary> <source dir>
set -u
cp=$1
src=$2
py=/usr/bin/python3
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
passed=0 failed=0

expect() {  # code name -- command…: runs it, output in $tmp/out and $tmp/err
  local want=$1 name=$2
  shift 3
  "$@" >"$tmp/out" 2>"$tmp/err"
  local got=$?
  if [ "$got" = "$want" ]; then
    passed=$((passed + 1))
  else
    failed=$((failed + 1))
    echo "FAIL $name: exit $got, expected $want; stderr: $(head -c 400 "$tmp/err")"
  fi
}
contains() {  # file pattern name
  if grep -Eq -- "$2" "$1"; then passed=$((passed + 1)); else
    failed=$((failed + 1))
    echo "FAIL $3: no /$2/ in $(head -c 600 "$1")"
  fi
}
one_line_error() {
  if [ "$(wc -l <"$tmp/err")" = 1 ]; then passed=$((passed + 1)); else
    failed=$((failed + 1))
    echo "FAIL $1: stderr is not one line: $(cat "$tmp/err")"
  fi
}
record() {  # exit-code name
  if [ "$1" = 0 ]; then passed=$((passed + 1)); else
    failed=$((failed + 1))
    echo "FAIL $2"
  fi
}
json_is() {  # file python-expression name: the expression, over the file's JSON as j, is true
  local program='import json,sys; j=json.load(open(sys.argv[1])); sys.exit(not eval(sys.argv[2]))'
  if $py -c "$program" "$1" "$2"; then passed=$((passed + 1)); else
    failed=$((failed + 1))
    echo "FAIL $3: not $2"
  fi
}

# ---- Versions: SUT `lib` is a known bug on one machine and its fix on the other ----------------
common=(--sut lib --direction fwd --cases 100 --seed 5 --jobs 1 --quiet)
expect 1 shard-with-bug -- "$cp" fuzz "${common[@]}" --sut-map lib=known-bug:tvm-7912 \
  --shard 0/2 --out "$tmp/v0"
expect 0 shard-with-fix -- "$cp" fuzz "${common[@]}" --sut-map lib=direct --shard 1/2 \
  --out "$tmp/v1"
json_is "$tmp/v0/summary.json" \
  'j["sut_versions"]["lib"].startswith("known-bug:tvm-7912, convparity ")' version-stamped
json_is "$tmp/v0/summary.json" \
  'j["incomplete_shards"] == [] and j["missing_shards"] == ["1/2"]' shard-complete
expect 2 merge-refuses-mixed -- "$cp" merge "$tmp/v0" "$tmp/v1" --out "$tmp/vm"
one_line_error merge-refuses-mixed
contains "$tmp/err" "SUT lib 'direct, convparity .*--mix-versions" merge-says-what-differs
if [ -e "$tmp/vm" ]; then
  failed=$((failed + 1))
  echo "FAIL merge wrote on refusal"
else
  passed=$((passed + 1))
fi
expect 0 merge-mixes-when-told -- "$cp" merge "$tmp/v0" "$tmp/v1" --out "$tmp/vm" --mix-versions
json_is "$tmp/vm/summary.json" \
  'len(j["mixed_versions"]) == 1 and "SUT lib" in j["mixed_versions"][0]' merged-says-mixed
# Another machine's convparity: the same SUTs, another version in the tool block.
"$cp" fuzz "${common[@]}" --sut-map lib=known-bug:tvm-7912 --shard 1/2 --out "$tmp/v2" >/dev/null
sed 's/"version": "[^"]*"/"version": "0.0.0-elsewhere"/' "$tmp/v2/summary.json" >"$tmp/v2/s"
mv "$tmp/v2/s" "$tmp/v2/summary.json"
expect 2 merge-refuses-other-convparity -- "$cp" merge "$tmp/v0" "$tmp/v2" --out "$tmp/vm2"
one_line_error merge-refuses-other-convparity
contains "$tmp/err" "convparity '0.0.0-elsewhere'" merge-names-the-version

# ---- A shard stopped mid-run, and one never run -------------------------------------------------
"$cp" fuzz --sut known-bug:tvm-7912 --direction fwd --time 60 --seed 5 --jobs 1 --shard 1/3 \
  --out "$tmp/s1" --quiet >/dev/null 2>&1 &
victim=$!
for _ in $(seq 300); do
  [ -f "$tmp/s1/summary.json" ] && break
  sleep 0.1
done
sleep 2
kill -TERM "$victim"
wait "$victim"
json_is "$tmp/s1/summary.json" \
  'j["incomplete_shards"] == ["1/3"] and j["cases"]["total"] > 0' stopped-shard-incomplete
expect 1 shard-0-of-3 -- "$cp" fuzz --sut known-bug:tvm-7912 --direction fwd --cases 60 --seed 5 \
  --jobs 1 --shard 0/3 --out "$tmp/s0" --quiet
expect 0 merge-incomplete -- "$cp" merge "$tmp/s0" "$tmp/s1" --out "$tmp/sm"
contains "$tmp/err" 'shard of 3 missing: 2/3' merge-names-missing
contains "$tmp/err" 'shard incomplete .*: 1/3' merge-names-incomplete
json_is "$tmp/sm/summary.json" \
  'j["missing_shards"] == ["2/3"] and j["incomplete_shards"] == ["1/3"]' merged-summary-names-them
"$py" - "$tmp" <<'PY'
import json, sys
t = sys.argv[1]
s0, s1, m = (json.load(open(f"{t}/{d}/summary.json")) for d in ("s0", "s1", "sm"))
assert m["cases"]["total"] == s0["cases"]["total"] + s1["cases"]["total"]
cases = {}
for s in (s0, s1):
    for b in s["buckets"]:
        cases[b["signature"]] = cases.get(b["signature"], 0) + b["cases"]
for b in m["buckets"]:
    assert b["cases"] == cases[b["signature"]], b["signature"]
    assert b["hits"] == b["cases"] - 1
    first = [x for s in (s0, s1) for x in s["buckets"] if x["signature"] == b["signature"]]
    assert b["first_seen"]["seconds"] == min(x["first_seen"]["seconds"] for x in first)
    assert b["last_seen"]["seconds"] == max(x["last_seen"]["seconds"] for x in first)
PY
record $? merged-counts

# ---- Last night against tonight ----------------------------------------------------------------
# a: a known bug last night, fixed tonight (its twin, our direct kernel): fixed.
# b: a known bug last night, not run tonight: its case still fails: not drawn.
# c: the same known bug both nights: still failing.  d: only tonight: new.
night=(--direction fwd --cases 300 --seed 5 --jobs 1 --quiet)
expect 1 last-night -- "$cp" fuzz "${night[@]}" --sut a --sut b --sut c \
  --sut-map a=known-bug:tvm-7912 --sut-map b=known-bug:pytorch-19912 \
  --sut-map c=known-bug:tvm-7912 --out "$tmp/last"
expect 1 tonight -- "$cp" fuzz "${night[@]}" --sut a --sut c --sut d --sut-map a=direct \
  --sut-map c=known-bug:tvm-7912 --sut-map d=known-bug:pytorch-19912 --out "$tmp/tonight"
maps=(--sut-map a=direct --sut-map b=known-bug:pytorch-19912 --sut-map c=known-bug:tvm-7912
  --sut-map d=known-bug:pytorch-19912)
expect 1 compare-new -- "$cp" compare "$tmp/last" "$tmp/tonight" "${maps[@]}" \
  --out "$tmp/comparison.json"
cp "$tmp/out" "$tmp/compare-out"
cat "$tmp/compare-out"
some='[1-9][0-9]*'
contains "$tmp/compare-out" \
  "^$some new, $some still failing, $some fixed, $some not drawn, 0 not replayed\$" compare-counts
contains "$tmp/compare-out" '^fixed +a/fwd/' compare-fixed-is-a
contains "$tmp/compare-out" '^not_drawn +b/fwd/.*replayed: failed' compare-not-drawn-is-b
contains "$tmp/compare-out" '^new +d/fwd/' compare-new-is-d
json_is "$tmp/comparison.json" \
  'all(b["change"] == "still_failing" for b in j["buckets"] if b["sut"] == "c")' still-failing-is-c
json_is "$tmp/comparison.json" \
  'j["counts"]["new"] == sum(b["sut"] == "d" for b in j["buckets"])' comparison-json-counts
expect 0 compare-nothing-new -- "$cp" compare "$tmp/tonight" "$tmp/tonight" "${maps[@]}"
contains "$tmp/out" "^0 new, $some still failing, 0 fixed, 0 not drawn, 0 not replayed\$" \
  compare-same-run
expect 2 compare-no-folder -- "$cp" compare "$tmp/last" "$tmp/nothing-here"
one_line_error compare-no-folder
# A case file is data: a gone bucket whose SUT tonight's flags do not resolve to something allowed
# is not replayed silently as something else: without the maps, `b` is an unknown SUT.
expect 1 compare-without-maps -- "$cp" compare "$tmp/last" "$tmp/tonight"
contains "$tmp/out" 'not replayed$|[1-9][0-9]* not replayed' compare-unresolved-not-replayed
if $py -c 'import jsonschema' 2>/dev/null; then
  schemas=$src/reports/schema
  expect 0 comparison-validates -- $py "$schemas/validate.py" "$schemas/comparison.schema.json" \
    "$tmp/comparison.json"
  expect 0 summaries-validate -- $py "$schemas/validate.py" "$schemas/summary.schema.json" \
    "$tmp/vm/summary.json" "$tmp/sm/summary.json" "$tmp/s1/summary.json" "$tmp/last/summary.json"
elif [ "${CI:-}" = true ]; then
  failed=$((failed + 1))
  echo "FAIL /usr/bin/python3 has no jsonschema, and CI=true (scripts/setup.sh installs it)"
fi
echo "$passed passed, $failed failed"
((failed == 0))
