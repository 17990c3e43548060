#!/usr/bin/env bash
# Writes fuzz/fuzz_parity.dict: the leading choices (SUT, direction, fill, kind, size class, rank,
# the first dimension's kernel, dilation and stride; see generators/byte_decoder.h) of every
# known-bug case in corpus/regression, encoded as fuzz_parity reads them. libFuzzer splices these
# into inputs, so the configurations that broke real compilers and libraries stay a mutation away.
# Rerun after the byte format or the regression corpus changes.
# Usage: fuzz/make_parity_dict.sh [convparity binary]
set -euo pipefail
cd "$(dirname "$0")/.."
cp=${1:-./build/harness/convparity}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir "$tmp/cases"
grep -l '"sut": "known-bug:' -r corpus/regression/known_bugs | xargs -I{} cp {} "$tmp/cases/"
"$cp" export-fuzz-seeds "$tmp/cases" --out "$tmp/seeds" >/dev/null
{
  echo "# Written by fuzz/make_parity_dict.sh: the first 12 bytes of each known bug's case."
  for f in "$tmp"/seeds/*; do
    head -c 12 "$f" | od -An -tx1 | tr -d ' \n' | sed 's/\(..\)/\\x\1/g; s/.*/"&"/'
    echo
  done | sort -u
} >fuzz/fuzz_parity.dict
echo "fuzz/fuzz_parity.dict: $(grep -c '^"' fuzz/fuzz_parity.dict) entries"
