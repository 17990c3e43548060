#!/usr/bin/env bash
# A real network's convolutions: torchvision's ResNet-18 (its batch dynamic) and MobileNetV2
# (depthwise and pointwise convolutions) with random weights, exported by torch.onnx.export, are
# imported by `convparity import-onnx` whole: as many nodes imported as the network has Conv2d
# modules (PyTorch counts them), none skipped (the output shape of every node is the one ONNX
# infers), the dynamic batch counted; their scaled cases replay as parity on our kernels.
# Skipped without python3-torch and python3-torchvision, except under CI=true.
# Usage: import_onnx_torchvision_test.sh <convparity binary>
set -u
cp=$1
py=/usr/bin/python3
if ! $py -c 'import torch, torchvision' 2>/dev/null; then
  if [ "${CI:-}" = true ]; then
    echo "FAIL: $py cannot import torch and torchvision, and CI=true"
    exit 1
  fi
  echo "skipped: $py cannot import torch and torchvision (scripts/setup.sh installs them)"
  exit 0
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
passed=0 failed=0
check() {  # check <name> <condition…>
  local name=$1
  shift
  if "$@"; then passed=$((passed + 1)); else failed=$((failed + 1)); echo "FAIL $name"; fi
}

start=$(date +%s%N)
# Random weights (no download); a 64×64 input keeps the export quick.
$py - "$tmp" >"$tmp/convs" <<'PY' || { echo "FAIL export"; exit 1; }
import sys
import torch
import torchvision

out = sys.argv[1]
torch.manual_seed(0)
for name, dynamic in (("resnet18", True), ("mobilenet_v2", False)):
    net = getattr(torchvision.models, name)(weights=None).eval()
    axes = {"x": {0: "batch"}, "y": {0: "batch"}} if dynamic else None
    torch.onnx.export(net, torch.randn(1, 3, 64, 64), f"{out}/{name}.onnx", opset_version=13,
                      input_names=["x"], output_names=["y"], dynamic_axes=axes)
    print(sum(isinstance(m, torch.nn.Conv2d) for m in net.modules()))
PY
echo "export: $((($(date +%s%N) - start) / 1000000)) ms"
convs=$(($(paste -sd+ "$tmp/convs")))

start=$(date +%s%N)
"$cp" import-onnx "$tmp/resnet18.onnx" "$tmp/mobilenet_v2.onnx" --direction fwd --fill exact \
  --scale-macs 20000 --out "$tmp/imp" >"$tmp/out" 2>&1
check import-exit [ $? -eq 0 ]
echo "import: $((($(date +%s%N) - start) / 1000000)) ms"
cat "$tmp/out"
check "import-summary ($convs Conv2d modules)" grep -qE \
  "^ONNX import of 2 files: $convs conv nodes read, $convs imported, 0 skipped$" "$tmp/out"
check import-dynamic-batch grep -qE \
  "^  changed +1  batch: a dynamic first dimension of a model input set to 1; .*input 'x'" \
  "$tmp/out"
check import-cases grep -qE "^$convs problems, $convs cases written to " "$tmp/out"
check import-depthwise grep -qlE '"descriptor": "fwd:2d_g[0-9]+_ic[0-9]+' "$tmp"/imp/corpus/*.json

start=$(date +%s%N)
"$cp" check "$tmp/imp/corpus" --quiet >"$tmp/out" 2>&1
check replay-exit [ $? -eq 0 ]
echo "check of $convs cases: $((($(date +%s%N) - start) / 1000000)) ms"

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
