#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# convertscale.sh - decode and scale to 224x224 on the device against the CPU
# path (issue 18, item 3). Prints Markdown.
#
# Usage: convertscale.sh [--device D] [--clips DIR] [--runs R] [--codecs "h264 h265"]
#                        [--size WxH]
#   --device D   avhwdec / avhwconvertscale device (default auto)
#   --clips DIR  folder of make-clips.sh's clips (default .gpu/bench)
#   --size WxH   output size (default 224x224)
#
# Rows per codec (F = DIR/bench-1080p-CODEC.mp4, S = the size), all to
# fakesink sync=false through avhw-bench-decode (fps, CPU ms per frame of the
# whole process):
#   device NV12               avhwdec ! avhwconvertscale ! video/x-raw(memory:M),S,format=NV12
#   device RGBx               the same with format=RGBx: a filter that does no
#                             YUV to RGB (scale_cuda) refuses it, and the row says so
#   device NV12 + download    ... ! avhwdownload (the small frames to system memory)
#   CPU NV12 / CPU RGBx       avhwdec ! avhwdownload ! videoconvertscale ! video/x-raw,S,format=...
#   ffmpeg scale_cuda (CUDA)  ffmpeg -hwaccel cuda -hwaccel_output_format cuda -i F
#                             -vf scale_cuda=W:H -f null -
set -u
. "$(dirname "$0")/bench-lib.sh"
DEVICE=auto
CLIPS=$TOP/.gpu/bench
RUNS=1
CODECS="h264 h265"
SIZE=224x224
while [ $# -gt 0 ]; do
    case "$1" in
        --device) DEVICE=$2; shift 2 ;;
        --clips) CLIPS=$2; shift 2 ;;
        --runs) RUNS=$2; shift 2 ;;
        --codecs) CODECS=$2; shift 2 ;;
        --size) SIZE=$2; shift 2 ;;
        -h|--help) sed -n '2,/^set -u/{/^set -u/d;s/^# \{0,1\}//;p}' "$0"; exit 0 ;;
        *) echo "convertscale: unknown argument $1" >&2; exit 2 ;;
    esac
done
find_bench_bin
export BENCH_NAME=convertscale
W=${SIZE%x*} H=${SIZE#*x}
case "$DEVICE" in
    cuda*) MEM=memory:AVHWCUDA ;;
    vulkan*) MEM=memory:AVHWVulkan ;;
    vaapi*) MEM=memory:AVHWVAAPI ;;
    opencl*) MEM=memory:AVHWOpenCL ;;
    *) MEM=$(gst-avhw-info 2>/dev/null | sed -n 's/.*\[\(memory:[A-Za-z]*\)\] (device=auto).*/\1/p' | head -n1) ;;
esac
SINK="fakesink name=sink sync=false"
S="width=$W,height=$H"

echo "## Decode and scale to ${W}x${H} (device=$DEVICE, $MEM)"
echo
machine_info
echo
HEADER=--header
for c in $CODECS; do
    F=$CLIPS/bench-1080p-$c.mp4
    [ -f "$F" ] || { echo "convertscale: no clip $F (tests/bench/make-clips.sh $CLIPS)" >&2; continue; }
    N=$(clip_frames "$F"); [ "$N" -gt 0 ] || N=1800
    echo "### $c: $(basename "$F"), $N frames 1920x1080"
    echo
    # avhwupload passes decoded device frames through and uploads frames
    # decoded in software (a device without the codec)
    DEC="filesrc location=$F ! parsebin ! avhwdec device=$DEVICE ! avhwupload device=$DEVICE"
    rows=(
        "device NV12|$DEC ! avhwconvertscale ! video/x-raw($MEM),$S,format=NV12 ! $SINK"
        "device RGBx|$DEC ! avhwconvertscale ! video/x-raw($MEM),$S,format=RGBx ! $SINK"
        "device NV12 + download|$DEC ! avhwconvertscale ! video/x-raw($MEM),$S,format=NV12 ! avhwdownload ! $SINK"
        "CPU NV12|$DEC ! avhwdownload ! videoconvertscale ! video/x-raw,$S,format=NV12 ! $SINK"
        "CPU RGBx|$DEC ! avhwdownload ! videoconvertscale ! video/x-raw,$S,format=RGBx ! $SINK"
    )
    for r in $(seq "$RUNS"); do
        for row in "${rows[@]}"; do
            label=${row%%|*}; desc=${row#*|}
            # shellcheck disable=SC2086
            BENCH_EXTRA="codec=$c run=$r" run_decode "$label" $HEADER -- "$desc" ||
                echo "| $label | refused or failed (exit $?): see the stderr lines above |"
            HEADER=""
        done
        case "$DEVICE" in
            cuda*)
                BENCH_EXTRA="codec=$c run=$r" run_decode "ffmpeg scale_cuda" --frames "$N" --exec -- \
                    ffmpeg -v error -nostdin -hwaccel cuda -hwaccel_output_format cuda -i "$F" \
                    -vf "scale_cuda=$W:$H" -f null - ;;
        esac
    done
    echo
done
