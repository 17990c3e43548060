#!/usr/bin/env bash
# Builds XNNPACK from its source (its head: XNNPACK publishes no releases), outside the repository,
# and runs every XNNPACK finding against it: each standalone reproduction (findings/xnnpack-*/
# repro.c) and, unless --no-convparity, each finding's case file through the adapter, with
# convparity built against that XNNPACK (-DCONVPARITY_XNNPACK_ROOT,
# adapters/xnnpack/CMakeLists.txt).
# It downloads nothing: the sources are what the user gives it. XNNPACK's head needs a pthreadpool
# newer than Debian 12's (the pthreadpool_*_dynamic and pthreadpool_create_v2 functions), so
# pthreadpool, cpuinfo and FXdiv are built from the sources given too, inside XNNPACK's build (its
# CPUINFO_SOURCE_DIR, PTHREADPOOL_SOURCE_DIR, FXDIV_SOURCE_DIR; nothing is downloaded).
#
# Usage: newest_xnnpack.sh <XNNPACK> --pthreadpool <src> --cpuinfo <src> --fxdiv <src>
#          [--ref REF] [--scratch DIR] [--jobs N] [--no-convparity]
#   each source: a source tree (with CMakeLists.txt) or a git directory (a clone or a bare mirror),
#     whose HEAD (for XNNPACK: --ref, default HEAD) is exported into <scratch>/src-<name>-<commit>.
#   --scratch: where the sources, the builds and the installs go (default /work/scratch/xnnpack;
#     never inside the repository, and nothing there is committed).
#   --jobs: parallel compile jobs (default 2); the builds run under `nice -n ${NICE:-15}`.
#
# XNNPACK is built twice, as a shared library, without tests, benchmarks or the micro-kernels no
# configuration uses (XNNPACK_BUILD_ALL_MICROKERNELS=OFF), and without the ISA extensions above
# AVX2 (AVX-512, AVX-VNNI, AMX: both findings are in operator code and in SSE kernels):
#   avx2:   every x86 ISA up to AVX2, what an AVX2 machine runs;
#   no-avx: XNNPACK_ENABLE_AVX=OFF (and F16C, FMA3, AVX2), what XNNPACK runs on an x86 CPU without
#           AVX. Since XNNPACK 41e87ce (2023-04) the NCHW convolution (its CHW configs) exists
#           only there on x86: on a CPU with AVX, xnn_create_convolution2d_nchw_f32 returns
#           xnn_status_unsupported_hardware (5), so xnnpack-2 can be reached only in this build (and
#           on Arm, WebAssembly and RISC-V).
# The reproductions are written against Debian 12's operator API (2022); for a newer XNNPACK they
# are compiled unchanged with a header that maps those calls onto today's (create takes a weights
# cache, setup is split into reshape and setup). It prints one line per finding and configuration
# and exits 0 when every step ran (whether or not the findings reproduce: the lines say).
set -euo pipefail

repo=$(cd "$(dirname "$0")/.." && pwd)
usage() {
  echo "usage: $0 <XNNPACK> --pthreadpool <src> --cpuinfo <src> --fxdiv <src>" \
    "[--ref REF] [--scratch DIR] [--jobs N] [--no-convparity]" >&2
  exit 2
}
xnnpack_arg='' pthreadpool_arg='' cpuinfo_arg='' fxdiv_arg='' ref=HEAD
scratch=/work/scratch/xnnpack jobs=2 with_convparity=1
while (($#)); do
  case $1 in
    --pthreadpool) pthreadpool_arg=${2:?}; shift 2 ;;
    --cpuinfo) cpuinfo_arg=${2:?}; shift 2 ;;
    --fxdiv) fxdiv_arg=${2:?}; shift 2 ;;
    --ref) ref=${2:?}; shift 2 ;;
    --scratch) scratch=${2:?}; shift 2 ;;
    --jobs) jobs=${2:?}; shift 2 ;;
    --no-convparity) with_convparity=0; shift ;;
    -*) usage ;;
    *) [ -z "$xnnpack_arg" ] || usage; xnnpack_arg=$1; shift ;;
  esac
done
for arg in "$xnnpack_arg" "$pthreadpool_arg" "$cpuinfo_arg" "$fxdiv_arg"; do
  [ -n "$arg" ] || usage
