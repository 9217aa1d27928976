#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# profile.sh - where avhwdec's time and device memory go, beside ffmpeg's
# (issue 8). Run from the repository root with the bundle's env.sh sourced
# (run-on-gpu.sh's "profile" stage does both).
#
#   profile.sh [--device D] [--clips DIR] [--repeat R] [--parts "context time memory"]
#
#   context  avhw-bench-cuda-context: the CUDA primary context's device memory
#            and what lowering its limits gives back
#   time     the 1800-frame clips as raw elementary streams repeated R times
#            (default 3: 5400 frames), decoded by ffmpeg -hwaccel cuda
#            (-threads PROFILE_FF_THREADS: "auto 1"), by avhwdec threads=1, 2, 3
#            (PROFILE_THREADS) and nvh26Xdec, PROFILE_RUNS times (2); each
#            under the LD_PRELOAD
#            timer (tests/bench/lavc-time.c): steady fps from the first to
#            the last decoded frame, and per frame the time inside
#            avcodec_send_packet / avcodec_receive_frame and outside them
#   memory   process device memory (peak, and held at EOS) for K = 1, 2, 8
#            avhwdec pipelines for each EXTRA:THREADS:STACK of PROFILE_MEMORY
#            (extra-frames, threads, GST_AVHW_CUDA_STACK_SIZE; default
#            "0:1: 0:2: 1:2: 0:3: 4:1:1024", the last as before issue 8's
#            changes); H.265 at K = 1, 2
# Prints Markdown; LAVC-TIME and RESULT lines as they come.
set -u
. "$(dirname "$0")/../bench/bench-lib.sh"
DEVICE=cuda:0
CLIPS=$TOP/.gpu/bench
REPEAT=3
PARTS="context time memory"
while [ $# -gt 0 ]; do
    case "$1" in
        --device) DEVICE=$2; shift 2 ;;
        --clips) CLIPS=$2; shift 2 ;;
        --repeat) REPEAT=$2; shift 2 ;;
        --parts) PARTS=$2; shift 2 ;;
        -h|--help) sed -n '2,/^set -u/{/^set -u/d;s/^# \{0,1\}//;p}' "$0"; exit 0 ;;
        *) echo "profile: unknown argument $1" >&2; exit 2 ;;
    esac
done
find_bench_bin
PRELOAD=${LAVC_TIME_SO:-$BENCH_BIN/libavhw-lavc-time.so}
[ -f "$PRELOAD" ] || PRELOAD=$(dirname "$BENCH_BIN")/bench/libavhw-lavc-time.so
part() { case " $PARTS " in *" $1 "*) return 0 ;; esac; return 1; }
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT

echo "## Profile (device=$DEVICE)"
echo
machine_info
echo

if part context; then
    echo "### CUDA primary context"
    echo
    "$BENCH_BIN/avhw-bench-cuda-context"
    echo
fi

# timed ROW-LABEL COMMAND...: one LAVC-TIME line, labelled
timed() {
    local label=$1; shift
    LAVC_TIME_LABEL=${label// /_} LD_PRELOAD=$PRELOAD "$@" 2>&1 >/dev/null | \
        grep -E '^(LAVC-TIME|RESULT)|rror' | head -n 5
}

if part time; then
    for c in h264 h265; do
        F=$CLIPS/bench-1080p-$c.mp4
        [ -f "$F" ] || { echo "profile: no $F" >&2; continue; }
        fmt=$c; bsf=h264_mp4toannexb; parse=h264parse
        [ "$c" = h265 ] && { fmt=hevc; bsf=hevc_mp4toannexb; parse=h265parse; }
        ffmpeg -v error -nostdin -i "$F" -map 0:v:0 -c copy -bsf:v $bsf -f $fmt "$TMP/one.$c"
        for _ in $(seq "$REPEAT"); do cat "$TMP/one.$c"; done > "$TMP/long.$c"
        n=$(( $(clip_frames "$F") * REPEAT ))
        echo "### $c: $(basename "$F") x $REPEAT as a raw stream, $n frames"
        echo
        for _ in $(seq "${PROFILE_RUNS:-2}"); do
            for ft in ${PROFILE_FF_THREADS:-auto 1}; do
                lab="ffmpeg cuda -threads $ft $c"; [ "$ft" = auto ] && lab="ffmpeg cuda $c"
                timed "$lab" ffmpeg -v error -nostdin -threads "$ft" -hwaccel cuda \
                    -hwaccel_output_format cuda -i "$TMP/long.$c" -f null -
            done
            for t in ${PROFILE_THREADS:-1 2 3}; do
                timed "avhwdec threads=$t $c" "$BENCH_BIN/avhw-bench-decode" --no-memory \
                    --label "avhwdec threads=$t $c" -- "filesrc location=$TMP/long.$c ! $parse ! \
                    avhwdec device=$DEVICE threads=$t ! fakesink name=sink sync=false"
            done
            if has_element "nv${c}dec"; then
                timed "nv${c}dec $c" "$BENCH_BIN/avhw-bench-decode" --no-memory --label "nv${c}dec $c" -- \
                    "filesrc location=$TMP/long.$c ! $parse ! nv${c}dec ! video/x-raw(memory:CUDAMemory) ! fakesink name=sink sync=false"
            fi
        done
        echo
    done
fi

if part memory; then
    echo "### Device memory (MiB of the process: peak / held at EOS)"
    echo
    echo "| codec | extra-frames | threads | GST_AVHW_CUDA_STACK_SIZE | K=1 | K=2 | K=8 | per further decoder (held, K=8) |"
    echo "| --- | ---: | ---: | --- | ---: | ---: | ---: | ---: |"
    for c in h264 h265; do
        F=$CLIPS/bench-1080p-$c.mp4
        [ -f "$F" ] || continue
        for v in ${PROFILE_MEMORY:-0:1: 0:2: 1:2: 0:3: 4:1:1024}; do
            IFS=: read -r e t st <<< "$v"
            m=(); h=()
            for k in 1 2 8; do
                if [ "$c" = h265 ] && [ "$k" = 8 ]; then m+=("-"); h+=("-"); continue; fi
                GST_AVHW_CUDA_STACK_SIZE=$st BENCH_EXTRA="codec=$c extra=$e threads=$t stack=${st:-default}" \
                    run_decode "mem $c e=$e t=$t" -k "$k" -- \
                    "filesrc location=$F ! parsebin ! avhwdec device=$DEVICE extra-frames=$e threads=$t ! fakesink name=sink sync=false" > /dev/null
                m+=("$(result_get peak_proc_mib)"); h+=("$(result_get eos_proc_mib)")
            done
            per=$(awk -v a="${h[0]}" -v b="${h[2]}" 'BEGIN { if (b != "-" && a != "") printf "%.1f", (b - a) / 7; else print "-" }')
            echo "| $c | $e | $t | ${st:-default} | ${m[0]} / ${h[0]} | ${m[1]} / ${h[1]} | ${m[2]} / ${h[2]} | $per |"
        done
    done
    echo
fi
