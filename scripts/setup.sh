#!/usr/bin/env bash
# Installs what convparity needs from Debian 12's packages, and the npm packages of the exec:
# adapters. Idempotent: installs only what is missing.
# The adapters' libraries (adapters/): XNNPACK with pthreadpool (its header includes pthreadpool.h),
# Arm NN with its CpuRef backend (a separate package: the backend Arm NN runs on x86-64), oneDNN.
# The python3 packages serve the tests (schema validation, the reports' PyTorch snippets), the
# benchmark against a Hypothesis property and the exec: reference SUT (numpy), and torchvision a
# real network for the ONNX import's test; they use Debian's /usr/bin/python3. libonnx-testdata:
# ONNX's own test models, which the ONNX import's tests import.
# libopenblas0-serial: ATen's float64 convolution (the oracle) reaches GEMM through the system BLAS,
# which is netlib's reference one unless OpenBLAS is installed (README, "Speed"). The serial build
# keeps the oracle on one thread, like ATen's own (aten_conv.h UseOneThread).
# slurm-wlm and munge: the nightly job scripts' test starts a one-node cluster
# (tests/nightly/slurm_test.sh; nothing is started here). chromium: the browser test of
# `convparity report` pages (tests/nightly/report_browser_test.sh), headless, offline.
set -euo pipefail

packages=(
  build-essential cmake ninja-build pkg-config
  libtorch-dev librapidcheck-dev libgtest-dev nlohmann-json3-dev libcli11-dev libbenchmark-dev
  clang-14 libclang-rt-14-dev clang-format
  libxnnpack-dev libpthreadpool-dev libarmnn-dev libarmnn-cpuref-backend22 libdnnl-dev
  libopenblas0-serial
  libonnx-dev libprotobuf-dev libopencv-dnn-dev libonnx-testdata
  python3-jsonschema python3-torch python3-hypothesis python3-numpy python3-torchvision
  slurm-wlm munge chromium
)
# The JavaScript adapters run on Node.js: Debian's, unless a node is installed already.
command -v node >/dev/null || packages+=(nodejs)
command -v npm >/dev/null || packages+=(npm)

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

# The npm packages of the adapters (adapters/*/package-lock.json: pinned versions), and the
# plotting library `convparity report` inlines into its pages (reports/html/package-lock.json),
# installed from the lock file with install scripts off (onnxruntime-node's would download more;
# the library it bundles runs as it is). npm's cache (~/.npm) keeps them: later installs work
# offline. Nothing is downloaded at run time. Without the registry an adapter is reported
# unavailable (`convparity list`) and its tests are skipped; nothing else fails.
cd "$(dirname "$0")/.."
for lock in adapters/*/package-lock.json reports/html/package-lock.json; do
  dir=$(dirname "$lock")
  stamp=$dir/node_modules/.convparity-installed
  want=$(sha256sum "$lock" | cut -d' ' -f1)
  [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$want" ] && continue
  log=$(mktemp)
  if timeout 900 npm ci --prefix "$dir" --ignore-scripts --no-audit --no-fund --prefer-offline \
      --fetch-retries 1 >"$log" 2>&1; then
    echo "$want" >"$stamp"
    echo "setup: installed the npm packages of $dir"
  else
    echo "setup: the packages of $dir are unavailable: npm ci failed ($(grep -m1 -i 'err' "$log" ||
      tail -n 1 "$log")); its tests will be skipped"
  fi
  rm -f "$log"
done
