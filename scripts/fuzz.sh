#!/usr/bin/env bash
# The README's main job: set-up, build, the default fuzz campaign (extra arguments go to `convparity fuzz`).
# Builds the campaign's program alone: the tests and benchmarks are scripts/test.sh's, and a fresh
# machine reaches its first check several minutes sooner without them.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/build.sh default convparity
exec ./build/harness/convparity fuzz "$@"
