#!/usr/bin/env bash
# Builds a oneDNN release from its source, outside the repository, and runs every oneDNN finding
# against it: each standalone reproduction (findings/onednn-*/repro.cc, ctest finding_onednn-*) and
# the findings' cases through the adapter (ctest findings_onednn_cases), with convparity built
# against that oneDNN (-DCONVPARITY_DNNL_ROOT, adapters/onednn/README.md). It fetches nothing: the
# source is what the user gives it.
#
# Usage: newest_onednn.sh <oneDNN source> [--ref TAG] [--scratch DIR] [--jobs N]
#   <oneDNN source>: a source tree (with CMakeLists.txt), or a git directory (a clone or a bare
#     mirror), from which --ref (default: the newest release tag, vX.Y[.Z] without -rc / -pc) is
#     exported into <scratch>/src-<ref>.
#   --scratch: where the source, the builds and the install go (default /work/scratch/onednn;
#     never inside the repository, and nothing there is committed).
#   --jobs: parallel compile jobs (default 2); the builds run under `nice -n ${NICE:-15}`.
# oneDNN is built for the CPU only and for what the adapter and the reproductions use: the
# convolution, deconvolution and reorder primitives, training workloads (the backward directions),
# no graph API, tests, examples or documentation. It prints one line per finding and exits 0 when
# every step ran (whether or not the findings reproduce: the lines say).
set -euo pipefail

repo=$(cd "$(dirname "$0")/.." && pwd)
usage() {
  echo "usage: $0 <oneDNN source tree or git dir> [--ref TAG] [--scratch DIR] [--jobs N]" >&2
  exit 2
}
source_arg='' ref='' scratch=/work/scratch/onednn jobs=2
while (($#)); do
  case $1 in
    --ref) ref=${2:?}; shift 2 ;;
    --scratch) scratch=${2:?}; shift 2 ;;
    --jobs) jobs=${2:?}; shift 2 ;;
    -*) usage ;;
    *) [ -z "$source_arg" ] || usage; source_arg=$1; shift ;;
  esac
done
[ -n "$source_arg" ] || usage
[ -d "$source_arg" ] || { echo "$0: $source_arg: no such folder" >&2; exit 2; }
case $(realpath -m "$scratch")/ in
  "$repo"/*) echo "$0: --scratch $scratch is inside the repository; build elsewhere" >&2; exit 2 ;;
esac
mkdir -p "$scratch"

if [ -f "$source_arg/CMakeLists.txt" ]; then
  src=$(cd "$source_arg" && pwd)
  label=${ref:-$(basename "$src")}
else
  git_dir=$(git -C "$source_arg" rev-parse --git-dir 2>/dev/null) ||
    { echo "$0: $source_arg is neither a source tree nor a git directory" >&2; exit 2; }
  git_dir=$(cd "$source_arg" && cd "$git_dir" && pwd)
  if [ -z "$ref" ]; then
    ref=$(git --git-dir="$git_dir" tag --list 'v[0-9]*' |
      grep -E '^v[0-9]+\.[0-9]+(\.[0-9]+)?$' | sort -V | tail -1)
    [ -n "$ref" ] || { echo "$0: no release tag in $git_dir" >&2; exit 2; }
  fi
  label=$ref
  src=$scratch/src-$ref
  if [ ! -f "$src/CMakeLists.txt" ]; then
    mkdir -p "$src"
    git --git-dir="$git_dir" archive --format=tar "$ref" | tar -x -C "$src"
  fi
  commit=$(git --git-dir="$git_dir" rev-parse --short "$ref^{commit}")
  echo "oneDNN $ref ($commit) exported to $src"
fi

build=$scratch/build-$label install=$scratch/install-$label
if [ ! -f "$install/include/oneapi/dnnl/dnnl.hpp" ]; then
  cmake -S "$src" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release \
    -DCMAKE_INSTALL_PREFIX="$install" \
    -DONEDNN_BUILD_TESTS=OFF -DONEDNN_BUILD_EXAMPLES=OFF -DONEDNN_BUILD_DOC=OFF \
    -DONEDNN_BUILD_GRAPH=OFF -DONEDNN_GPU_RUNTIME=NONE -DONEDNN_ENABLE_WORKLOAD=TRAINING \
    "-DONEDNN_ENABLE_PRIMITIVE=CONVOLUTION;DECONVOLUTION;REORDER" \
    -DONEDNN_ENABLE_JIT_PROFILING=OFF -DONEDNN_ENABLE_ITT_TASKS=OFF >"$scratch/configure-$label.log"
  nice -n "${NICE:-15}" cmake --build "$build" --target install -j "$jobs" \
    >"$scratch/build-$label.log"
fi
echo "oneDNN installed in $install"

# convparity against that install: only what the findings need.
cp_build=$scratch/convparity-$label
# The default preset's settings, so that a compiler cache (CMAKE_CXX_COMPILER_LAUNCHER) serves it.
cmake -S "$repo" -B "$cp_build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DCMAKE_CXX_COMPILER=g++ -DCMAKE_C_COMPILER=gcc -DCONVPARITY_DNNL_ROOT="$install" \
  >"$scratch/convparity-configure-$label.log"
targets=(convparity convparity_onednn)
for dir in "$repo"/findings/onednn-*/; do targets+=("finding_$(basename "$dir")"); done
nice -n "${NICE:-15}" cmake --build "$cp_build" --target "${targets[@]}" -j "$jobs" \
  >"$scratch/convparity-build-$label.log"

echo "CPU: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'); avx512_core: $(
  grep -q -w avx512bw /proc/cpuinfo && echo yes || echo no)"
set +e
(cd "$cp_build" && ctest -R '^findings?_onednn' --output-on-failure) >"$scratch/ctest-$label.log"
set -e
for dir in "$repo"/findings/onednn-*/; do
  name=$(basename "$dir")
  set +e
  out=$(timeout 120 "$cp_build/findings/$name/finding_$name" 2>&1)
  rc=$?
  set -e
  case $rc in
    0) verdict="does not reproduce (the library agrees with the reference)" ;;
    1) verdict="reproduces (wrong values)" ;;
    77) verdict="not runnable on this CPU (exit 77: the implementation involved is absent)" ;;
    13[0-9]) verdict="reproduces (killed by signal $((rc - 128)))" ;;
    *) verdict="exit $rc" ;;
  esac
  echo "$name on oneDNN $label: $verdict; $(echo "$out" | tail -1)"
done
echo "ctest (finding_onednn-*, findings_onednn_cases): $(grep -E 'tests passed|tests failed' \
  "$scratch/ctest-$label.log" | tail -1); log $scratch/ctest-$label.log"
