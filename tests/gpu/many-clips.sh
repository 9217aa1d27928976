#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# many-clips.sh - issue 32: many short clips per GPU, with
# docs/examples/many-clips (N pipelines at once in one process, one device,
# one decoder cache). Prints Markdown.
#
#   bash tests/gpu/many-clips.sh [--device cuda:0] [--clips .gpu/bench]
#        [--n-clips 70] [--threads "1 4 7 14"] [--procs "7 14"]
#        [--codecs "h264 h265"]
#
# Per codec, F = CLIPS/bench-1080p-CODEC-30f.mp4 (30 frames) listed
# N_CLIPS times, frames left on the device:
#   threads  one process: many-clips -n N -r 2; round 2's clips/s (the
#            warm rate), the decoders it opened (0 expected), and NVDEC's
#            decoder utilisation over the run (nvidia-smi dmon -s um: the
#            dec column, mean and max of the 1 s samples) and the GPU's peak
#            memory (dmon's fb) less its use before the run
#   procs    K processes at once, each many-clips -n 1 -r 2 over
#            N_CLIPS/K clips: all clips over the slowest process's round 2
# Then once: many-clips -n 7 -r 2 --check on H.264 (every clip's MD5 alike
# in both rounds; frames downloaded, so not a speed row).
# Exits 1 when a run fails or --check does not hold.
set -u
. "$(dirname "$0")/../bench/bench-lib.sh"
DEVICE=cuda:0
CLIPS=$TOP/.gpu/bench
N_CLIPS=70
THREADS="1 4 7 14"
PROCS="7 14"
CODECS="h264 h265"
while [ $# -gt 0 ]; do
    case "$1" in
        --device) DEVICE=$2; shift 2 ;;
        --clips) CLIPS=$2; shift 2 ;;
        --n-clips) N_CLIPS=$2; shift 2 ;;
        --threads) THREADS=$2; shift 2 ;;
        --procs) PROCS=$2; shift 2 ;;
        --codecs) CODECS=$2; shift 2 ;;
        -h|--help) sed -n '3,/^set -u/{/^set -u/d;s/^# \{0,1\}//;p}' "$0"; exit 0 ;;
        *) echo "many-clips: unknown argument $1" >&2; exit 2 ;;
    esac
