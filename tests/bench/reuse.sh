#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# reuse.sh - the reuse scenario (issue 8, item 1), with reuse on and with
# GST_AVHW_REUSE=0. Prints Markdown (avhw-bench-reuse's tables and summaries).
#
# Usage: reuse.sh [--device D] [--clip F] [-n N] [--csv FILE]
#   --device D  avhwdec device (default auto)
#   --clip F    default .gpu/bench/bench-1080p-h264-30f.mp4 (30 frames 1080p)
#   -n N        pipelines per mode (default 20)
#   --csv FILE  per-iteration rows for plot.py (label,iter,wall_ms,ttff_ms,
#               frames,mem_eos_mib,mem_after_mib,gpu_after_mib,ctx_id,primary)
# Each mode runs in its own process: the first iteration of each pays the
# process's first decode (plugin loading, driver and decoder initialisation).
# Then, for comparison, N runs of one ffmpeg process per clip (`ffmpeg
# -hwaccel cuda` for a cuda device, `-hwaccel vulkan`/`vaapi` for those,
# software otherwise; frames downloaded, as avhwdownload does) and their
# clips per second.
set -u
. "$(dirname "$0")/bench-lib.sh"
DEVICE=auto
CLIP=$TOP/.gpu/bench/bench-1080p-h264-30f.mp4
ITER=20
CSV=""
while [ $# -gt 0 ]; do
    case "$1" in
        --device) DEVICE=$2; shift 2 ;;
        --clip) CLIP=$2; shift 2 ;;
        -n) ITER=$2; shift 2 ;;
        --csv) CSV=$2; shift 2 ;;
        -h|--help) sed -n '2,/^set -u/{/^set -u/d;s/^# \{0,1\}//;p}' "$0"; exit 0 ;;
        *) echo "reuse: unknown argument $1" >&2; exit 2 ;;
    esac
done
find_bench_bin
[ -f "$CLIP" ] || { echo "reuse: no clip $CLIP (tests/bench/make-clips.sh)" >&2; exit 2; }
echo "## Reuse scenario (device=$DEVICE)"
echo
machine_info
echo
rc=0
for mode in on off; do
    out=$(mktemp)
    if [ "$mode" = on ]; then
        env -u GST_AVHW_REUSE "$BENCH_BIN/avhw-bench-reuse" -n "$ITER" -d "$DEVICE" \
            ${CSV:+--csv "$CSV"} "$CLIP" > "$out" || rc=1
    else
        GST_AVHW_REUSE=0 "$BENCH_BIN/avhw-bench-reuse" -n "$ITER" -d "$DEVICE" \
            ${CSV:+--csv "$CSV"} "$CLIP" > "$out" || rc=1
    fi
    grep -v '^RESULT ' "$out"
    if [ -n "${BENCH_RESULTS:-}" ]; then
        grep '^RESULT ' "$out" | sed "s/^RESULT /bench=reuse device=$DEVICE /" >> "$BENCH_RESULTS"
    fi
    rm -f "$out"
    echo
done

if command -v ffmpeg >/dev/null 2>&1; then
    case $DEVICE in
        cuda*) hw=(-hwaccel cuda) ;;
        vulkan*) hw=(-hwaccel vulkan) ;;
        vaapi*) hw=(-hwaccel vaapi) ;;
        *) hw=() ;;
    esac
    t0=$(date +%s.%N)
    ok=0
    for _ in $(seq "$ITER"); do
        ffmpeg -hide_banner -loglevel error -nostdin "${hw[@]}" -i "$CLIP" -f null - && ok=$((ok + 1))
    done
    t1=$(date +%s.%N)
    awk -v n="$ITER" -v ok="$ok" -v a="$t0" -v b="$t1" -v hw="${hw[*]:-software}" 'BEGIN {
        printf "one ffmpeg process per clip (%s): %d of %d ran, %.1f ms per clip, %.1f clips/s\n",
            hw, ok, n, (b - a) * 1000 / n, n / (b - a) }'
    if [ -n "${BENCH_RESULTS:-}" ]; then
        awk -v n="$ITER" -v a="$t0" -v b="$t1" -v d="$DEVICE" 'BEGIN {
            printf "bench=reuse device=%s label=ffmpeg-per-clip iterations=%d wall_median_ms=%.1f clips_per_s=%.1f\n",
                d, n, (b - a) * 1000 / n, n / (b - a) }' >> "$BENCH_RESULTS"
    fi
    [ "$ok" = "$ITER" ] || rc=1
fi
exit $rc
