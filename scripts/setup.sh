#!/usr/bin/env bash
# Installs what convparity needs from Debian 12's packages. Idempotent: installs only what is missing.
# The adapters' libraries (adapters/): XNNPACK with pthreadpool (its header includes pthreadpool.h),
# Arm NN with its CpuRef backend (a separate package: the backend Arm NN runs on x86-64).
# The python3 packages serve the tests (schema validation, the reports' PyTorch snippets) and the
# benchmark against a Hypothesis property; they use Debian's /usr/bin/python3.
set -euo pipefail

packages=(
  build-essential cmake ninja-build pkg-config
  libtorch-dev librapidcheck-dev libgtest-dev nlohmann-json3-dev libcli11-dev libbenchmark-dev
  clang-14 libclang-rt-14-dev clang-format
  libxnnpack-dev libpthreadpool-dev libarmnn-dev libarmnn-cpuref-backend22
  python3-jsonschema python3-torch python3-hypothesis
)

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  echo "setup: installing ${missing[*]}"
  sudo_cmd=()
  [ "$(id -u)" -eq 0 ] || sudo_cmd=(sudo)
  "${sudo_cmd[@]}" apt-get update -qq
  DEBIAN_FRONTEND=noninteractive "${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi
