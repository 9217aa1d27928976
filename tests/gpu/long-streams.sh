#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# long-streams.sh - issue 32's long-stream rows: K long 1080p streams decoded
# at once, frames left on the device. Prints RESULT lines, then Markdown.
#
#   bash tests/gpu/long-streams.sh [--device vulkan] [--clips .gpu/prof]
#        [--k "7 14"] [--procs 7] [--repeat 2] [--codecs "h264 h265"]
#
# F = CLIPS/bench-1080p-CODEC.mp4 (tests/bench/make-clips.sh; 900 frames in
# .gpu/prof, made by make-bundle.sh with SPEED_CLIPS=1). Per codec:
#   one process  avhw-bench-decode --timeout 60 -k K of "filesrc ! parsebin !
#                avhwdec device=D fallback=false ! fakesink": steady fps (first
#                frame anywhere to the last EOS), CPU ms a frame, peak device
#                MiB of the process; the first K REPEAT times, the others once
#   processes    (H.264 only) P processes of one such pipeline at once
#                (avhw-bench-decode --no-memory -k 1 each): their steady fps
#                summed, and P gst-launch-1.0 processes through --exec: fps
#                from their start, peak device MiB summed
# Exits 1 when a run fails.
set -u
. "$(dirname "$0")/../bench/bench-lib.sh"
DEVICE=vulkan
CLIPS=$TOP/.gpu/prof
KS="7 14"
PROCS=7
REPEAT=2
CODECS="h264 h265"
while [ $# -gt 0 ]; do
    case "$1" in
        --device) DEVICE=$2; shift 2 ;;
        --clips) CLIPS=$2; shift 2 ;;
        --k) KS=$2; shift 2 ;;
        --procs) PROCS=$2; shift 2 ;;
        --repeat) REPEAT=$2; shift 2 ;;
        --codecs) CODECS=$2; shift 2 ;;
        -h|--help) sed -n '3,/^set -u/{/^set -u/d;s/^# \{0,1\}//;p}' "$0"; exit 0 ;;
        *) echo "long-streams: unknown argument $1" >&2; exit 2 ;;
    esac
done
find_bench_bin
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
rc=0
rows=()

pipeline() { # file
    echo "filesrc location=$1 ! parsebin ! avhwdec device=$DEVICE fallback=false ! fakesink name=sink sync=false"
}

# run_decode's LAST_RESULT is there and counts no failure
result_ok() { [ -n "$LAST_RESULT" ] && [ "$(result_get failures)" = 0 ]; }

one_process() { # codec file k
    run_decode "$DEVICE-$1-k$3" --timeout 60 -k "$3" -- "$(pipeline "$2")" > /dev/null
    result_ok || { echo "long-streams: $DEVICE $1 k=$3 failed" >&2; rc=1; return; }
    echo "$LAST_RESULT"
    rows+=("| $1 | $3 pipelines, one process | $(result_get steady_fps) | $(result_get cpu_ms_per_frame) | $(result_get peak_proc_mib) |")
}

processes() { # codec file p
    local i s sum
    for i in $(seq "$3"); do
        "$BENCH_BIN/avhw-bench-decode" --no-memory --timeout 60 -k 1 -- "$(pipeline "$2")" > "$tmp/p$i" 2>&1 &
    done
    wait
    sum=0
    for i in $(seq "$3"); do
        LAST_RESULT=$(grep '^RESULT' "$tmp/p$i")
        s=$(result_get steady_fps)
        [ -n "$s" ] || { echo "long-streams: process $i failed" >&2; tail -3 "$tmp/p$i" >&2; rc=1; s=0; }
        sum=$(awk -v a="$sum" -v b="$s" 'BEGIN { printf "%.1f", a + b }')
    done
    echo "$DEVICE-$1-procs$3-steady-summed $sum"
    run_decode "$DEVICE-$1-procs$3" --timeout 90 -k "$3" --frames "$(clip_frames "$2")" --exec -- \
        gst-launch-1.0 -q filesrc location="$2" ! parsebin ! avhwdec device="$DEVICE" fallback=false ! fakesink > /dev/null
    result_ok || { echo "long-streams: --exec $3 failed" >&2; rc=1; }
    echo "$LAST_RESULT"
    rows+=("| $1 | $3 processes, one pipeline each | $sum (from their start: $(result_get fps)) | - | $(result_get peak_proc_mib) |")
}

for codec in $CODECS; do
    f=$CLIPS/bench-1080p-$codec.mp4
    [ -f "$f" ] || { echo "long-streams: no clip $f" >&2; rc=1; continue; }
    first=1
    for k in $KS; do
        n=1; [ "$first" = 1 ] && n=$REPEAT
        for _ in $(seq "$n"); do one_process "$codec" "$f" "$k"; done
        first=0
    done
    [ "$codec" = h264 ] && [ -n "$PROCS" ] && processes "$codec" "$f" "$PROCS"
done

echo
echo "## Long 1080p streams at once (device $DEVICE, $(clip_frames "$CLIPS/bench-1080p-h264.mp4") frames each)"
echo
machine_info
echo
echo "| codec | how | steady fps | CPU ms a frame | peak device MiB |"
echo "| --- | --- | ---: | ---: | ---: |"
printf '%s\n' "${rows[@]}"
echo
echo "Command: bash tests/gpu/long-streams.sh --device $DEVICE --k \"$KS\" --procs \"$PROCS\" --repeat $REPEAT --codecs \"$CODECS\""
exit $rc