done
case $(realpath -m "$scratch")/ in
  "$repo"/*) echo "$0: --scratch $scratch is inside the repository; build elsewhere" >&2; exit 2 ;;
esac
mkdir -p "$scratch"
scratch=$(cd "$scratch" && pwd)

# source <name> <tree or git dir> <ref>: prints the source tree, exporting <ref> of a git dir.
source_tree() {
  local name=$1 arg=$2 at=$3 git_dir commit
  [ -d "$arg" ] || { echo "$0: $arg: no such folder" >&2; exit 2; }
  if [ -f "$arg/CMakeLists.txt" ]; then
    (cd "$arg" && pwd)
    echo "$name: source tree $arg" >&2
    return
  fi
  git_dir=$(git -C "$arg" rev-parse --git-dir 2>/dev/null) ||
    { echo "$0: $arg is neither a source tree nor a git directory" >&2; exit 2; }
  git_dir=$(cd "$arg" && cd "$git_dir" && pwd)
  commit=$(git --git-dir="$git_dir" rev-parse "$at^{commit}")
  local src=$scratch/src-$name-${commit:0:10}
  if [ ! -f "$src/CMakeLists.txt" ]; then
    mkdir -p "$src"
    git --git-dir="$git_dir" archive --format=tar "$commit" | tar -x -C "$src"
  fi
  echo "$name: $(git --git-dir="$git_dir" log -1 --format='%h (%cd) %s' --date=short "$commit")" >&2
  echo "$src"
}
xnnpack_src=$(source_tree xnnpack "$xnnpack_arg" "$ref")
pthreadpool_src=$(source_tree pthreadpool "$pthreadpool_arg" HEAD)
cpuinfo_src=$(source_tree cpuinfo "$cpuinfo_arg" HEAD)
fxdiv_src=$(source_tree fxdiv "$fxdiv_arg" HEAD)
label=$(basename "$xnnpack_src")
label=${label#src-}

above_avx2=()
for isa in AVXVNNI AVXVNNIINT8 AVX256SKX AVX256VNNI AVX256VNNIGFNI AVX512F AVX512SKX AVX512VBMI \
  AVX512VNNI AVX512VNNIGFNI AVX512AMX AVX512FP16 AVX512BF16; do
  above_avx2+=("-DXNNPACK_ENABLE_$isa=OFF")
done
configs=(avx2 no-avx)
declare -A config_flags=(
  [avx2]=""
  [no-avx]="-DXNNPACK_ENABLE_AVX=OFF -DXNNPACK_ENABLE_F16C=OFF -DXNNPACK_ENABLE_FMA3=OFF
    -DXNNPACK_ENABLE_AVX2=OFF"
)
for config in "${configs[@]}"; do
  build=$scratch/build-$label-$config install=$scratch/install-$label-$config
  [ -f "$install/include/xnnpack.h" ] && continue
  # shellcheck disable=SC2086  # config_flags holds several flags
  cmake -S "$xnnpack_src" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release \
    -DCMAKE_INSTALL_PREFIX="$install" -DXNNPACK_LIBRARY_TYPE=shared \
    -DCMAKE_POSITION_INDEPENDENT_CODE=ON -DXNNPACK_BUILD_TESTS=OFF -DXNNPACK_BUILD_BENCHMARKS=OFF \
    -DXNNPACK_BUILD_ALL_MICROKERNELS=OFF "${above_avx2[@]}" ${config_flags[$config]} \
    -DCPUINFO_SOURCE_DIR="$cpuinfo_src" -DPTHREADPOOL_SOURCE_DIR="$pthreadpool_src" \
    -DFXDIV_SOURCE_DIR="$fxdiv_src" >"$scratch/configure-$label-$config.log"
  start=$SECONDS
  nice -n "${NICE:-15}" cmake --build "$build" --target install -j "$jobs" \
    >"$scratch/build-$label-$config.log"
  echo "XNNPACK ($config) built in $((SECONDS - start)) s, installed in $install"
done

# The reproductions' 2022 calls, on today's API.
shim=$scratch/xnnpack_2022_api.h
cat >"$shim" <<'EOF'
/* Debian 12's XNNPACK operator API (2022) on a newer XNNPACK: create takes a weights cache (NULL),
 * setup is split into reshape (sizes) and setup (pointers). Included before a reproduction. */
#include <xnnpack.h>

static inline enum xnn_status compat_create_deconvolution2d_nhwc_f32(
    uint32_t pt, uint32_t pr, uint32_t pb, uint32_t pl, uint32_t kh, uint32_t kw, uint32_t sh,
    uint32_t sw, uint32_t dh, uint32_t dw, uint32_t groups, size_t gic, size_t goc, size_t ips,
    size_t ops, const float* kernel, const float* bias, float lo, float hi, uint32_t flags,
    xnn_operator_t* op) {
  return xnn_create_deconvolution2d_nhwc_f32(pt, pr, pb, pl, kh, kw, sh, sw, dh, dw, groups, gic,
                                             goc, ips, ops, kernel, bias, lo, hi, flags, NULL, op);
}

static inline enum xnn_status compat_setup_deconvolution2d_nhwc_f32(
    xnn_operator_t op, size_t n, size_t h, size_t w, uint32_t adj_h, uint32_t adj_w,
    const float* input, float* output, pthreadpool_t threadpool) {
  size_t out_h = 0, out_w = 0;
  enum xnn_status s = xnn_reshape_deconvolution2d_nhwc_f32(op, n, h, w, adj_h, adj_w, &out_h,
                                                           &out_w, threadpool);
  if (s != xnn_status_success) return s;
  return xnn_setup_deconvolution2d_nhwc_f32(op, input, output);
}

