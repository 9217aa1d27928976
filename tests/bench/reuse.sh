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
exit $rc
