#!/usr/bin/env bash
# fuzz_smoke_without_targets.sh <fuzz_smoke.sh>: runs the smoke run on a build folder whose fuzz/
# holds no target; it must fail, naming the missing target (tests/README.md).
set -u
build=$(mktemp -d)
trap 'rm -rf "$build"' EXIT
mkdir -p "$build/fuzz" "$build/harness"
bash "$1" "$build"
