#!/usr/bin/env bash
# A JavaScript finding (findings/<library>-<n>/ with repro.js and case*.json) still reproduces:
# its standalone repro.js, run with the adapters' npm packages, exits 1 (the library disagrees with
# its plain reference loop), and `convparity check` of its case*.json files (each expecting the
# verdict it shows, e.g. failed) exits 0. Other JSON in the folder (a graph model's model.json) is
# not a case file and is left alone.
# Passes while both hold; a finding that stops reproducing fails, so that its README gets updated.
# Skipped (the word "skipped:") when node, the npm packages or an adapter its cases name are
# missing.
# Usage: node_still_reproduces.sh <finding dir> <node_modules dir> <convparity>
set -u
dir=$1 modules=$2 convparity=$3
if ! command -v node >/dev/null; then
  echo "skipped: node is not installed"
  exit 0
fi
if [ ! -d "$modules" ]; then
  echo "skipped: $modules is missing (scripts/setup.sh installs the npm packages; it needs the npm registry once)"
  exit 0
fi
NODE_PATH=$modules timeout 120 node "$dir/repro.js" 2>/dev/null
rc=$?
case $rc in
  1) echo "repro.js: still reproduces" ;;
  0) echo "repro.js: NO LONGER REPRODUCES: the library agrees with the reference (update the finding)"
     exit 1 ;;
  *) echo "repro.js: unexpected exit $rc"
     exit 1 ;;
esac
out=$("$convparity" check "$dir"/case*.json --quiet 2>&1)
rc=$?
echo "$out"
if [ $rc -ne 0 ] && grep -q "is unavailable" <<<"$out"; then
  # A case names an adapter whose packages are not installed here (onnxruntime-web, say).
  echo "skipped: an adapter its cases name is not installed here"
  exit 0
fi
if [ $rc -ne 0 ]; then
  echo "convparity check $dir/case*.json: exit $rc (its cases no longer differ as expected)"
  exit 1
fi
