#!/usr/bin/env bash
# Hostile input (docs/INTERFACES.md, "Bad input": "Nothing a user can type or put in a file makes
# the harness crash, hang or allocate without bound"): malformed and oversized case files, hostile
# numbers, invalid descriptors, things that are not plugins, bad command-line values, limits. Every
# one must end with exit 2 and a one-line message saying what was wrong. Each command runs under
# `timeout` and a memory cap, so a hang or an unbounded allocation fails the test instead of the
# machine.
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

# bad <name> <stderr pattern> -- command…: exit 2, one line "convparity: …" on stderr whose
# complaint matches the pattern, and nothing on stdout. The complaint is the line without the
# paths of this test's files (which an echo of the command line would match) and without the
# "convparity: " prefix. $CONVPARITY_HOSTILE_SHOW=1 prints every complaint.
bad() {
  local name=$1 pattern=$2
  shift 3
  if [ -z "$pattern" ]; then
    fail "$name: no pattern (a one-line error about anything would pass)"
    return
  fi
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
  local complaint
  complaint=$(sed -e 's/^convparity: //' -e "s|^$tmp/[^ :]*: ||" -e "s|$tmp/[^ :\"']*|<file>|g" \
    "$tmp/err")
  [ "${CONVPARITY_HOSTILE_SHOW:-0}" = 1 ] && echo "$name: $complaint"
  if ! grep -qE -- "$pattern" <<<"$complaint"; then
    fail "$name: no /$pattern/ in: $complaint"
    return
  fi
  if [ -s "$tmp/out" ]; then
    fail "$name: stdout is not empty: $(head -c 200 "$tmp/out")"
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

# names_file <name> <path>: the last error starts with the file it is about.
names_file() {
  if grep -qF -- "convparity: $2: " "$tmp/err" && [ "$(head -c $((${#2} + 14)) "$tmp/err")" = "convparity: $2: " ]; then
    passed=$((passed + 1))
  else
    fail "$1: the error does not start with $2: $(head -c 300 "$tmp/err")"
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
  # Named by number only: the complaint, not the file name, must match the pattern.
  local file="$tmp/cases/$n.json"
  mkdir -p "$tmp/cases"
  printf '%s' "$content" >"$file"
  last_case=$file
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
bad_case empty '^malformed case JSON: parse error at line 1, column 1: .*unexpected end of input' ''
bad_case not-json '^malformed case JSON: parse error at line 1, column 1: .*invalid literal' 'hello, world'
bad_case binary '^malformed case JSON: parse error at line 1, column 1: .*invalid literal' "$(printf '\001\002\377\376{"schema')"
bad_case array '^a case must be a JSON object, got array$' '[1, 2, 3]'
bad_case null '^a case must be a JSON object, got null$' 'null'
bad_case number '^a case must be a JSON object, got the integer 42$' '42'
bad_case string '^a case must be a JSON object, got the string ' '"fwd:2d_ic2_oc2_i5x5_k3x3"'
for cut in 1 17 40 66 $((${#valid} - 1)); do
  bad_case "truncated-at-$cut" "^malformed case JSON: parse error at line 1, column $((cut + 1)): " "${valid:0:cut}"
done
bad_case trailing-garbage "^malformed case JSON: .*unexpected '}'; expected end of input" "$valid}"
bad_case nan-literal "^malformed case JSON: .*invalid literal; last read: '\"seed\": N'" '{"schema": "convparity.case/1", "descriptor": "fwd:2d_ic2_oc2_i5x5_k3x3", "seed": NaN}'
bad_case deep-nesting '^malformed case JSON: parse error at line 1, column 200001: ' "$(head -c 200000 /dev/zero | tr '\0' '[')"
bad_case deep-transform '^case JSON nests deeper than 64 levels$' "{\"schema\": \"convparity.case/1\", \"descriptor\": \"fwd:1d_ic1_oc1_i4_k1\", \"transform\": {\"g\": $(head -c 5000 /dev/zero | tr '\0' '[')$(head -c 5000 /dev/zero | tr '\0' ']')}}"
# Over the reader's size limit (4 MiB): refused before it is parsed.
bad_case huge-note '^case text is 5000081 bytes, over the limit of 4194304$' "{\"schema\": \"convparity.case/1\", \"descriptor\": \"fwd:1d_ic1_oc1_i4_k1\", \"note\": \"$(head -c 5000000 /dev/zero | tr '\0' a)\"}"
head -c $((40 << 20)) /dev/zero >"$tmp/forty-mib.json"
bad huge-file '^larger than 16777216 bytes$' -- "$cp" check "$tmp/forty-mib.json"

# Schemas and fields.
bad_case schema-v2 '^schema "convparity.case/2" is a version this build cannot read' '{"schema": "convparity.case/2", "descriptor": "fwd:1d_ic1_oc1_i4_k1"}'
bad_case schema-report '^schema "convparity.report/1" is not a case file' '{"schema": "convparity.report/1", "descriptor": "fwd:1d_ic1_oc1_i4_k1"}'
bad_case schema-missing "^field 'schema' is missing" '{"descriptor": "fwd:1d_ic1_oc1_i4_k1"}'
bad_case schema-number "^field 'schema' must be a string, got the integer 1$" '{"schema": 1, "descriptor": "fwd:1d_ic1_oc1_i4_k1"}'
bad_case unknown-field '^unknown field "colour"; expected one of ' '{"schema": "convparity.case/1", "descriptor": "fwd:1d_ic1_oc1_i4_k1", "colour": "red"}'
bad_case unknown-problem-field '^unknown field "problem.colour"; expected one of ' "$(problem batch 1 | sed 's/"rank": 2/"rank": 2, "colour": 1/')"
bad_case disagreeing-descriptor "^fields 'descriptor' and 'problem' disagree on input: the descriptor has \\(6, 6\\), the problem has \\(5, 5\\)" "$(problem batch 1 | sed 's/"seed": 1/"seed": 1, "descriptor": "fwd:2d_ic2_oc2_i6x6_k3x3"/')"
bad_case graph-form "^field 'graph' is \"tree\", expected conv or chain$" '{"schema": "convparity.case/1", "descriptor": "fwd:1d_ic1_oc1_i4_k1", "graph": "tree"}'
bad_case graph-number "^field 'graph' must be a string, got the integer 2$" '{"schema": "convparity.case/1", "descriptor": "fwd:1d_ic1_oc1_i4_k1", "graph": 2}'
# A chain whose residual convolution (C_out → C_out) is far larger than the convolution itself:
# refused before its weight is allocated.
chain='{"schema": "convparity.case/1", "descriptor": "fwd:1d_ic1_oc1000000_i1_k1", "graph": "chain",
  "sut": "transform:legalize"}'
huge='weight tensor \[1000000, 1000000, 1\] has 1000000000000 elements, over the limit of [0-9]+'
bad_case chain-residual-weight "^the chain graph: %4 = conv: $huge \\(--max-elements\\)" "$chain"

# Hostile numbers.
bad_case batch-int64-max '^batch must be at most 2\^30, but got 9223372036854775807$' "$(problem batch 9223372036854775807)"
bad_case batch-2-pow-63 "^field 'problem.batch' = 9223372036854775808 is outside the int64 range$" "$(problem batch 9223372036854775808)"
bad_case batch-2-pow-64 "^field 'problem.batch' must be an integer, got the number 1.8446744073709552e\\+19" "$(problem batch 18446744073709551616)"
bad_case batch-minus-one '^batch must be positive, but got -1$' "$(problem batch -1)"
bad_case batch-1e300 "^field 'problem.batch' must be an integer, got the number 1e\\+300$" "$(problem batch 1e300)"
bad_case batch-fraction "^field 'problem.batch' must be an integer, got the number 1.5$" "$(problem batch 1.5)"
bad_case batch-string "^field 'problem.batch' must be an integer, got the string " "$(problem batch '"1"')"
bad_case batch-bool "^field 'problem.batch' must be an integer, got boolean$" "$(problem batch true)"
bad_case input-1e300 "^field 'problem.input\\[0\\]' must be an integer, got the number 1e\\+300$" "$(problem input '[1e300, 5]')"
bad_case input-minus-one '^input must be positive and at most 2\^30, but got input=\(-1, 5\)$' "$(problem input '[-1, 5]')"
bad_case input-many-values "^field 'problem.input' has 100001 values, expected 2 \\(the rank\\)$" "$(problem input "[$(printf '5,%.0s' $(seq 100000))5]")"
bad_case seed-minus-one "^field 'seed' must be an integer in \\[0, 2\\^64 - 1\\] .*got the integer -1$" "${valid/\"seed\": 7/\"seed\": -1}"
bad_case seed-2-pow-64 "^field 'seed' must be an integer in \\[0, 2\\^64 - 1\\] .*got the number 1.8446744073709552e\\+19$" "${valid/\"seed\": 7/\"seed\": 18446744073709551616}"
bad_case seed-1e300 "^field 'seed' must be an integer in \\[0, 2\\^64 - 1\\] .*got the number 1e\\+300$" "${valid/\"seed\": 7/\"seed\": 1e300}"

# Sizes: terabytes of tensors, an extent over the limit, and the multiply-adds of a case that fits
# every tensor limit. Nothing is allocated: the limit names the flag that raises it.
bad_case terabytes '^input tensor \[1024, 1024, 1024, 1024, 1024\] has 1125899906842624 elements, over the limit of [0-9]+ \(--max-elements\)$' '{"schema": "convparity.case/1", "descriptor": "fwd:3d_mb1024_ic1024_oc1024_i1024x1024x1024_k1x1x1"}'
terabytes_case=$last_case
bad_case extent '^input=2000000 is over the limit of 1048576 \(--max-extent\)' '{"schema": "convparity.case/1", "descriptor": "fwd:1d_ic1_oc1_i2000000_k1"}'
bad_case macs '^the convolution needs 1886555996160 multiply-adds, over the limit of 4294967296 \(--max-macs\)' '{"schema": "convparity.case/1", "descriptor": "fwd:1d_ic2048_oc2048_i30000_k15"}'
bad descriptor-terabytes '^fwd:3d_mb1024_ic1024_oc1024_i1024x1024x1024_k1x1x1: input tensor .* over the limit of [0-9]+ \(--max-elements\)$' -- "$cp" repro 'fwd:3d_mb1024_ic1024_oc1024_i1024x1024x1024_k1x1x1'
bad shrink-terabytes '^input tensor \[1024, 1024, 1024, 1024, 1024\] .* over the limit of [0-9]+ \(--max-elements\)$' -- "$cp" shrink "$terabytes_case"
bad_case illegal '^Calculated padded input size per channel: \(2\). Kernel size: \(3\). Kernel size can.t be greater than actual input size$' '{"schema": "convparity.case/1", "descriptor": "fwd:1d_ic1_oc1_i2_k3"}'

# The limits from the command line: lowered, each one names itself.
small='fwd:2d_ic4_oc4_i9x9_k3x3'  # input 324, output 196 and weight 144 elements, 7056 MACs
bad limit-elements '^fwd:2d_ic4_oc4_i9x9_k3x3: input tensor \[1, 4, 9, 9\] has 324 elements, over the limit of 200 \(--max-elements\)' -- "$cp" repro "$small" --max-elements 200
bad limit-macs '^fwd:2d_ic4_oc4_i9x9_k3x3: the convolution needs 7056 multiply-adds, over the limit of 7000 \(--max-macs\)' -- "$cp" repro "$small" --max-macs 7000
bad limit-extent '^fwd:2d_ic4_oc4_i9x9_k3x3: input=9 is over the limit of 8 \(--max-extent\)' -- "$cp" repro "$small" --max-extent 8
bad limit-check '^input tensor \[1, 2, 5, 5\] has 50 elements, over the limit of 10 \(--max-elements\)$' -- "$cp" check "$tmp/valid.json" --max-elements 10
names_file limit-check-names-the-file "$tmp/valid.json"
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
bad descriptor-huge-number '^descriptor "fwd:2d_ic4_oc4_i99999999999999999999_k3": i value "99999999999999999999" is over the limit of 2\^40' -- "$cp" repro 'fwd:2d_ic4_oc4_i99999999999999999999_k3'
bad descriptor-2-pow-63 '^descriptor "[^"]*": ic value "9223372036854775808" is over the limit of 2\^40' -- "$cp" repro 'fwd:2d_ic9223372036854775808_oc4_i9_k3'
bad descriptor-int64-max '^descriptor "[^"]*": mb value "9223372036854775807" is over the limit of 2\^40' -- "$cp" repro 'fwd:2d_mb9223372036854775807_ic4_oc4_i9_k3'
bad descriptor-at-2-pow-40 '^[^ ]*: batch must be at most 2\^30, but got 1099511627776$' -- "$cp" repro 'fwd:2d_mb1099511627776_ic4_oc4_i9_k3'
bad descriptor-negative '^descriptor "[^"]*": unexpected character "-" at offset 16; ' -- "$cp" repro 'fwd:2d_ic4_oc4_i-9_k3'
bad descriptor-newline '^descriptor "fwd:2d_ic4\\x0a_oc4_i9_k3": unexpected character "\\x0a" at offset 10; ' -- "$cp" repro "$(printf 'fwd:2d_ic4\n_oc4_i9_k3')"
bad descriptor-control-bytes '^descriptor "[^"]*": unexpected character "\\x1b" at offset 20; ' -- "$cp" repro "$(printf 'fwd:2d_ic4_oc4_i9_k3\033[2J\r')"
bad descriptor-not-utf8 '^descriptor "[^"]*": unexpected character "\\xff" at offset 21; ' -- "$cp" repro "$(printf 'fwd:2d_ic4_oc4_i9_k3_\377\376')"
bad descriptor-very-long '^descriptor "[^"]*": is 6020 characters long, over the limit of 4096$' -- "$cp" repro "fwd:2d_ic4_oc4_i9_k3$(printf '_b%.0s' $(seq 3000))"
bad descriptor-empty '^descriptor "": empty descriptor; expected e.g. ' -- "$cp" repro ''

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
    abi999) pattern='^plugin [^ ]*: ABI version 999, this convparity speaks 1 to 4$' ;;
    libm | no-entry) pattern='^plugin [^ ]*: not a convparity plugin \(no symbol convparity_plugin_entry\)$' ;;
    *) pattern='^plugin [^ ]*: cannot load: ' ;;
  esac
  bad "plugin-$name-fuzz" "$pattern" -- "$cp" fuzz --sut "plugin:$path" --cases 1 --out "$tmp/p" --quiet
  bad "plugin-$name-repro" "$pattern" -- "$cp" repro "$small" --sut "plugin:$path"
  bad_case "plugin-$name" "$pattern" "{\"schema\": \"convparity.case/1\", \"descriptor\": \"$small\", \"sut\": \"plugin:$path\"}" \
    --allow-sut "plugin:$path"
  bad_case "plugin-$name-unapproved" 'a case file is data' "{\"schema\": \"convparity.case/1\", \"descriptor\": \"$small\", \"sut\": \"plugin:$path\"}"
done
bad plugin-path-newline '^plugin <file>: cannot load: .*cannot open shared object file' -- "$cp" repro "$small" --sut "plugin:$(printf '%s\nsecond-line.so' "$tmp/x")"
bad unknown-sut "^unknown system under test 'no-such-sut' \\(see \`convparity list\`\\)$" -- "$cp" repro "$small" --sut no-such-sut
bad_case unknown-sut "^unknown system under test 'no-such-sut' \\(see \`convparity list\`\\)$" "{\"schema\": \"convparity.case/1\", \"descriptor\": \"$small\", \"sut\": \"no-such-sut\"}"
good control-plugin 0 -- "$cp" repro "$small" --sut "plugin:$example"

# Bad command-line values: each complaint names the flag and what it expected, and quotes the value.
# The table: the arguments, then what a complaint about them says (after "<flag>: ").
while IFS='|' read -r args complaint; do
  # shellcheck disable=SC2086  # the arguments are split on purpose
  eval "set -- $args"
  flag=${args%% *}
  bad "fuzz $args" "^$flag: $complaint" -- "$cp" fuzz "$@" --cases 1 --out "$tmp/cli" --quiet
done <<'TABLE'
--shard 3/2|expected I/N with 0 <= I < N, got '3/2'$
--shard 1/0|expected I/N with 0 <= I < N, got '1/0'$
--shard -1/2|expected I/N with 0 <= I < N, got '-1/2'$
--shard a/b|expected I/N with 0 <= I < N, got 'a/b'$
--shard 0/2x|expected I/N with 0 <= I < N, got '0/2x'$
--shard 0/99999999999|expected I/N with 0 <= I < N, got '0/99999999999'$
--jobs 0|Value 0 not in range 1 to 256$
--jobs -1|Value -1 not in range 1 to 256$
--jobs 100000|Value 100000 not in range 1 to 256$
--jobs 1.5|Value 1.5 not in range 1 to 256$
--time -1|expected a number of seconds >= 0, got '-1'$
--time nan|expected a number of seconds >= 0, got 'nan'$
--time inf|expected a number of seconds >= 0, got 'inf'$
--time 1e999|expected a number of seconds >= 0, got '1e999'$
--time abc|expected a number of seconds >= 0, got 'abc'$
--cases -1|expected a whole number from 0 to 2\^62, got '-1'$
--cases 1e300|expected a whole number from 0 to 2\^62, got '1e300'$
--cases 9223372036854775808|expected a whole number from 0 to 2\^62, got '9223372036854775808'$
--max-macs garbage|expected a whole number from 1 to 2\^62, got 'garbage'$
--max-macs 0|expected a whole number from 1 to 2\^62, got '0'$
--max-macs -5|expected a whole number from 1 to 2\^62, got '-5'$
--max-macs 99999999999999999999|expected a whole number from 1 to 2\^62, got '99999999999999999999'$
--max-elements 0|expected a whole number from 1 to 2\^62, got '0'$
--max-elements x|expected a whole number from 1 to 2\^62, got 'x'$
--max-extent -1|expected a whole number from 1 to 2\^62, got '-1'$
--seed -1|expected a whole number from 0 to 2\^64-1, got '-1'$
--seed 18446744073709551616|expected a whole number from 0 to 2\^64-1, got '18446744073709551616'$
--seed 99999999999999999999|expected a whole number from 0 to 2\^64-1, got '99999999999999999999'$
--seed 0x10|expected a whole number from 0 to 2\^64-1, got '0x10'$
--timeout 0|expected a number of seconds > 0, got '0'$
--timeout -1|expected a number of seconds > 0, got '-1'$
--timeout nan|expected a number of seconds > 0, got 'nan'$
--stop-after-buckets -1|expected a whole number from 0 to 2\^62, got '-1'$
--dims 4|expected a list of 1, 2 and 3 like 1,2,3, got '4'$
--dims ""|empty$
--dims 1,4|expected a list of 1, 2 and 3 like 1,2,3, got '1,4'$
--fill sometimes|expected exact, random, both, uniform, positive or wide, got 'sometimes'$
--direction sideways|unknown direction 'sideways', expected fwd, bwd_data or bwd_weight$
TABLE
bad 'fuzz --sut ""' "^unknown system under test '' \\(see \`convparity list\`\\)$" -- "$cp" fuzz --sut '' --cases 1 --out "$tmp/cli" --quiet
bad 'fuzz --no-such-flag' \
  "^fuzz does not take '--no-such-flag' \\(convparity fuzz --help lists its flags\\)$" \
  -- "$cp" fuzz --no-such-flag --cases 1 --out "$tmp/cli" --quiet
bad 'fuzz --direction with a newline' "^--direction: unknown direction 'fwd\\\\x0abwd', expected " -- "$cp" fuzz --direction "$(printf 'fwd\nbwd')" --cases 1
bad 'repro --seed -1' "^--seed: expected a whole number from 0 to 2\\^64-1, got '-1'$" -- "$cp" repro "$small" --seed -1
bad 'check --jobs 0' '^--jobs: Value 0 not in range 1 to 256$' -- "$cp" check "$tmp/valid.json" --jobs 0
# A benchdnn list that imports, so that the flag is what is wrong.
printf 'mb2ic4ih9oc4kh3\n' >"$tmp/valid.benchdnn"
good control-import 0 -- "$cp" import-benchdnn "$tmp/valid.benchdnn" --corpus "$tmp/imported"
bad 'import --max-batch -1' "^--max-batch: expected a whole number from 0 to 2\\^62, got '-1'$" -- "$cp" import-benchdnn "$tmp/valid.benchdnn" --max-batch -1 --corpus "$tmp/imported"
bad 'no command' '^no command; expected one of fuzz, repro, check, ' -- "$cp"
bad 'unknown command' "^unknown command 'frobnicate'; expected one of fuzz, repro, check, " -- "$cp" frobnicate

# Hostile benchdnn lists: garbage, include cycles and include fans are errors, not cases. A huge
# number is legal benchdnn (oneDNN's own shapes_large_conv has some): a counted skip, no case.
printf '\001\002garbage\n' >"$tmp/garbage.benchdnn"
bad import-garbage "^<file>:1: descriptor '\\\\x01\\\\x02garbage': unknown entry at " -- "$cp" import-benchdnn "$tmp/garbage.benchdnn" --out "$tmp/imp"
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