done
MC=$(command -v many-clips || echo "$TOP/build/tests/docs/many-clips")
[ -x "$MC" ] || { echo "many-clips: no many-clips program (build tests/docs)" >&2; exit 2; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"; [ -n "${DMON:-}" ] && kill "$DMON" 2>/dev/null' EXIT
rc=0

# dmon over the command "$@": DEC="mean max" of the dec column (or "- -")
# and MIB, the GPU's peak used memory over the run less its use before it
# (the machine runs nothing else), or "-"
with_dmon() {
    local log=$tmp/dmon.log base=""
    if command -v nvidia-smi >/dev/null; then
        base=$(nvidia-smi --query-gpu=memory.used --format=csv,noheader,nounits -i 0 2>/dev/null | head -n1)
        nvidia-smi dmon -s um -d 1 > "$log" 2>/dev/null & DMON=$!
    fi
    "$@"
    local r=$?
    if [ -n "${DMON:-}" ]; then
        kill "$DMON" 2>/dev/null; wait "$DMON" 2>/dev/null; DMON=
        # the header line "# gpu sm mem enc dec ... fb ..." names the columns
        read -r DEC MIB <<< "$(awk -v base="${base:-}" '
            /^# *gpu/ { for (i = 2; i <= NF; i++) col[$i] = i - 1; next }
            /^#/ { next }
            col["dec"] && NF >= col["dec"] { v = $col["dec"]; s += v; n++; if (v > m) m = v }
            col["fb"] && $col["fb"] > fb { fb = $col["fb"] }
            END { printf "%s %s\n", (n ? sprintf("%.0f_%d", s / n, m) : "-_-"),
                  (fb != "" && base != "" ? sprintf("%d", fb - base) : "-") }' "$log")"
        DEC=${DEC/_/ }
    else
        DEC="- -"; MIB="-"
    fi
    return $r
}

# round 2 of a many-clips output: "clips/s opened"
round2() {
    sed -n 's/^round 2: .*: \([0-9.]*\) clips\/s; decoders kept and taken [0-9]*, opened \([0-9]*\).*/\1 \2/p' "$1"
}

echo "## Many 30-frame 1080p clips per GPU (device $DEVICE, $N_CLIPS clips a round)"
echo
machine_info
echo
echo "| codec | how | clips/s (round 2) | frames/s | decoders opened in round 2 | NVDEC dec % mean / max | peak device MiB |"
echo "| --- | --- | ---: | ---: | ---: | --- | ---: |"
for codec in $CODECS; do
    f=$CLIPS/bench-1080p-$codec-30f.mp4
    [ -f "$f" ] || { echo "| $codec | no clip $f | | | | | |"; continue; }
    list=()
    for _ in $(seq "$N_CLIPS"); do list+=("$f"); done
    for n in $THREADS; do
        with_dmon "$MC" -n "$n" -r 2 -d "$DEVICE" "${list[@]}" > "$tmp/out" 2>&1 || { rc=1; tail -5 "$tmp/out" >&2; }
        read -r cps opened <<< "$(round2 "$tmp/out")"
        read -r dmean dmax <<< "$DEC"
        echo "| $codec | 1 process, $n pipelines at once | ${cps:--} | $(awk -v c="${cps:-0}" 'BEGIN { printf "%.0f", c * 30 }') | ${opened:--} | $dmean / $dmax | $MIB |"
    done
    for k in $PROCS; do
        per=$(( N_CLIPS / k ))
        sub=("${list[@]:0:$per}")
        pids=()
        t0=$(date +%s.%N)
        with_dmon bash -c '
            mc=$1; dev=$2; k=$3; d=$4; shift 4
            for i in $(seq "$k"); do "$mc" -n 1 -r 2 -d "$dev" "$@" > "$d/p$i" 2>&1 & done
            wait' _ "$MC" "$DEVICE" "$k" "$tmp" "${sub[@]}"
        slowest=0
        for i in $(seq "$k"); do
            s=$(sed -n 's/^round 2: .* in \([0-9.]*\) s:.*/\1/p' "$tmp/p$i")
            [ -n "$s" ] || { rc=1; tail -3 "$tmp/p$i" >&2; s=0; }
            slowest=$(awk -v a="$slowest" -v b="$s" 'BEGIN { print (b > a) ? b : a }')
        done
        read -r dmean dmax <<< "$DEC"
        cps=$(awk -v n=$(( per * k )) -v s="$slowest" 'BEGIN { if (s > 0) printf "%.1f", n / s; else print "-" }')
        echo "| $codec | $k processes, 1 pipeline each | $cps | $(awk -v c="$cps" 'BEGIN { printf "%.0f", c * 30 }') | - | $dmean / $dmax | $MIB |"
    done
done
echo
f=$CLIPS/bench-1080p-h264-30f.mp4
if [ -f "$f" ]; then
    "$MC" -n 7 -r 2 -d "$DEVICE" --check "$f" "$f" "$f" "$f" "$f" "$f" "$f" "$f" "$f" "$f" \
        > "$tmp/check" 2>&1
    if grep -q '^check: every clip' "$tmp/check"; then
        echo "check: 10 H.264 clips, 7 at once, 2 rounds: every clip's MD5 alike"
    else
        echo "check FAILED:"; tail -5 "$tmp/check"; rc=1
    fi
fi
echo
echo "Command: bash tests/gpu/many-clips.sh --device $DEVICE --n-clips $N_CLIPS --threads \"$THREADS\" --procs \"$PROCS\""
exit $rc
