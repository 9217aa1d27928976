#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# cuda-kernels.sh - the CUDA backend's convert-and-scale kernel on the GPU
# machine, which has the driver and no GStreamer: tests/check's
# libs_cuda_kernels needs GLib and libcuda only, so it travels as one
# binary with GLib linked in statically.
#
#   bash tests/gpu/cuda-kernels.sh make NAME   # dev machine, after a build
#   bash tests/gpu/cuda-kernels.sh run         # GPU machine, .gpu carried
#
# make: links $BUILD_DIR's (scripts/builddir.sh) test objects into
# ${GPU_DIR:-.gpu}/cuda-kernel/ck-NAME and copies its PTX to NAME.ptx. One
# NAME per build: e.g. a default build with a toolkit (nvcc, cubins) and
# one with -Dcuda-kernel-compiler=clang and no ptxas on the PATH (PTX only).
# run: for each ck-*: the device half of the test with the benchmark
# (AVHW_TEST_HW=1 AVHW_CUDA_BENCH=1), the PTX's load with the JIT cache
# off, ptxas -v for sm_90 on each PTX, and compute-sanitizer's memcheck
# on the conversions; outputs under $OUT.
set -uo pipefail
cd "$(dirname "$0")/../.."
dir=${GPU_DIR:-.gpu}/cuda-kernel
case "${1:-}" in
  make)
    name=${2:?make NAME}
    . scripts/builddir.sh
    objs=$(find "$BUILD_DIR/tests/check/libs_cuda_kernels.p" -name '*.o')
    [ -n "$objs" ] || { echo "cuda-kernels: no test objects in $BUILD_DIR" >&2; exit 1; }
    mkdir -p "$dir"
    # glibc's static-link warnings (getpwnam in GLib) are noise here
    gcc -o "$dir/ck-$name" $objs -Wl,-Bstatic -lglib-2.0 -lpcre2-8 \
      -Wl,-Bdynamic -lm -ldl -pthread 2>/dev/null \
      || { echo "cuda-kernels: linking failed" >&2; exit 1; }
    cp "$BUILD_DIR/backends/cuda/kernels/avhw-convert.ptx" "$dir/$name.ptx"
    ls -la "$dir"
    ;;
  run)
    : "${OUT:=/tmp/cuda-kernels-out}"
    mkdir -p "$OUT"
    cd "$dir" || { echo "cuda-kernels: no $dir (carry it)" >&2; exit 3; }
    export LD_LIBRARY_PATH=/usr/local/nvidia/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
    bin=/usr/local/cuda/bin
    [ -x $bin/ptxas ] || bin=$(ls -d /usr/local/cuda-*/bin 2>/dev/null | tail -n1)
    nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
    rc=0
    for b in ck-*; do
      v=${b#ck-}
      AVHW_TEST_HW=1 AVHW_CUDA_BENCH=1 ./"$b" > "$OUT/$v.txt" 2>&1
      r=$?; [ $r -eq 0 ] || rc=1
      echo "== $v: rc=$r"
      grep -E "loaded|bench:|conversions match|Bail|ERROR" "$OUT/$v.txt"
      CUDA_CACHE_DISABLE=1 AVHW_TEST_HW=1 GST_AVHW_CUDA_KERNELS=ptx ./"$b" \
        -p /cuda-kernels-gpu/load 2>&1 | grep loaded | sed 's/^/JIT cache off: /'
      "$bin/ptxas" -v --gpu-name sm_90 "$v.ptx" -o /dev/null 2>&1 \
        | grep -E "registers|spill" | sort | uniq -c
      if [ ! -x "$bin/compute-sanitizer" ]; then
        echo "memcheck: not run, no compute-sanitizer in $bin"; rc=1; continue
      fi
      # one API error is expected: the test looks up a kernel that is not there
      AVHW_TEST_HW=1 timeout 150 "$bin/compute-sanitizer" --tool memcheck \
        ./"$b" -p /cuda-kernels-gpu/load -p /cuda-kernels-gpu/conversions \
        > "$OUT/$v-memcheck.txt" 2>&1
      r=$?; [ $r -eq 0 ] || rc=1
      echo "memcheck: rc=$r; $(grep -c 'Invalid' "$OUT/$v-memcheck.txt") invalid accesses;" \
        "$(grep 'ERROR SUMMARY' "$OUT/$v-memcheck.txt")"
    done
    exit $rc
    ;;
  *)
    sed -n '3,18p' "$0"; exit 2 ;;
esac
