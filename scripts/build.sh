#!/usr/bin/env bash
# Configures and builds a preset (default: g++), every target or the ones named.
# Usage: scripts/build.sh [preset [target…]]
set -euo pipefail
cd "$(dirname "$0")/.."
preset=${1:-default}
shift || true
bash scripts/setup.sh
cmake --preset "$preset" >/dev/null
targets=()
for t in "$@"; do targets+=(--target "$t"); done
cmake --build --preset "$preset" -j "$(nproc)" "${targets[@]}"
