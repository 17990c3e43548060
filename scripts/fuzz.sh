#!/usr/bin/env bash
# The README's main job: set-up, build, the default fuzz campaign (extra arguments go to `convparity fuzz`).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/build.sh default
exec ./build/harness/convparity fuzz "$@"
