#!/usr/bin/env bash
# gate_on_broken_suts.sh <convparity> <declining plugin>: `convparity check` of the two cases of
# issue 15: a case expecting a discrepancy whose SUT only returns an error (crashed), and a case
# expecting parity whose SUT declines everything (skipped). The gate must fail both: "0 passed,
# 2 failed" (tests/README.md).
set -u
cp=$1
plugin=$2
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
printf '{"schema": "convparity.case/1", "descriptor": "bwd_data:2d_ic2_oc2_i5x5_k3x3", "sut": "plugin:%s", "expect": "discrepancy"}\n' "$plugin" >"$dir/errors.json"
printf '{"schema": "convparity.case/1", "descriptor": "fwd:2d_ic2_oc2_i5x5_k3x3", "sut": "plugin:%s", "expect": "parity"}\n' "$plugin" >"$dir/declines.json"
"$cp" check "$dir" --allow-sut "plugin:$plugin"
