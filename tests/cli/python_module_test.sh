#!/usr/bin/env bash
# python_module_test.sh <module>: Debian's python3 imports the module the tests need (jsonschema:
# schema validation; torch: the reports' PyTorch snippets). Under CI=true a missing one is a
# failure; elsewhere ctest shows this test as skipped (its SKIP_REGULAR_EXPRESSION), because the
# tests that need the module then check less.
py=/usr/bin/python3
if $py -c "import $1" 2>/dev/null; then
  echo "$py imports $1"
  exit 0
fi
if [ "${CI:-}" = true ]; then
  echo "FAIL: $py cannot import $1, and CI=true (scripts/setup.sh installs python3-$1)"
  exit 1
fi
echo "SKIPPED: $py cannot import $1 (scripts/setup.sh installs python3-$1); the tests that need it check less"
