#!/usr/bin/env bash
# Builds the fuzz targets the OSS-Fuzz / ClusterFuzzLite way: the environment gives $CC, $CXX,
# $CFLAGS, $CXXFLAGS (with -fsanitize=fuzzer-no-link and the sanitizer of the build) and
# $LIB_FUZZING_ENGINE; targets, <target>_seed_corpus.zip, .dict and .options go into $OUT.
# By hand: CC=clang-14 CXX=clang++-14 OUT=/tmp/fuzz-out bash fuzz/build.sh
set -euo pipefail
SRC=$(cd "$(dirname "$0")/.." && pwd)
: "${CC:=clang-14}" "${CXX:=clang++-14}" "${OUT:=$SRC/build-fuzz/out}"
: "${CFLAGS:=}" "${CXXFLAGS:=}" "${LIB_FUZZING_ENGINE:=-fsanitize=fuzzer}"
BUILD=${WORK:-$SRC/build-fuzz}/oss-fuzz-build
JOBS=${JOBS:-2}
mkdir -p "$OUT"
cmake -S "$SRC" -B "$BUILD" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DCMAKE_C_COMPILER="$CC" -DCMAKE_CXX_COMPILER="$CXX" \
  -DCMAKE_C_FLAGS="$CFLAGS" -DCMAKE_CXX_FLAGS="$CXXFLAGS" \
  -DCONVPARITY_BUILD_FUZZERS=ON -DCONVPARITY_FUZZING_ENGINE="$LIB_FUZZING_ENGINE" \
  -DCONVPARITY_BUILD_TESTS=OFF -DCONVPARITY_BUILD_BENCH=OFF
targets=(fuzz_parity fuzz_inputs)
[ -f "$SRC/fuzz/fuzz_transforms.cc" ] && targets+=(fuzz_transforms)
cmake --build "$BUILD" -j "$JOBS" --target "${targets[@]}" convparity
# The oracle's library beside the targets: they load it on first use (oracles/oracle_module.h).
cp "$BUILD/lib/convparity/libconvparity_oracle.so" "$OUT/"
for t in "${targets[@]}"; do
  cp "$BUILD/fuzz/$t" "$OUT/"
  for extra in "$t.options" "$t.dict"; do
    [ -f "$SRC/fuzz/$extra" ] && cp "$SRC/fuzz/$extra" "$OUT/"
  done
done
# Seed corpora: the checked-in corpus (and generated cases) encoded by the fuzz targets' decoder.
bash "$SRC/fuzz/make_seeds.sh" "$BUILD/harness/convparity" "$OUT"
