#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# run-both.sh - the Debian 12 bundle (GStreamer 1.22, FFmpeg 5.1) and the Debian 13
# bundle (GStreamer 1.26, FFmpeg 7.1) side by side in one GPU call, from the
# repository root with .gpu/ carried (tests/gpu/make-bundle.sh, then --d13):
#
#   bash tests/gpu/run-both.sh [STAGE...]       (device tool: carry [".gpu"])
#
# STAGEs: those of run-on-gpu.sh (default: check conformance zerocopy transcode bench). It
# runs run-on-gpu.sh once per bundle, one after the other (the benchmarks must not
# share the GPU), each bundle unpacked in its own folder (BUNDLE_ROOT /tmp/gb12 and
# /tmp/gb13). DEADLINE_S (default 540) is split: the first bundle gets half of it,
# the second what is left; run-on-gpu.sh's per-stage time boxes hold inside each.
# Benchmark defaults here (override by setting them): BENCH_ONLY="reuse throughput
# scaling", BENCH_STREAMS="1 7", BENCH_RUNS=1, BENCH_ITER=10. BUNDLES (default
# "d12 d13") picks the bundles; BUNDLE_ROOT_PREFIX (/tmp/gb: /tmp/gb12, /tmp/gb13) and
# BOTH_WORK (/tmp/gpu-both: per-bundle OUT and LOGS) keep rehearsals on a shared
# machine apart.
# $OUT gets, per bundle TAG: TAG-run.log (everything printed) and TAG-out.tar.gz
# (conformance.tsv, zerocopy.txt, transcode.txt, bench.md, results.txt, reuse.csv,
# vulkan-video.md, conformance-vulkan.tsv, logs.tar.gz); and summary.txt (check
# summaries, conformance totals, zerocopy verdicts, the benchmark tables, the
# vulkanvideo table), which is printed last. Vulkan Video on the H200 needs the
# Debian 13 bundle: BUNDLES=d13 bash tests/gpu/run-both.sh vulkanvideo
set -u
TOP=$(cd "$(dirname "$0")/../.." && pwd)
cd "$TOP" || exit 1
T0=$(date +%s)
DEADLINE_S=${DEADLINE_S:-540}
OUT=${OUT:-/tmp/gpu-out}
W=${BOTH_WORK:-/tmp/gpu-both}
mkdir -p "$OUT"
rm -rf "$W"; mkdir -p "$W"
STAGES=${*:-check conformance zerocopy transcode bench}
export BENCH_ONLY=${BENCH_ONLY:-reuse throughput scaling}
export BENCH_STREAMS=${BENCH_STREAMS:-1 7} BENCH_RUNS=${BENCH_RUNS:-1} BENCH_ITER=${BENCH_ITER:-10}
BUNDLES=${BUNDLES:-d12 d13}
# shellcheck disable=SC2086  # word lists
set -- $BUNDLES
n=$#

for tag in $BUNDLES; do
    case $tag in
        d12) bundle=.gpu/gpubundle.tar.xz ;;
        *) bundle=.gpu/gpubundle-$tag.tar.xz ;;
    esac
    left=$(( DEADLINE_S - ($(date +%s) - T0) ))
    share=$(( left / n )); n=$(( n - 1 ))
    echo "######################## $tag: $bundle, ${share} s of ${left} s left ($(date -u +%H:%M:%S))"
    if [ ! -f "$bundle" ]; then
        echo "$tag: no $bundle" | tee -a "$W/missing.txt"
        continue
    fi
    mkdir -p "$W/$tag/out"
    # shellcheck disable=SC2086
    OUT=$W/$tag/out LOGS=$W/$tag/logs BUNDLE=$bundle BUNDLE_ROOT=${BUNDLE_ROOT_PREFIX:-/tmp/gb}${tag#d} \
        DEADLINE_S=$share bash tests/gpu/run-on-gpu.sh $STAGES
    cp "$W/$tag/out/run.log" "$OUT/$tag-run.log"
    tar -czf "$OUT/$tag-out.tar.gz" -C "$W/$tag/out" --exclude=./run.log .
done

{
    echo "# run-both.sh $STAGES: $(( $(date +%s) - T0 )) s"
    cat "$W/missing.txt" 2>/dev/null
    for tag in $BUNDLES; do
        o=$W/$tag/out
        [ -f "$o/run.log" ] || continue
        echo
        echo "## $tag: $(grep -m1 '^bundle:' "$o/run.log")"
        tf=.gpu/TREE-$tag; [ "$tag" = d12 ] && tf=.gpu/TREE
        cat "$tf" 2>/dev/null
        sed -n '/^check summary:/,/^$/p' "$o/run.log" | sed '/^$/d'
        grep -E '^==================== ' "$o/run.log" | sed 's/^=* /stage: /'
        grep -E '^\| all \|' "$o/run.log" | sed 's/^/conformance (fallback=false, then the rest with true): /'
        grep -h '^VERDICT' "$o/zerocopy.txt" 2>/dev/null
        sed 's/^/transcode: /' "$o/transcode.txt" 2>/dev/null
        [ -f "$o/bench.md" ] && grep -E '^\| |^#' "$o/bench.md" | grep -vE '^\| ---'
        [ -f "$o/convertscale.md" ] && grep -E '^\| |^#' "$o/convertscale.md" | grep -vE '^\| ---'
        sed 's/^/python: /' "$o/python.txt" 2>/dev/null
        [ -f "$o/vulkan-video.md" ] && cat "$o/vulkan-video.md"
    done
} > "$OUT/summary.txt"
echo
cat "$OUT/summary.txt"
ls -l "$OUT"
