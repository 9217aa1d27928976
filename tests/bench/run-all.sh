#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# run-all.sh - every benchmark of tests/bench on one device; Markdown on stdout
# and in OUTDIR/bench.md, RESULT lines in OUTDIR/results.txt, per-iteration
# reuse rows in OUTDIR/reuse.csv and, where python3 has matplotlib, a plot in
# OUTDIR/bench.png.
#
# Usage: run-all.sh [--device D] [--clips DIR] [--out OUTDIR] [--runs R]
#                   [--iterations N] [--streams "1 2 4 7"] [--only "reuse throughput scaling"]
# The clips come from tests/bench/make-clips.sh DIR (made here when missing and
# ffmpeg can encode them). Uninstalled tree: GST_PLUGIN_PATH=build/ext/avhw:build/backends/...
set -u
. "$(dirname "$0")/bench-lib.sh"
DEVICE=auto
CLIPS=$TOP/.gpu/bench
OUTDIR=${TMPDIR:-/tmp}/avhw-bench-results
RUNS=2
ITER=20
STREAMS="1 2 4 7"
ONLY="reuse throughput scaling"
while [ $# -gt 0 ]; do
    case "$1" in
        --device) DEVICE=$2; shift 2 ;;
        --clips) CLIPS=$2; shift 2 ;;
        --out) OUTDIR=$2; shift 2 ;;
        --runs) RUNS=$2; shift 2 ;;
        --iterations) ITER=$2; shift 2 ;;
        --streams) STREAMS=$2; shift 2 ;;
        --only) ONLY=$2; shift 2 ;;
        -h|--help) sed -n '2,/^set -u/{/^set -u/d;s/^# \{0,1\}//;p}' "$0"; exit 0 ;;
        *) echo "run-all: unknown argument $1" >&2; exit 2 ;;
    esac
done
mkdir -p "$OUTDIR"
[ -f "$CLIPS/bench-1080p-h264.mp4" ] || bash "$BENCH_DIR/make-clips.sh" "$CLIPS" >&2
export BENCH_RESULTS=$OUTDIR/results.txt
: > "$BENCH_RESULTS"; rm -f "$OUTDIR/reuse.csv"
{
    echo "# gst-avhw benchmarks, device=$DEVICE"
    echo
    echo "command: tests/bench/run-all.sh --device $DEVICE --runs $RUNS --iterations $ITER --streams \"$STREAMS\" --only \"$ONLY\""
    echo
    for b in $ONLY; do
        case "$b" in
            reuse) bash "$BENCH_DIR/reuse.sh" --device "$DEVICE" --clip "$CLIPS/bench-1080p-h264-30f.mp4" \
                       -n "$ITER" --csv "$OUTDIR/reuse.csv" ;;
            throughput) bash "$BENCH_DIR/throughput.sh" --device "$DEVICE" --clips "$CLIPS" --runs "$RUNS" ;;
            scaling) bash "$BENCH_DIR/scaling.sh" --device "$DEVICE" --clip "$CLIPS/bench-1080p-h264.mp4" \
                         --streams "$STREAMS" ;;
        esac
        echo
    done
} 2>&1 | tee "$OUTDIR/bench.md"
PY=""
for p in python3 /usr/bin/python3; do
    if command -v "$p" > /dev/null && "$p" -c 'import matplotlib' 2> /dev/null; then PY=$p; break; fi
done
if [ -n "$PY" ]; then
    "$PY" "$BENCH_DIR/plot.py" "$OUTDIR" && echo "plot: $OUTDIR/bench.png"
else
    echo "plot: skipped (no python3 with matplotlib)"
fi
