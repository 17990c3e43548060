#!/usr/bin/env bash
# without_known_bug.sh <bug id> <corpus dir> -- command…: runs the command with, as its last
# argument, a copy of the corpus from which every case of known-bug:<bug id> is removed: the
# regression corpus's completeness test must then fail, naming the bug (tests/README.md).
set -u
id=$1
corpus=$2
shift 3
copy=$(mktemp -d)
trap 'rm -rf "$copy"' EXIT
cp -r "$corpus"/. "$copy"
grep -rlF "\"sut\": \"known-bug:$id\"" "$copy" | xargs -r rm
echo "removed the cases of known-bug:$id: $(find "$corpus" -name '*.json' | wc -l) -> $(find "$copy" -name '*.json' | wc -l) cases"
"$@" "$copy"