static inline enum xnn_status compat_create_convolution2d_nchw_f32(
    uint32_t pt, uint32_t pr, uint32_t pb, uint32_t pl, uint32_t kh, uint32_t kw, uint32_t sh,
    uint32_t sw, uint32_t dh, uint32_t dw, uint32_t groups, size_t gic, size_t goc, size_t ics,
    size_t ocs, const float* kernel, const float* bias, float lo, float hi, uint32_t flags,
    xnn_operator_t* op) {
  return xnn_create_convolution2d_nchw_f32(pt, pr, pb, pl, kh, kw, sh, sw, dh, dw, groups, gic,
                                           goc, ics, ocs, kernel, bias, lo, hi, flags, NULL, op);
}

static inline enum xnn_status compat_setup_convolution2d_nchw_f32(
    xnn_operator_t op, size_t n, size_t h, size_t w, const float* input, float* output,
    pthreadpool_t threadpool) {
  size_t out_h = 0, out_w = 0;
  enum xnn_status s =
      xnn_reshape_convolution2d_nchw_f32(op, n, h, w, &out_h, &out_w, threadpool);
  if (s != xnn_status_success) return s;
  return xnn_setup_convolution2d_nchw_f32(op, input, output);
}

#define xnn_create_deconvolution2d_nhwc_f32 compat_create_deconvolution2d_nhwc_f32
#define xnn_setup_deconvolution2d_nhwc_f32 compat_setup_deconvolution2d_nhwc_f32
#define xnn_create_convolution2d_nchw_f32 compat_create_convolution2d_nchw_f32
#define xnn_setup_convolution2d_nchw_f32 compat_setup_convolution2d_nchw_f32
EOF

echo "CPU: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'); avx: $(
  grep -q -w avx /proc/cpuinfo && echo yes || echo no)"
verdict() {  # verdict <exit status> <output>
  case $1 in
    0) echo "does not reproduce (the library agrees with the reference)" ;;
    1) echo "reproduces (wrong values)" ;;
    2) echo "not reached: a call failed ($(grep -m1 -o 'status [0-9]*' <<<"$2" || echo '?'))" ;;
    13[0-9]) echo "reproduces (killed by signal $(($1 - 128)))" ;;
    *) echo "exit $1" ;;
  esac
}
for config in "${configs[@]}"; do
  install=$scratch/install-$label-$config
  include=()
  if grep -q xnn_reshape_convolution2d_nchw_f32 "$install/include/xnnpack.h"; then
    include=(-include "$shim")
  fi
  for dir in "$repo"/findings/xnnpack-*/; do
    name=$(basename "$dir") program=$scratch/$name-$label-$config
    cc -O2 -w -I"$install/include" "${include[@]}" "$dir/repro.c" -L"$install/lib" \
      -Wl,-rpath,"$install/lib" -lXNNPACK -lm -o "$program"
    set +e
    out=$(timeout 120 "$program" 2>&1)
    rc=$?
    set -e
    echo "$name on XNNPACK $label ($config): $(verdict $rc "$out"); $(echo "$out" | tail -1)"
  done
done
((with_convparity)) || exit 0

# convparity against the avx2 install, only the XNNPACK adapter; the no-avx library is swapped in
# at run time (same soname, the plugin's RUNPATH yields to LD_LIBRARY_PATH).
cp_build=$scratch/convparity-$label
cmake -S "$repo" -B "$cp_build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DCMAKE_CXX_COMPILER=g++ -DCMAKE_C_COMPILER=gcc -DCONVPARITY_BUILD_TESTS=OFF \
  -DCONVPARITY_BUILD_BENCH=OFF -DCONVPARITY_WITH_ARMNN=OFF -DCONVPARITY_WITH_ONEDNN=OFF \
  -DCONVPARITY_WITH_TORCHSCRIPT=OFF -DCONVPARITY_XNNPACK_ROOT="$scratch/install-$label-avx2" \
  >"$scratch/convparity-configure-$label.log"
start=$SECONDS
nice -n "${NICE:-15}" cmake --build "$cp_build" --target convparity -j "$jobs" \
  >"$scratch/convparity-build-$label.log"
echo "convparity built in $((SECONDS - start)) s"
for config in "${configs[@]}"; do
  for dir in "$repo"/findings/xnnpack-*/; do
    name=$(basename "$dir")
    sut=$(sed -n 's/^ *"sut": "\(.*\)".*/\1/p' "$dir/case.json")
    set +e
    out=$(LD_LIBRARY_PATH=$scratch/install-$label-$config/lib timeout 300 \
      "$cp_build/harness/convparity" repro "$dir/case.json" --sut "$sut" 2>&1)
    rc=$?
    set -e
    line=$(grep -m1 -E 'passed|failed|crashed|declined|skipped|error' <<<"$out" ||
      tail -1 <<<"$out")
    echo "$name case on XNNPACK $label ($config), convparity repro --sut $sut: exit $rc; $line"
  done
done
