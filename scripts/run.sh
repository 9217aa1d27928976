#!/usr/bin/env bash
# README's main command: installs dependencies, builds, lists the devices,
# then decodes a 1080p H.264 clip on the best device present (DEVICE=... to
# pick one: vulkan, opencl, cuda:0; CLIP=... to decode your own file).
# Without a GPU, FFmpeg 5.1 has no Vulkan/OpenCL decoder: avhwdec says so,
# decodes in software and uploads into the device's memory.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/builddir.sh

bash scripts/deps.sh
bash scripts/build.sh
export GST_PLUGIN_PATH="$PWD/$BUILD_DIR/ext/avhw:$PWD/$BUILD_DIR/backends${GST_PLUGIN_PATH:+:$GST_PLUGIN_PATH}"
export LD_LIBRARY_PATH="$PWD/$BUILD_DIR/gst/avhw${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
device="${DEVICE:-auto}"

"$BUILD_DIR"/tools/gst-avhw-info
echo

clip="${CLIP:-$BUILD_DIR/clip-1080p.h264}"
if [ ! -f "$clip" ]; then
  echo "== making $clip (300 frames, 1920x1080, x264)"
  ffmpeg -v error -y -f lavfi -i testsrc2=size=1920x1080:rate=30 -frames:v 300 \
    -c:v libx264 -preset veryfast -bf 2 -g 60 "$clip"
fi

decode() {  # $1: what comes after avhwdec
  local start end
  start=$(date +%s%N)
  gst-launch-1.0 filesrc location="$clip" ! parsebin \
    ! avhwdec device="$device" ! $1 ! fakesink 2>&1 \
    | grep -v -E "^(Setting pipeline|Pipeline is|Redistribute|New clock|Got EOS|Freeing|Execution ended|Prerolled)" || true
  end=$(date +%s%N)
  echo "   $(( (end - start) / 1000000 )) ms for the pipeline, start-up included"
}

echo "== decode $clip on device $device, frames kept in device memory"
decode "video/x-raw(ANY)"
echo "== decode $clip on device $device, downloaded to system memory"
decode "avhwdownload ! video/x-raw"
