#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# parallel-warm.sh - avhwdec parallel=N on a warm process (issue 30, item 4):
# the same file decoded ITER times in one process (avhw-bench-reuse), frames
# kept on the device; its first pipeline pays the process's start (plugins,
# CUDA context), the later ones show the first frame and the whole time of a
# warm process. Prints avhw-bench-reuse's tables for each N, Markdown.
#
# Usage: parallel-warm.sh [--device D] [--clip F] [--parallel "1 4 7"] [-n N]
#                         [--max-buffered M]
#   --device D        avhwdec device (default auto)
#   --clip F          default .gpu/bench/par-1920x1080-h264-g60-n900.mp4
#                     (tests/bench/parallel.sh --make-only makes it)
#   --parallel L      parallel values (default "1 4 7")
#   -n N              pipelines per value (default 5)
#   --max-buffered M  avhwdec max-buffered (default 2048)
set -u
. "$(dirname "$0")/bench-lib.sh"
DEVICE=auto
CLIP=$TOP/.gpu/bench/par-1920x1080-h264-g60-n900.mp4
PARALLEL="1 4 7"
ITER=5
MAXBUF=2048
while [ $# -gt 0 ]; do
    case "$1" in
        --device) DEVICE=$2; shift 2 ;;
        --clip) CLIP=$2; shift 2 ;;
        --parallel) PARALLEL=$2; shift 2 ;;
        -n) ITER=$2; shift 2 ;;
        --max-buffered) MAXBUF=$2; shift 2 ;;
        -h|--help) sed -n '2,/^set -u/{/^set -u/d;s/^# \{0,1\}//;p}' "$0"; exit 0 ;;
        *) echo "parallel-warm: unknown argument $1" >&2; exit 2 ;;
    esac
done
find_bench_bin
[ -f "$CLIP" ] || { echo "parallel-warm: no clip $CLIP" >&2; exit 2; }
echo "## avhwdec parallel on a warm process (device=$DEVICE)"
echo
machine_info
echo
rc=0
for n in $PARALLEL; do
    "$BENCH_BIN/avhw-bench-reuse" -n "$ITER" -d "$DEVICE" \
        --dec-opts "parallel=$n max-buffered=$MAXBUF" \
        --sink "fakesink name=sink sync=false" "$CLIP" | grep -v '^RESULT ' || rc=1
    echo
done
exit $rc
