#!/usr/bin/env bash
# README's main command: installs dependencies, builds, lists the devices,
# then runs a real pipeline on the best device present (DEVICE=... to pick
# one: vulkan, opencl, cuda:0).
set -euo pipefail
cd "$(dirname "$0")/.."

bash scripts/deps.sh
bash scripts/build.sh
export GST_PLUGIN_PATH="$PWD/build/ext/avhw:$PWD/build/backends${GST_PLUGIN_PATH:+:$GST_PLUGIN_PATH}"
export LD_LIBRARY_PATH="$PWD/build/gst/avhw${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
device="${DEVICE:-auto}"

build/tools/gst-avhw-info
echo
echo "== 300 frames 1920x1080 NV12 through device $device: upload, download"
set -x
gst-launch-1.0 -e videotestsrc num-buffers=300 \
  ! video/x-raw,format=NV12,width=1920,height=1080 \
  ! avhwupload device="$device" ! avhwdownload ! fpsdisplaysink \
  video-sink=fakesink text-overlay=false sync=false -v 2>&1 \
  | grep -E "last-message|ERROR|Execution ended" | tail -3
