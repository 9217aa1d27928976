#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# make-clips.sh OUTDIR [FRAMES] - the benchmark clips of tests/bench (issue 8):
#   bench-1080p-h264.mp4  FRAMES (default 1800) frames, 1920x1080 30 fps, x264 High
#                         preset medium, 2 B-frames, GOP 60, ABR 1.8 Mb/s
#   bench-1080p-h265.mp4  the same pictures, x265 Main preset veryfast, ABR 0.9 Mb/s
#   bench-1080p-h264-30f.mp4, bench-1080p-h265-30f.mp4: their first 30 frames
#                         (the reuse scenario, and the start-up cost of each decoder)
# Content: real footage, the 50 frames of Big Buck Bunny 1080p in the shared
# corpus (h265/bbb1080_50f.265, CC-BY 3.0 (c) Blender Foundation) played in a
# loop, when MEDIA (default ../shared/media) has it; else FFmpeg's testsrc2
# (a synthetic pattern, much easier to decode). OUTDIR/SOURCE says which.
# Bit rates are low on purpose, so that the clips, the bundle and the
# conformance corpus travel to the GPU machine together under its 64 MiB limit.
# Needs ffmpeg with libx264 and libx265. Deterministic for one x264/x265 build
# (threads pinned). Skips clips that exist.
set -euo pipefail
OUT=${1:?usage: make-clips.sh OUTDIR [FRAMES]}
FRAMES=${2:-1800}
mkdir -p "$OUT"
FF="ffmpeg -v error -nostdin -y"
MEDIA=${MEDIA:-$(cd "$(dirname "$0")/../.." && pwd)/../shared/media}
BBB=$MEDIA/h265/bbb1080_50f.265
if [ -f "$BBB" ]; then
    SRC="-i $BBB -vf loop=loop=-1:size=50:start=0,setpts=N/30/TB -r 30"
    echo "Big Buck Bunny 1080p, 50 frames in a loop (h265/bbb1080_50f.265 of the shared corpus)" > "$OUT/SOURCE"
else
    SRC="-f lavfi -i testsrc2=size=1920x1080:rate=30"
    echo "FFmpeg testsrc2 1920x1080 (synthetic)" > "$OUT/SOURCE"
fi

clip() { # name frames codec-args...
    local name=$1 frames=$2; shift 2
    [ -s "$OUT/$name" ] && { echo "make-clips: $OUT/$name exists"; return; }
    echo "make-clips: $OUT/$name ($frames frames)"
    $FF $SRC -frames:v "$frames" -pix_fmt yuv420p "$@" -an "$OUT/$name.tmp.mp4"
    mv "$OUT/$name.tmp.mp4" "$OUT/$name"
}

X264="-c:v libx264 -preset medium -profile:v high -bf 2 -g 60 -b:v 1800k -maxrate 3M -bufsize 6M -threads 2"
X265="-c:v libx265 -preset veryfast -profile:v main -g 60 -b:v 900k -maxrate 1500k -bufsize 3M -tag:v hvc1 -x265-params pools=2:frame-threads=2:log-level=error"
# shellcheck disable=SC2086
clip bench-1080p-h264.mp4 "$FRAMES" $X264
# shellcheck disable=SC2086
clip bench-1080p-h265.mp4 "$FRAMES" $X265
# shellcheck disable=SC2086
clip bench-1080p-h264-30f.mp4 30 $X264
# shellcheck disable=SC2086
clip bench-1080p-h265-30f.mp4 30 $X265
ls -l "$OUT"/bench-1080p-*.mp4
