#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# parallel.sh - one 1080p file on several decoder sessions: avhwdec parallel=N
# (issue 20, item 5). Prints Markdown; needs no Python.
#
# Usage: parallel.sh [--device D] [--clips DIR] [--parallel "1 2 4 7"]
#                    [--gops "60 250"] [--codecs "h264 h265"]
#                    [--max-buffered N] [--runs R] [--check]
#                    [--size WxH] [--frames N] [--make-only] [--report]
#   --device D        avhwdec device (default auto; cuda:0 on the H200)
#   --clips DIR       where the clips are made (default .gpu/bench)
#   --parallel L      parallel values (default "1 2 4 7")
#   --gops L          GOP lengths of the clips (default "60 250")
#   --max-buffered N  avhwdec max-buffered (default 2048 frames: 1080p NV12
#                     about 6 GiB, enough for 6 waiting GOPs of 250)
#   --runs R          runs of each row (default 1)
#   --size, --frames  the clips' size and length (default 1920x1080, 1800)
#   --make-only       make the clips, measure nothing (tests/gpu/make-bundle.sh)
#   --report          after each avhwdec row, avhwdec's own account of where
#                     the time went (its avhwdec:4 debug lines: the streaming
#                     thread and each session), from the same run
#   --check           first check that each parallel value decodes the clip to
#                     the same frames as parallel=1 (checksumsink, md5 per
#                     frame through avhwdownload), prints OK/DIFFERS
#
# Clips (made once with ffmpeg, libx264 / libx265): DIR/par-WxH-CODEC-gG-nN.mp4,
# N frames of testsrc2 at 60 fps, a key frame exactly every G
# frames (no scene cuts), x265 with closed GOPs (open GOPs start with CRA
# pictures that have RASL pictures after them: nothing to cut there).
# Rows: avhwdec parallel=N -> fakesink (device memory out, no download), from
# tests/bench/avhw-bench-decode: fps from PLAYING, steady fps, time to first
# frame, peak device memory of the process (NVML); then one ffmpeg process
# (-hwaccel cuda -hwaccel_output_format cuda on a cuda device, CPU otherwise).
set -u
. "$(dirname "$0")/bench-lib.sh"
DEVICE=auto
CLIPS=$TOP/.gpu/bench
PARALLEL="1 2 4 7"
GOPS="60 250"
CODECS="h264 h265"
MAXBUF=2048
RUNS=1
CHECK=0
SIZE=1920x1080
FRAMES=1800
MAKE_ONLY=0
REPORT=0
while [ $# -gt 0 ]; do
    case "$1" in
        --device) DEVICE=$2; shift 2 ;;
        --clips) CLIPS=$2; shift 2 ;;
        --parallel) PARALLEL=$2; shift 2 ;;
        --gops) GOPS=$2; shift 2 ;;
        --codecs) CODECS=$2; shift 2 ;;
        --max-buffered) MAXBUF=$2; shift 2 ;;
        --runs) RUNS=$2; shift 2 ;;
        --check) CHECK=1; shift ;;
        --size) SIZE=$2; shift 2 ;;
        --frames) FRAMES=$2; shift 2 ;;
        --make-only) MAKE_ONLY=1; shift ;;
        --report) REPORT=1; shift ;;
        -h|--help) sed -n '2,/^set -u/{/^set -u/d;s/^# \{0,1\}//;p}' "$0"; exit 0 ;;
        *) echo "parallel: unknown argument $1" >&2; exit 2 ;;
    esac
done
make_clip() { # codec gop file
    local enc
    if [ "$1" = h264 ]; then
        enc="-c:v libx264 -preset veryfast -profile:v high -bf 2 -g $2 -keyint_min $2 -sc_threshold 0 -b:v 2M"
    else
        enc="-c:v libx265 -preset ultrafast -profile:v main -tag:v hvc1 -b:v 1M -x265-params keyint=$2:min-keyint=$2:scenecut=0:open-gop=0:bframes=3:log-level=error"
    fi
    echo "parallel: making $3" >&2
    # shellcheck disable=SC2086
    ffmpeg -v error -nostdin -y -f lavfi -i testsrc2=size=$SIZE:rate=60 \
        -frames:v "$FRAMES" -pix_fmt yuv420p $enc "$3"
}

