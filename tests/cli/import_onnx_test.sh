#!/usr/bin/env bash
# `convparity import-onnx` as users see it, on ONNX's own test models (Debian's libonnx-testdata):
# every Conv and ConvTranspose node imported, only the integer convolutions skipped (counted by
# reason), what is written otherwise than the model says counted too, cases that carry their
# spelling and origin and replay as parity on our kernels, the summary's JSON as its schema says;
# bad input is exit 2 with one line. Skipped without the test data, except under CI=true.
# Usage: import_onnx_test.sh <convparity binary> <source dir>
set -u
cp=$1
src=$2
data=${CONVPARITY_ONNX_TESTDATA:-/usr/share/libonnx-testdata/data}
py=/usr/bin/python3
if ! [ -d "$data/node" ]; then
  [ "${CI:-}" = true ] && { echo "FAIL: no ONNX test data in $data, and CI=true"; exit 1; }
  echo "skipped: no ONNX test data in $data (scripts/setup.sh installs libonnx-testdata)"
  exit 0
fi
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
# lacks <file> <pattern> <name>
lacks() {
  if ! grep -qE -- "$2" "$1"; then passed=$((passed + 1)); else
    failed=$((failed + 1)); echo "FAIL $3: /$2/ in $1:"; grep -E -- "$2" "$1" | head -5; fi
}
one_line_error() {
  if [ "$(wc -l <"$tmp/err")" -eq 1 ] && grep -q '^convparity: ' "$tmp/err"; then
    passed=$((passed + 1)); else
    failed=$((failed + 1)); echo "FAIL $1: error is not one line"; cat "$tmp/err"; fi
}

models=("$data"/node/*conv*/model.onnx "$data"/pytorch-converted/test_Conv*/model.onnx
  "$data"/pytorch-operator/test_operator_conv*/model.onnx)
# The nodes the models hold, counted here from their bytes: an op type is a protobuf string.
floats=0 integers=0
for m in "${models[@]}"; do
  if grep -qaE 'ConvInteger|QLinearConv' "$m"; then integers=$((integers + 1)); else
    floats=$((floats + 1)); fi
done
start=$(date +%s%N)
expect 0 import -- "$cp" import-onnx "${models[@]}" --scale-macs 20000 --fill exact \
  --out "$tmp/imp"
echo "import of ${#models[@]} models: $((($(date +%s%N) - start) / 1000000)) ms"
n=${#models[@]}
summary="^ONNX import of $n files: $n conv nodes read, $floats imported, $integers skipped$"
contains "$tmp/out" "$summary" import-summary
contains "$tmp/out" '^  skipped +[0-9]+  data type: ConvInteger; first .*node 1: an integer' \
  import-skip-integer
lacks "$tmp/out" '^  skipped .*(shapes|rank|attribute|illegal|output shape|size):' \
  import-skips-only-integers
# SAME_UPPER on a ConvTranspose (ONNX's test): explicit pads, the odd one at the end, counted.
contains "$tmp/out" \
  '^  changed +1  spelling: pads=same_upper of a ConvTranspose written as explicit pads; first ' \
  import-changed-spelling
contains "$tmp/out" "^$floats problems, $((floats * 3)) cases written to " import-cases
cat "$tmp"/imp/corpus/*.json >"$tmp/cases"
contains "$tmp/cases" '"output_size": "output_shape"' cases-spelling-output-shape
contains "$tmp/cases" '"pads": "same_lower"' cases-spelling-same-lower
contains "$tmp/cases" '"format": "onnx"' cases-origin
contains "$tmp/cases" '"repro": "ConvTranspose \[1,1,3,3\] \[1,2,3,3\] output_shape=\[10,8\]' \
  cases-origin-repro
start=$(date +%s%N)
expect 0 import-replays -- "$cp" check "$tmp/imp/corpus" --quiet
echo "check of $((floats * 3)) cases: $((($(date +%s%N) - start) / 1000000)) ms"

expect 0 import-json -- "$cp" import-onnx "${models[@]}" --dry-run --json
cp "$tmp/out" "$tmp/import.json"
contains "$tmp/import.json" '"format": "onnx"' import-json-format
contains "$tmp/import.json" "\"imported\": $floats" import-json-imported
if $py -c 'import jsonschema' 2>/dev/null; then
  expect 0 schema-import-summary -- $py "$src/reports/schema/validate.py" \
    "$src/reports/schema/import.schema.json" "$tmp/import.json"
  expect 0 schema-imported-cases -- $py "$src/reports/schema/validate.py" \
    "$src/reports/schema/case.schema.json" "$tmp"/imp/corpus/*.json
fi

# Bad input: one line, exit 2.
echo "not a model" >"$tmp/text.onnx"
expect 2 import-not-onnx -- "$cp" import-onnx "$tmp/text.onnx" --out "$tmp/bad"
one_line_error import-not-onnx
contains "$tmp/err" 'text.onnx: not an ONNX model' import-not-onnx-says
: >"$tmp/empty.onnx"
expect 2 import-empty -- "$cp" import-onnx "$tmp/empty.onnx" --out "$tmp/bad"
one_line_error import-empty
expect 2 import-missing -- "$cp" import-onnx "$tmp/no-such.onnx" --out "$tmp/bad"
one_line_error import-missing
contains "$tmp/err" 'no-such.onnx: no such file$' import-missing-says
expect 2 import-folder -- "$cp" import-onnx "$tmp" --out "$tmp/bad"
one_line_error import-folder
contains "$tmp/err" ': not a file$' import-folder-says
chmod 000 "$tmp/text.onnx"
if [ "$(id -u)" -ne 0 ]; then  # root reads it anyway
  expect 2 import-unreadable -- "$cp" import-onnx "$tmp/text.onnx" --out "$tmp/bad"
  one_line_error import-unreadable
fi
expect 2 import-not-its-flag -- "$cp" import-onnx "${models[0]}" --driver conv
one_line_error import-not-its-flag
expect 2 import-no-model -- "$cp" import-onnx
one_line_error import-no-model
[ -e "$tmp/bad" ] && { failed=$((failed + 1)); echo "FAIL bad input wrote $tmp/bad"; }

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
