#!/usr/bin/env bash
# nightly_properties.sh <build dir> [cases per property]: the property tests with a fresh seed.
# ctest runs every property on the same 1000 cases (a fixed seed, so that CI is reproducible); a
# night draws new ones: a seed from /dev/urandom (or $CONVPARITY_NIGHTLY_SEED), printed first, so
# that a failure replays with
#   RC_PARAMS="seed=<seed> max_success=<cases>" <build dir>/tests/<binary> --gtest_filter=<test>
# (RapidCheck also prints each failure's own reproduce string). Then the known bugs' searches in a
# campaign's default space, which ctest leaves out (slow): each must find its bug on every seed.
# Exits non-zero when any of them fails. Takes about <cases>/1000 times what unit_tests and
# parity_tests take under ctest, plus the searches.
set -uo pipefail
if [ $# -lt 1 ] || [ ! -x "$1/tests/unit_tests" ] || [ ! -x "$1/tests/parity_tests" ]; then
  echo "usage: nightly_properties.sh <build dir with unit_tests and parity_tests> [cases]" >&2
  exit 2
fi
BUILD=$(cd "$1" && pwd)
CASES=${2:-10000}
SRC=$(cd "$(dirname "$0")/.." && pwd)
seed=${CONVPARITY_NIGHTLY_SEED:-$(od -An -N4 -tu4 /dev/urandom | tr -d ' ')}
echo "nightly properties: seed $seed, $CASES cases per property"
echo "replay: RC_PARAMS=\"seed=$seed max_success=$CASES\" $BUILD/tests/<unit_tests|parity_tests> --gtest_filter=<test>"
export RC_PARAMS="seed=$seed max_success=$CASES"
export CONVPARITY_SHARED=$SRC/../shared
status=0
"$BUILD/tests/unit_tests" --gtest_filter=-ReportsPythonSnippets.* || status=1
"$BUILD/tests/parity_tests" --gtest_filter=-*FoundAndShrunkInTheDefaultSpace* || status=1
CONVPARITY_BUG_MEASURE=1 CONVPARITY_BUG_SEEDS=3 \
  "$BUILD/tests/parity_tests" --gtest_filter=*FoundAndShrunkInTheDefaultSpace* || status=1
echo "nightly properties: seed $seed: $([ $status -eq 0 ] && echo passed || echo FAILED)"
exit $status
