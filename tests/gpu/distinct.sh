#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# distinct.sh - issue 30, item 6: no wrong picture when one decoder takes
# clip after clip with other parameter sets. Run by run-on-gpu.sh's stage
# `distinct` with a bundle's env.sh sourced, over .gpu/distinct (the
# 'distinct' set of tests/media/make-clips.sh, made by make-bundle.sh):
#
#   ffmpeg part: FFmpeg alone (no gst-avhw). The distinct H.264 clips
#     concatenated as one byte-stream (an SPS/PPS change at each clip, same
#     IDs) through `ffmpeg -hwaccel vulkan` with -threads 2 and -threads 1,
#     DISTINCT_FF_RUNS (30) times each, every run's MD5 against FFmpeg's
#     software decoder: whether FFmpeg's Vulkan hwaccel itself decodes such
#     a stream wrongly with frame threads.
#   avhw part: every clip as byte-stream through
#     `avhwdec device=D fallback=false ! avhwdownload`, in ONE process per
#     codec (conformance-gst.sh --one-process), shuffled, DISTINCT_PASSES
#     (100) times over, the decoder cache at its default limit; each decode
#     against FFmpeg's MD5, for each D of DISTINCT_DEVICES ("vulkan cuda:0").
#   mp4 part: the same clips in MP4 (.gpu/distinct-mp4, the 'distinct-mp4'
#     set: parameter sets in avcC/hvcC only) through `qtdemux ! h264parse !
#     avhwdec`, the same way: a kept decoder takes each clip's codec data
#     with its first packet (issue 30, item 5), and the decoder cache's hits.
#
# Writes $OUT/distinct.md (one row per run) and logs to $LOGS/distinct.
set -u
TOP=$(cd "$(dirname "$0")/../.." && pwd)
cd "$TOP" || exit 1
OUT=${OUT:-/tmp/gpu-out}
LOGS=${LOGS:-/tmp/gpu-logs}
D=${DISTINCT_DIR:-.gpu/distinct}
L=$LOGS/distinct
W=$(mktemp -d /tmp/avhw-distinct.XXXXXX)
mkdir -p "$OUT" "$L"
row() { echo "$*" | tee -a "$OUT/distinct.md"; }
PARTS=" ${DISTINCT_PARTS:-ffmpeg avhw mp4} "

[ -f "$D/MANIFEST.tsv" ] || { row "SKIP distinct: no $D/MANIFEST.tsv (make-bundle.sh)"; exit 0; }
row "| part | device / decoder | runs or decodes | wrong | errors | seconds |"
row "| --- | --- | --- | --- | --- | --- |"

if [ "$PARTS" != "${PARTS/ ffmpeg /}" ]; then
    cat "$D"/h264/distinct-*.h264 > "$W/concat.h264"
    ref=$(ffmpeg -v error -nostdin -threads 1 -i "$W/concat.h264" -f md5 -pix_fmt yuv420p - 2>"$L/ff-sw.log" |
        sed -n 's/^MD5=//p')
    echo "distinct: FFmpeg software MD5 of the $(ls "$D"/h264/distinct-*.h264 | wc -l) clips concatenated: $ref"
    for t in 2 1; do
        wrong=0 err=0 n=${DISTINCT_FF_RUNS:-30} t0=$(date +%s)
        for i in $(seq "$n"); do
            got=$(timeout 60 ffmpeg -v error -nostdin -hwaccel vulkan -threads "$t" -i "$W/concat.h264" \
                -f md5 -pix_fmt yuv420p - 2>>"$L/ff-vulkan-t$t.log" | sed -n 's/^MD5=//p')
            if [ -z "$got" ]; then err=$((err + 1))
            elif [ "$got" != "$ref" ]; then wrong=$((wrong + 1)); echo "run $i: $got" >> "$L/ff-vulkan-t$t.log"
            fi
        done
        row "| ffmpeg alone, clips concatenated | -hwaccel vulkan -threads $t | $n runs | $wrong | $err | $(( $(date +%s) - t0 )) |"
    done
fi

# one_process PREFIX LABEL MANIFEST SEED DEV CODEC CONFORMANCE-GST-OPTION...:
# the CODEC clips of MANIFEST through avhwdec on DEV in one process, shuffled
# (SEED), DISTINCT_PASSES times over; one row, and the first failures
one_process() {
    local p=$1 label=$2 man=$3 seed=$4 dev=$5 c=$6 log tsv t0 rc n wrong err
    shift 6
    log=$L/$p-${dev%%:*}-$c.log tsv=$L/$p-${dev%%:*}-$c.tsv t0=$(date +%s)
    timeout -k 10 "${DISTINCT_TIMEOUT:-240}" bash tests/gpu/conformance-gst.sh "$@" \
        --one-process --shuffle "$seed" --passes "${DISTINCT_PASSES:-100}" --expect-reuse \
        --filter "^$c/" --results "$tsv" "$man" > "$log" 2>&1
    rc=$?
    n=$(grep -c . "$tsv" 2>/dev/null || echo 0)
    wrong=$(grep -c '^FAIL' "$tsv" 2>/dev/null || true)
    err=$(grep -c '^ERROR' "$tsv" 2>/dev/null || true)
    # the decode-many line ends with the decoder cache's hits and misses
    row "| avhwdec, one process, $c $label | $dev | $n decodes (exit $rc; $(grep -m1 'avhw-decode-many exit' "$log" | sed 's/^# //')) | ${wrong:-0} | ${err:-0} | $(( $(date +%s) - t0 )) |"
    grep -E "^(FAIL|ERROR)" "$tsv" 2>/dev/null | cut -f1,2 | sort | uniq -c | head -n 5
}

if [ "$PARTS" != "${PARTS/ avhw /}" ]; then
    for dev in ${DISTINCT_DEVICES:-vulkan cuda:0}; do
        for c in h264 h265; do
            one_process avhw byte-stream "$D/MANIFEST.tsv" 30 "$dev" "$c" --decoder \
                "${c}parse ! video/x-$c,stream-format=byte-stream,alignment=au ! avhwdec device=$dev fallback=false ! avhwdownload"
        done
    done
fi

D4=${DISTINCT_MP4_DIR:-.gpu/distinct-mp4}
if [ "$PARTS" != "${PARTS/ mp4 /}" ] && [ -f "$D4/MANIFEST.tsv" ]; then
    for dev in ${DISTINCT_DEVICES:-vulkan cuda:0}; do
        for c in h264 h265; do
            one_process mp4 "MP4 (codec data only)" "$D4/MANIFEST.tsv" 31 "$dev" "$c" \
                --demuxer qtdemux --decoder "${c}parse ! avhwdec device=$dev fallback=false ! avhwdownload"
        done
    done
elif [ "$PARTS" != "${PARTS/ mp4 /}" ]; then
    row "| avhwdec, MP4 | - | SKIP: no $D4/MANIFEST.tsv (make-bundle.sh) | - | - | - |"
fi
rm -rf "$W"
