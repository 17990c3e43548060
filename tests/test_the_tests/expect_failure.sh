#!/usr/bin/env bash
# expect_failure.sh <pattern> -- command…: runs a test against behaviour broken on purpose (the
# "test the tests" demonstrations, tests/README.md) and passes only when the test fails, with
# output matching <pattern> (an extended regex): the failure the test exists to report, not just
# any. Prints the test's last lines either way, so the log shows it biting.
set -u
pattern=$1
shift 2
out=$(mktemp)
trap 'rm -f "$out"' EXIT
"$@" >"$out" 2>&1
code=$?
echo "--- the guarded test against broken behaviour: exit $code; its last lines:"
tail -n 12 "$out"
echo "---"
if [ "$code" -eq 0 ]; then
  echo "NO BITE: the test passed although what it guards is broken"
  exit 1
fi
if ! grep -qE -- "$pattern" "$out"; then
  echo "NO BITE: the test failed, but without /$pattern/"
  exit 1
fi
echo "bites: the test failed with /$pattern/"