if [ "$MAKE_ONLY" = 1 ]; then
    mkdir -p "$CLIPS"
    for c in $CODECS; do
        for g in $GOPS; do
            F=$CLIPS/par-$SIZE-$c-g$g-n$FRAMES.mp4
            [ -f "$F" ] || make_clip "$c" "$g" "$F" || exit 1
        done
    done
    exit 0
fi
find_bench_bin
BENCH_NAME=parallel
CUDA=0; case "$DEVICE" in cuda*) CUDA=1 ;; esac
SINK="fakesink name=sink sync=false"
mkdir -p "$CLIPS"

# md5 of every frame, as text, decoded with parallel=$2
frame_sums() {
    gst-launch-1.0 -q filesrc location="$1" ! parsebin ! \
        avhwdec device="$DEVICE" parallel="$2" max-buffered="$MAXBUF" ! \
        avhwdownload ! checksumsink hash=0 2>&1 | md5sum | cut -d' ' -f1
}

echo "## One file on several decoder sessions: avhwdec parallel (device=$DEVICE, max-buffered=$MAXBUF)"
echo
machine_info
echo
for c in $CODECS; do
    for g in $GOPS; do
        F=$CLIPS/par-$SIZE-$c-g$g-n$FRAMES.mp4
        [ -f "$F" ] || make_clip "$c" "$g" "$F" || { echo "parallel: cannot make $F" >&2; continue; }
        N=$(clip_frames "$F"); [ "$N" -gt 0 ] || N=$FRAMES
        echo "### $c, GOP $g: $(basename "$F"), $N frames $SIZE"
        echo
        if [ "$CHECK" = 1 ]; then
            ref=$(frame_sums "$F" 1)
            for p in $PARALLEL; do
                [ "$p" = 1 ] && continue
                got=$(frame_sums "$F" "$p")
                if [ "$got" = "$ref" ]; then r=OK; else r=DIFFERS; fi
                echo "- bit-exact parallel=$p vs parallel=1: $r"
            done
            echo
        fi
        HEADER=--header
        REPORTS=""
        for r in $(seq "$RUNS"); do
            for p in $PARALLEL; do
                log=""
                if [ "$REPORT" = 1 ]; then
                    log=$(mktemp)
                    export GST_DEBUG=avhwdec:4 GST_DEBUG_NO_COLOR=1 GST_DEBUG_FILE=$log
                fi
                BENCH_EXTRA="codec=$c gop=$g parallel=$p run=$r" run_decode \
                    "avhwdec parallel=$p" $HEADER -- \
                    "filesrc location=$F ! parsebin ! avhwdec device=$DEVICE parallel=$p max-buffered=$MAXBUF ! $SINK"
                HEADER=""
                if [ -n "$log" ]; then
                    unset GST_DEBUG GST_DEBUG_NO_COLOR GST_DEBUG_FILE
                    REPORTS="$REPORTS
- parallel=$p:
$(grep -E 'report:|sessions, at most' "$log" | sed 's/.*:<avhwdec[0-9]*> /      /')"
                    rm -f "$log"
                fi
            done
            if [ "$CUDA" = 1 ]; then
                opts="-hwaccel cuda -hwaccel_output_format cuda"; label="ffmpeg cuda"
            else
                opts=""; label="ffmpeg CPU"
            fi
            # shellcheck disable=SC2086
            BENCH_EXTRA="codec=$c gop=$g run=$r" run_decode "$label" \
                --frames "$N" --exec -- ffmpeg -v error -nostdin $opts -i "$F" -f null -
        done
        if [ -n "$REPORTS" ]; then
            echo
            echo "Where the time went (avhwdec's own account, avhwdec:4):"
            echo "$REPORTS"
        fi
        echo
    done
done
