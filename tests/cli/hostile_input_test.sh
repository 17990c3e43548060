#!/usr/bin/env bash
# Hostile input (INTERFACES.md: "Nothing a user can type or put in a file makes the harness crash,
# hang or allocate without bound"): malformed and oversized case files, hostile numbers, invalid
# descriptors, things that are not plugins, bad command-line values, limits. Every one must end
# with exit 2 and a one-line message saying what was wrong. Each command runs under `timeout` and a
# memory cap, so a hang or an unbounded allocation fails the test instead of the machine.
# Usage: hostile_input_test.sh <convparity> <source dir> <plugin: ABI 999> <plugin: no entry>
#        <example plugin>
# CONVPARITY_SANITIZED=1 (the asan preset): AddressSanitizer reserves terabytes of address space for
# its shadow memory, so `ulimit -v` cannot apply there; its own RSS cap takes its place.
set -u
cp=$1
src=$2
abi999=$3
no_entry=$4
example=$5
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
passed=0 failed=0

# 4 GiB of address space: libtorch needs about 1 GiB to start; a case sized in terabytes or a
# reader without a bound fails fast under it.
memory_kib=$((4 << 20))
if [ "${CONVPARITY_SANITIZED:-0}" = 1 ]; then
  export ASAN_OPTIONS="${ASAN_OPTIONS:-}:hard_rss_limit_mb=4096:max_allocation_size_mb=4096"
fi

# guarded command…: the command under a 20 s timeout and the memory cap.
guarded() {
  (
    [ "${CONVPARITY_SANITIZED:-0}" = 1 ] || ulimit -v "$memory_kib"
    exec timeout -k 5 20 "$@"
  )
}

fail() {
  failed=$((failed + 1))
  echo "FAIL $*"
}

# bad <name> <stderr pattern or ''> -- command…: exit 2, one line "convparity: …" on stderr, the
# pattern in it, nothing on stdout that looks like a verdict.
bad() {
  local name=$1 pattern=$2
  shift 3
  guarded "$@" >"$tmp/out" 2>"$tmp/err"
  local got=$?
  if [ "$got" -ne 2 ]; then
    fail "$name: exit $got, expected 2"
    head -c 600 "$tmp/err"
    return
  fi
  if [ "$(wc -l <"$tmp/err")" -ne 1 ] || ! grep -q '^convparity: ' "$tmp/err"; then
    fail "$name: the error is not one line starting with 'convparity: '"
    head -c 600 "$tmp/err"
    return
  fi
  if [ -n "$pattern" ] && ! grep -qE -- "$pattern" "$tmp/err"; then
    fail "$name: no /$pattern/ in: $(cat "$tmp/err")"
    return
  fi
  passed=$((passed + 1))
}

# good <name> <exit> -- command…: a control, so that a test above fails for the right reason.
good() {
  local name=$1 want=$2
  shift 3
  guarded "$@" >"$tmp/out" 2>"$tmp/err"
  local got=$?
  if [ "$got" -eq "$want" ]; then passed=$((passed + 1)); else
    fail "$name: exit $got, expected $want"
    head -c 600 "$tmp/err"
  fi
}

# bad_case <name> <stderr pattern> <file content>: `check` and `repro` of a case file holding it.
# Both read files through one loader; sanitized builds, whose processes start slowly (1.5 s),
# run `check` only.
n=0
bad_case() {
  local name=$1 pattern=$2 content=$3
  shift 3  # the rest: extra arguments of check and repro
  n=$((n + 1))
  local file="$tmp/cases/$n-$name.json"
  mkdir -p "$tmp/cases"
  printf '%s' "$content" >"$file"
  bad "check-$name" "$pattern" -- "$cp" check "$file" "$@"
  [ "${CONVPARITY_SANITIZED:-0}" = 1 ] || bad "repro-$name" "$pattern" -- "$cp" repro "$file" "$@"
}

