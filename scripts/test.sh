#!/usr/bin/env bash
# The README's test command: set-up, build, the whole test suite.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/build.sh default
ctest --preset default
