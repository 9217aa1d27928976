#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# cuda-interop.sh CLIP - gst-avhw with GStreamer's own CUDA elements (nvcodec),
# on a machine with an NVIDIA GPU, with the GPU bundle's env.sh sourced.
#   1. avhwdec -> memory:CUDAMemory -> cudadownload gives the same pixels as
#      avhwdec -> avhwdownload (the export path, one device copy);
#   2. cudaupload -> avhwupload (import path) -> avhwdownload round trip is
#      bit-exact;
#   3. cudaconvert on frames from avhwdec (needs NVRTC; reported, not
#      required);
#   4. one pipeline with avhwdec, cudadownload and avhwupload shares one
#      CUDA context: a single avhw device context is created;
#   5. cudaupload straight into avhwenc.
# Prints PASS/FAIL/SKIP per check and 'N passed, N failed, N skipped'.
set -u
CLIP=${1:?usage: cuda-interop.sh CLIP.h264}
D=${DEVICE:-cuda:0}
T=$(mktemp -d)
pass=0 fail=0 skip=0
ok() { echo "PASS $1"; pass=$((pass + 1)); }
ko() { echo "FAIL $1"; tail -n 8 "$T/log"; fail=$((fail + 1)); }
sk() { echo "SKIP $1"; skip=$((skip + 1)); }
run() { timeout 120 gst-launch-1.0 -q "$@" >"$T/log" 2>&1; }
md5() { md5sum "$1" | cut -d' ' -f1; }

if ! gst-inspect-1.0 cudadownload >/dev/null 2>&1; then
  sk "all: GStreamer's nvcodec CUDA elements are not available here"
  echo "$pass passed, $fail failed, $skip skipped"; exit 77
fi

# 1. export
run filesrc location="$CLIP" ! parsebin ! avhwdec device="$D" fallback=false \
  ! avhwdownload ! video/x-raw,format=NV12 ! videocodectestsink location="$T/ref.yuv" \
  || { ko "reference decode (avhwdec ! avhwdownload)"; }
if run filesrc location="$CLIP" ! parsebin ! avhwdec device="$D" fallback=false \
  ! "video/x-raw(memory:CUDAMemory)" ! cudadownload ! video/x-raw,format=NV12 \
  ! videocodectestsink location="$T/cuda.yuv"; then
  if [ -s "$T/ref.yuv" ] && [ "$(md5 "$T/ref.yuv")" = "$(md5 "$T/cuda.yuv")" ]; then
    ok "avhwdec ! memory:CUDAMemory ! cudadownload: same pixels as avhwdownload ($(md5 "$T/cuda.yuv"))"
  else
    ko "avhwdec ! memory:CUDAMemory ! cudadownload: pixels differ"
  fi
else
  ko "avhwdec ! memory:CUDAMemory ! cudadownload"
fi

# 2. import
SRC="videotestsrc num-buffers=30 pattern=smpte ! video/x-raw,format=NV12,width=640,height=360"
run $SRC ! videocodectestsink location="$T/src.yuv"
if run $SRC ! cudaupload ! "video/x-raw(memory:CUDAMemory)" ! avhwupload device="$D" \
  ! avhwdownload ! video/x-raw,format=NV12 ! videocodectestsink location="$T/rt.yuv" \
  && [ "$(md5 "$T/src.yuv")" = "$(md5 "$T/rt.yuv")" ]; then
  ok "cudaupload ! avhwupload ! avhwdownload: bit-exact"
else
  ko "cudaupload ! avhwupload ! avhwdownload"
fi

# 3. cudaconvert (NVRTC)
if ! gst-inspect-1.0 cudaconvert >/dev/null 2>&1; then
  sk "avhwdec ! cudaconvert: no cudaconvert here (nvcodec registers it only with NVRTC)"
elif run filesrc location="$CLIP" ! parsebin ! avhwdec device="$D" fallback=false \
  ! cudaconvert ! "video/x-raw(memory:CUDAMemory),format=I420" ! cudadownload \
  ! videocodectestsink location="$T/i420.yuv"; then
  run filesrc location="$CLIP" ! parsebin ! avhwdec device="$D" fallback=false \
    ! avhwdownload ! videoconvert dither=none ! video/x-raw,format=I420 \
    ! videocodectestsink location="$T/i420ref.yuv"
  if [ "$(md5 "$T/i420.yuv")" = "$(md5 "$T/i420ref.yuv")" ]; then
    ok "avhwdec ! cudaconvert ! cudadownload: equals avhwdownload ! videoconvert"
  else
    ko "avhwdec ! cudaconvert: I420 differs from videoconvert's"
  fi
else
  if grep -qi "nvrtc" "$T/log"; then
    sk "avhwdec ! cudaconvert: cudaconvert needs NVRTC, which this machine lacks ($(grep -i -m1 nvrtc "$T/log"))"
  else
    ko "avhwdec ! cudaconvert ! cudadownload"
  fi
fi

# 4. one context along a mixed pipeline
if GST_DEBUG=avhwbackend:4 timeout 120 gst-launch-1.0 filesrc location="$CLIP" \
  ! parsebin ! avhwdec device="$D" fallback=false ! "video/x-raw(memory:CUDAMemory)" \
  ! cudadownload ! cudaupload ! avhwupload device="$D" ! avhwdownload ! fakesink \
  >"$T/log" 2>&1; then
  n=$(grep -c "created device context" "$T/log")
  if [ "$n" = 1 ]; then
    ok "avhwdec + cudadownload + cudaupload + avhwupload: one avhw device context"
  else
    ko "mixed pipeline created $n avhw device contexts"
  fi
else
  ko "avhwdec + cudadownload + cudaupload + avhwupload"
fi

# 5. cudaupload straight into avhwenc (libx264 fallback here: no NVENC on
#    the test GPU; the hardware-encoder import path needs NVENC)
if run $SRC ! cudaupload ! "video/x-raw(memory:CUDAMemory)" ! avhwenc device="$D" \
  fallback=libx264 ! h264parse ! avdec_h264 ! video/x-raw,format=I420 \
  ! videocodectestsink location="$T/enc.yuv"; then
  frames=$(( $(stat -c %s "$T/enc.yuv") / (640 * 360 * 3 / 2) ))
  if [ "$frames" = 30 ]; then
    ok "cudaupload ! avhwenc (fallback libx264): 30 frames encoded and decoded back"
  else
    ko "cudaupload ! avhwenc: $frames frames instead of 30"
  fi
else
  ko "cudaupload ! avhwenc"
fi

rm -rf "$T"
echo "$pass passed, $fail failed, $skip skipped"
[ "$fail" -eq 0 ]