# A valid case, and its problem as JSON fields, as templates.
valid='{"schema": "convparity.case/1", "descriptor": "fwd:2d_ic2_oc2_i5x5_k3x3", "sut": "direct", "fill": "exact", "seed": 7}'
# problem <field> <value>: a case whose expanded problem has one hostile field.
problem() {
  local batch=1 input='[5, 5]'
  case $1 in
    batch) batch=$2 ;;
    input) input=$2 ;;
  esac
  printf '{"schema": "convparity.case/1", "sut": "direct", "seed": 1, "problem": {"rank": 2, "batch": %s, "in_channels": 2, "out_channels": 2, "groups": 1, "input": %s, "kernel": [3, 3], "stride": [1, 1], "pad_begin": [0, 0], "pad_end": [0, 0], "dilation": [1, 1], "output_padding": [0, 0], "transposed": false, "data_layout": "nchw", "weight_layout": "oihw", "bias": false, "dtype": "f32"}}' "$batch" "$input"
}

printf '%s' "$valid" >"$tmp/valid.json"
good control-valid-case 0 -- "$cp" check "$tmp/valid.json"
problem batch 1 >"$tmp/valid-problem.json"
good control-valid-problem 0 -- "$cp" check "$tmp/valid-problem.json"

# Malformed files.
bad_case empty 'empty|parse|JSON|malformed' ''
bad_case not-json '' 'hello, world'
bad_case binary '' "$(printf '\001\002\377\376{"schema')"
bad_case array 'JSON object' '[1, 2, 3]'
bad_case null 'JSON object' 'null'
bad_case number 'JSON object' '42'
bad_case string 'JSON object' '"fwd:2d_ic2_oc2_i5x5_k3x3"'
for cut in 1 17 40 66 $((${#valid} - 1)); do
  bad_case "truncated-at-$cut" '' "${valid:0:cut}"
done
bad_case trailing-garbage '' "$valid}"
bad_case nan-literal '' '{"schema": "convparity.case/1", "descriptor": "fwd:2d_ic2_oc2_i5x5_k3x3", "seed": NaN}'
bad_case deep-nesting '' "$(head -c 200000 /dev/zero | tr '\0' '[')"
bad_case deep-transform 'nests deeper' "{\"schema\": \"convparity.case/1\", \"descriptor\": \"fwd:1d_ic1_oc1_i4_k1\", \"transform\": {\"g\": $(head -c 5000 /dev/zero | tr '\0' '[')$(head -c 5000 /dev/zero | tr '\0' ']')}}"
# Over the reader's size limit (4 MiB): refused before it is parsed.
bad_case huge-note 'over the limit|larger than' "{\"schema\": \"convparity.case/1\", \"descriptor\": \"fwd:1d_ic1_oc1_i4_k1\", \"note\": \"$(head -c 5000000 /dev/zero | tr '\0' a)\"}"
head -c $((40 << 20)) /dev/zero >"$tmp/forty-mib.json"
bad huge-file 'larger than|over the limit' -- "$cp" check "$tmp/forty-mib.json"

# Schemas and fields.
bad_case schema-v2 'cannot read' '{"schema": "convparity.case/2", "descriptor": "fwd:1d_ic1_oc1_i4_k1"}'
bad_case schema-report 'not a case file' '{"schema": "convparity.report/1", "descriptor": "fwd:1d_ic1_oc1_i4_k1"}'
bad_case schema-missing "'schema' is missing" '{"descriptor": "fwd:1d_ic1_oc1_i4_k1"}'
bad_case schema-number 'schema' '{"schema": 1, "descriptor": "fwd:1d_ic1_oc1_i4_k1"}'
bad_case unknown-field 'unknown field "colour"'  '{"schema": "convparity.case/1", "descriptor": "fwd:1d_ic1_oc1_i4_k1", "colour": "red"}'
bad_case unknown-problem-field 'unknown field "problem.colour"'  "$(problem batch 1 | sed 's/"rank": 2/"rank": 2, "colour": 1/')"
bad_case disagreeing-descriptor 'descriptor' "$(problem batch 1 | sed 's/"seed": 1/"seed": 1, "descriptor": "fwd:2d_ic2_oc2_i6x6_k3x3"/')"
bad_case graph-form 'graph' '{"schema": "convparity.case/1", "descriptor": "fwd:1d_ic1_oc1_i4_k1", "graph": "tree"}'
bad_case graph-number 'graph' '{"schema": "convparity.case/1", "descriptor": "fwd:1d_ic1_oc1_i4_k1", "graph": 2}'
# A chain whose residual convolution (C_out → C_out) is far larger than the convolution itself:
# refused before its weight is allocated.
bad_case chain-residual-weight 'residual convolution|over the limit' '{"schema": "convparity.case/1", "descriptor": "fwd:1d_ic1_oc1000000_i1_k1", "sut": "transform:legalize", "graph": "chain"}'

# Hostile numbers.
bad_case batch-int64-max 'batch' "$(problem batch 9223372036854775807)"
bad_case batch-2-pow-63 'batch' "$(problem batch 9223372036854775808)"
bad_case batch-2-pow-64 'batch' "$(problem batch 18446744073709551616)"
bad_case batch-minus-one 'batch' "$(problem batch -1)"
bad_case batch-1e300 'batch' "$(problem batch 1e300)"
bad_case batch-fraction 'batch' "$(problem batch 1.5)"
bad_case batch-string 'batch' "$(problem batch '"1"')"
bad_case batch-bool 'batch' "$(problem batch true)"
bad_case input-1e300 'input' "$(problem input '[1e300, 5]')"
bad_case input-minus-one 'input' "$(problem input '[-1, 5]')"
bad_case input-many-values 'input' "$(problem input "[$(printf '5,%.0s' $(seq 100000))5]")"
bad_case seed-minus-one 'seed' "${valid/\"seed\": 7/\"seed\": -1}"
bad_case seed-2-pow-64 'seed' "${valid/\"seed\": 7/\"seed\": 18446744073709551616}"
bad_case seed-1e300 'seed' "${valid/\"seed\": 7/\"seed\": 1e300}"

# Sizes: terabytes of tensors, an extent over the limit, and the multiply-adds of a case that fits
# every tensor limit. Nothing is allocated: the limit names the flag that raises it.
bad_case terabytes 'over the limit of [0-9]+ \(--max-elements\)' '{"schema": "convparity.case/1", "descriptor": "fwd:3d_mb1024_ic1024_oc1024_i1024x1024x1024_k1x1x1"}'
bad_case extent 'input=2000000 is over the limit of 1048576 \(--max-extent\)' '{"schema": "convparity.case/1", "descriptor": "fwd:1d_ic1_oc1_i2000000_k1"}'
bad_case macs 'multiply-adds, over the limit of 4294967296 \(--max-macs\)' '{"schema": "convparity.case/1", "descriptor": "fwd:1d_ic2048_oc2048_i30000_k15"}'
bad descriptor-terabytes '--max-elements' -- "$cp" repro 'fwd:3d_mb1024_ic1024_oc1024_i1024x1024x1024_k1x1x1'
bad shrink-terabytes '--max-elements' -- "$cp" shrink "$tmp/cases/$(ls "$tmp/cases" | grep -- '-terabytes.json')"
bad_case illegal 'Kernel size can.t be greater' '{"schema": "convparity.case/1", "descriptor": "fwd:1d_ic1_oc1_i2_k3"}'

# The limits from the command line: lowered, each one names itself.
small='fwd:2d_ic4_oc4_i9x9_k3x3'  # input 324, output 196 and weight 144 elements, 7056 MACs
bad limit-elements 'input tensor \[1, 4, 9, 9\] has 324 elements, over the limit of 200 \(--max-elements\)' -- "$cp" repro "$small" --max-elements 200
bad limit-macs 'over the limit of 7000 \(--max-macs\)' -- "$cp" repro "$small" --max-macs 7000
bad limit-extent 'input=9 is over the limit of 8 \(--max-extent\)' -- "$cp" repro "$small" --max-extent 8
bad limit-check 'valid.json: .*\(--max-elements\)' -- "$cp" check "$tmp/valid.json" --max-elements 10
good limit-just-fits 0 -- "$cp" repro "$small" --max-elements 324 --max-macs 7056 --max-extent 9
# Raised above the defaults, in the worker processes too (the case runs isolated).
good limit-raised 0 -- "$cp" repro "$small" --max-elements 1000000000 --max-macs 100000000000
# A campaign's workers take the limits too: generated cases over them are invalid, not run.
good limit-in-workers 0 -- "$cp" fuzz --sut direct --cases 40 --seed 3 --max-elements 30 --out "$tmp/limited" --quiet
if /usr/bin/python3 - "$tmp/limited/summary.json" <<'PY'; then passed=$((passed + 1)); else fail "limit-in-workers: no invalid verdicts in the summary"; fi
import json, sys
s = json.load(open(sys.argv[1]))
sys.exit(0 if s["cases"]["by_verdict"].get("invalid", 0) > 0 else 1)
PY

# Descriptors.
bad descriptor-huge-number 'over the limit of 2\^40' -- "$cp" repro 'fwd:2d_ic4_oc4_i99999999999999999999_k3'
bad descriptor-2-pow-63 'over the limit of 2\^40' -- "$cp" repro 'fwd:2d_ic9223372036854775808_oc4_i9_k3'
bad descriptor-int64-max 'over the limit of 2\^40' -- "$cp" repro 'fwd:2d_mb9223372036854775807_ic4_oc4_i9_k3'
bad descriptor-at-2-pow-40 'at most 2\^30' -- "$cp" repro 'fwd:2d_mb1099511627776_ic4_oc4_i9_k3'
bad descriptor-negative '' -- "$cp" repro 'fwd:2d_ic4_oc4_i-9_k3'
bad descriptor-newline '' -- "$cp" repro "$(printf 'fwd:2d_ic4\n_oc4_i9_k3')"
bad descriptor-control-bytes '' -- "$cp" repro "$(printf 'fwd:2d_ic4_oc4_i9_k3\033[2J\r')"
bad descriptor-not-utf8 '' -- "$cp" repro "$(printf 'fwd:2d_ic4_oc4_i9_k3_\377\376')"
bad descriptor-very-long 'characters long' -- "$cp" repro "fwd:2d_ic4_oc4_i9_k3$(printf '_b%.0s' $(seq 3000))"
bad descriptor-empty '' -- "$cp" repro ''

# Things that are not plugins, and a plugin of another ABI version. The same message whether the
# plugin is named on the command line or in a case file (which the command line must approve: a
# case file is data), and one line that says so when it does not.
printf 'not a shared library\n' >"$tmp/text-plugin.so"
libm=$(/sbin/ldconfig -p 2>/dev/null | awk '/libm\.so\.6 .*x86-64/ {print $NF; exit}')
[ -n "$libm" ] || libm=/lib/x86_64-linux-gnu/libm.so.6
for plugin in text:"$tmp/text-plugin.so" libm:"$libm" missing:"$tmp/no-such.so" folder:"$tmp" \
  abi999:"$abi999" no-entry:"$no_entry"; do
  name=${plugin%%:*} path=${plugin#*:}
  case $name in
    abi999) pattern='ABI version 999, this convparity speaks 1 to 2' ;;
    libm | no-entry) pattern='not a convparity plugin' ;;
    *) pattern='cannot load' ;;
  esac
  bad "plugin-$name-fuzz" "$pattern" -- "$cp" fuzz --sut "plugin:$path" --cases 1 --out "$tmp/p" --quiet
  bad "plugin-$name-repro" "$pattern" -- "$cp" repro "$small" --sut "plugin:$path"
  bad_case "plugin-$name" "$pattern" "{\"schema\": \"convparity.case/1\", \"descriptor\": \"$small\", \"sut\": \"plugin:$path\"}" \
    --allow-sut "plugin:$path"
  bad_case "plugin-$name-unapproved" 'a case file is data' "{\"schema\": \"convparity.case/1\", \"descriptor\": \"$small\", \"sut\": \"plugin:$path\"}"
done
bad plugin-path-newline '' -- "$cp" repro "$small" --sut "plugin:$(printf '%s\nsecond-line.so' "$tmp/x")"
bad unknown-sut 'no-such-sut' -- "$cp" repro "$small" --sut no-such-sut
bad_case unknown-sut 'no-such-sut' "{\"schema\": \"convparity.case/1\", \"descriptor\": \"$small\", \"sut\": \"no-such-sut\"}"
good control-plugin 0 -- "$cp" repro "$small" --sut "plugin:$example"

# Bad command-line values.
for args in '--shard 3/2' '--shard 1/0' '--shard -1/2' '--shard a/b' '--shard 0/2x' '--shard 0/99999999999' \
  '--jobs 0' '--jobs -1' '--jobs 100000' '--jobs 1.5' \
  '--time -1' '--time nan' '--time inf' '--time 1e999' '--time abc' \
  '--cases -1' '--cases 1e300' '--cases 9223372036854775808' \
  '--max-macs garbage' '--max-macs 0' '--max-macs -5' '--max-macs 99999999999999999999' \
  '--max-elements 0' '--max-elements x' '--max-extent -1' \
  '--seed -1' '--seed 18446744073709551616' '--seed 99999999999999999999' '--seed 0x10' \
  '--timeout 0' '--timeout -1' '--timeout nan' \
  '--stop-after-buckets -1' \
  '--dims 4' '--dims ""' '--dims 1,4' '--fill sometimes' '--direction sideways' \
  '--sut ""' '--no-such-flag'; do
  # shellcheck disable=SC2086  # the arguments are split on purpose
  eval "set -- $args"
  bad "fuzz $args" '' -- "$cp" fuzz "$@" --cases 1 --out "$tmp/cli" --quiet
done
bad 'fuzz --direction with a newline' '' -- "$cp" fuzz --direction "$(printf 'fwd\nbwd')" --cases 1
bad 'repro --seed -1' '' -- "$cp" repro "$small" --seed -1
bad 'check --jobs 0' '' -- "$cp" check "$tmp/valid.json" --jobs 0
bad 'import --max-batch -1' '' -- "$cp" import-benchdnn "$tmp/valid.json" --max-batch -1
bad 'no command' '' -- "$cp"
bad 'unknown command' '' -- "$cp" frobnicate

# Hostile benchdnn lists: garbage, include cycles and include fans are errors, not cases. A huge
# number is legal benchdnn (oneDNN's own shapes_large_conv has some): a counted skip, no case.
printf '\001\002garbage\n' >"$tmp/garbage.benchdnn"
bad import-garbage '' -- "$cp" import-benchdnn "$tmp/garbage.benchdnn" --out "$tmp/imp"
printf -- '--batch=self.benchdnn\n' >"$tmp/self.benchdnn"
bad import-self-include 'again makes a cycle' -- "$cp" import-benchdnn "$tmp/self.benchdnn" --out "$tmp/imp"
printf -- '--batch=/dev/zero\n' >"$tmp/devzero.benchdnn"
bad import-include-device 'not a file' -- "$cp" import-benchdnn "$tmp/devzero.benchdnn" --out "$tmp/imp"
for level in 0 1 2 3 4; do  # each level includes the next 200 times: 200^5 includes
  for i in $(seq 200); do echo "--batch=fan$((level + 1))"; done >"$tmp/fan$level"
done
printf 'ic4ih5oc4kh3\n' >"$tmp/fan5"
bad import-include-fan 'more than 100000 --batch includes' -- "$cp" import-benchdnn "$tmp/fan0" --dry-run
list=$(seq -s, 1000)
printf -- "--mb=$list --stag=$(printf 'any,%.0s' $(seq 999))any --dir=$(printf 'FWD_B,%.0s' $(seq 999))FWD_B ic4ih5oc4kh3\n" >"$tmp/product.benchdnn"
bad import-option-product 'benchdnn problems in all' -- "$cp" import-benchdnn "$tmp/product.benchdnn" --dry-run
printf -- '--match=\\(a*\\)*\\1b ic4ih5oc4kh3\n' >"$tmp/regex.benchdnn"
bad import-backreference 'back-references' -- "$cp" import-benchdnn "$tmp/regex.benchdnn" --dry-run
printf 'mb99999999999999999999ic4ih9oc4kh3\n' >"$tmp/huge.benchdnn"
guarded "$cp" import-benchdnn "$tmp/huge.benchdnn" --out "$tmp/huge" >"$tmp/out" 2>"$tmp/err"
if [ $? -ne 0 ] || ! grep -q 'skipped  *1  size: a value over 2^30' "$tmp/out" || [ -e "$tmp/huge/corpus" ]; then
  fail "import-huge-number: not one counted skip without a case"
  head -c 600 "$tmp/out" "$tmp/err"
else
  passed=$((passed + 1))
fi

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
