#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# throughput.sh - decode throughput, one stream (issue 8, item 2). Prints Markdown.
#
# Usage: throughput.sh [--device D] [--props P] [--clips DIR] [--runs R] [--codecs "h264 h265"]
#                      [--decoders "avhwdec download nvdec avdec ffmpeg-cuda ffmpeg-cuda-t1
#                                   ffmpeg-vulkan ffmpeg-cpu"]
#   --device D   avhwdec device (default auto): cuda:0 on the GPU machine,
#                vulkan / opencl on CPU-only machines
#   --props P    more avhwdec properties (fallback=false: a device that cannot
#                decode fails instead of measuring the software fallback)
#   --clips DIR  folder of make-clips.sh's clips (default .gpu/bench)
#   --runs R     runs of each row (default 2; every run is printed)
#   --decoders L only these rows (default: all but ffmpeg-cuda-t1); ffmpeg-cuda
#                and ffmpeg-vulkan run beside a device of another kind when named
#
# Rows per codec (F = DIR/bench-1080p-CODEC.mp4):
#   avhwdec D -> fakesink        filesrc ! parsebin ! avhwdec device=D ! fakesink
#                                (device memory out: no download)
#   avhwdec D + download         ... ! avhwdec device=D ! avhwdownload device=D ! fakesink
#   nvCODECdec (CUDA only)       filesrc ! parsebin ! nvh264dec|nvh265dec
#                                ! video/x-raw(memory:CUDAMemory) ! fakesink (device memory out)
#   avdec_CODEC (CPU)            filesrc ! parsebin ! avdec_h264|avdec_h265 ! fakesink
#   ffmpeg cuda (CUDA only)      ffmpeg -hwaccel cuda -hwaccel_output_format cuda -i F -f null -
#   ffmpeg cuda -threads 1       the same with one decoding thread, as avhwdec opens
#                                FFmpeg's decoder (only when --decoders names it)
#   ffmpeg vulkan (Vulkan only)  ffmpeg -hwaccel vulkan -hwaccel_output_format vulkan -i F -f null -
#   ffmpeg CPU                   ffmpeg -i F -f null -
# All fakesinks are sync=false. Columns: "fps" counts from set_state(PLAYING)
# (pipelines) or from process start (ffmpeg); "steady fps" from the first frame
# to EOS; "process s" is the whole process (gst_init and plugin loading
# included), the number comparable with ffmpeg's. For ffmpeg the steady rate
# comes from tests/bench/lavc-time.c preloaded into it (first to last decoded
# frame; LAVC_TIME_SO, found beside avhw-bench-decode); without it, none.
set -u
. "$(dirname "$0")/bench-lib.sh"
DEVICE=auto
CLIPS=$TOP/.gpu/bench
RUNS=2
CODECS="h264 h265"
DECODERS=""
PROPS=""
while [ $# -gt 0 ]; do
    case "$1" in
        --device) DEVICE=$2; shift 2 ;;
        --props) PROPS=$2; shift 2 ;;
        --clips) CLIPS=$2; shift 2 ;;
        --runs) RUNS=$2; shift 2 ;;
        --codecs) CODECS=$2; shift 2 ;;
        --decoders) DECODERS=$2; shift 2 ;;
        -h|--help) sed -n '2,/^set -u/{/^set -u/d;s/^# \{0,1\}//;p}' "$0"; exit 0 ;;
        *) echo "throughput: unknown argument $1" >&2; exit 2 ;;
    esac
done
find_bench_bin
LAVC_TIME_SO=${LAVC_TIME_SO:-$BENCH_BIN/libavhw-lavc-time.so}
[ -f "$LAVC_TIME_SO" ] || LAVC_TIME_SO=""
BENCH_NAME=throughput
CUDA=0; case "$DEVICE" in cuda*) CUDA=1 ;; esac
VULKAN=0; case "$DEVICE" in vulkan*) VULKAN=1 ;; esac
DEC="avhwdec device=$DEVICE${PROPS:+ $PROPS}"
SINK="fakesink name=sink sync=false"

echo "## Decode throughput, one stream (device=$DEVICE${PROPS:+ $PROPS})"
echo
machine_info
echo
HEADER=--header
declare -A PROC_FPS STEADY_FPS
best() { # key value: keep the max
    local cur=${2:-0}
    awk -v a="${1:-0}" -v b="$cur" 'BEGIN { print (b > a ? b : a) }'
}
for c in $CODECS; do
    F=$CLIPS/bench-1080p-$c.mp4
    S=$CLIPS/bench-1080p-$c-30f.mp4
    [ -f "$F" ] || { echo "throughput: no clip $F (tests/bench/make-clips.sh $CLIPS)" >&2; continue; }
    N=$(clip_frames "$F"); [ "$N" -gt 0 ] || N=1800
    echo "### $c: $(basename "$F"), $N frames 1920x1080"
    echo
    HEADER=--header
    rows=()
    want avhwdec && rows+=("avhwdec $DEVICE|filesrc location=$F ! parsebin ! $DEC ! $SINK")
    want download && rows+=("avhwdec $DEVICE + download|filesrc location=$F ! parsebin ! $DEC ! avhwdownload device=$DEVICE ! $SINK")
    if want nvdec && [ "$CUDA" = 1 ] && has_element "nv${c}dec"; then
        d=$(nvdec_desc "$c" "$F" "$S")
        [ -n "$d" ] && rows+=("nv${c}dec|$d")
    fi
    if want avdec && has_element "avdec_$c"; then
        rows+=("avdec_$c (CPU)|filesrc location=$F ! parsebin ! avdec_$c ! $SINK")
    fi
    for r in $(seq "$RUNS"); do
        for row in "${rows[@]}"; do
            label=${row%%|*}; desc=${row#*|}
            BENCH_EXTRA="codec=$c run=$r" run_decode "$label" $HEADER -- "$desc"
            HEADER=""
            PROC_FPS[$c/$label]=$(best "$(awk -v n="$(result_get frames)" -v t="$(result_get process_s)" 'BEGIN { if (t > 0) printf "%.1f", n / t }')" "${PROC_FPS[$c/$label]:-0}")
            STEADY_FPS[$c/$label]=$(best "$(result_get steady_fps)" "${STEADY_FPS[$c/$label]:-0}")
        done
        ffrows=()
        { [ "$CUDA" = 1 ] || named ffmpeg-cuda; } && want ffmpeg-cuda && \
            ffrows+=("ffmpeg cuda|-hwaccel cuda -hwaccel_output_format cuda")
        [ "$CUDA" = 1 ] && [ -n "$DECODERS" ] && want ffmpeg-cuda-t1 && \
            ffrows+=("ffmpeg cuda -threads 1|-threads 1 -hwaccel cuda -hwaccel_output_format cuda")
        { [ "$VULKAN" = 1 ] || named ffmpeg-vulkan; } && want ffmpeg-vulkan && \
            ffrows+=("ffmpeg vulkan|-hwaccel vulkan -hwaccel_output_format vulkan")
        want ffmpeg-cpu && ffrows+=("ffmpeg CPU|")
        for row in "${ffrows[@]}"; do
            label=${row%%|*}; opts=${row#*|}
            lt=$(mktemp); rm -f "$lt"
            # shellcheck disable=SC2086
            LAVC_TIME_OUT=$lt LD_PRELOAD=${LAVC_TIME_SO:-} BENCH_EXTRA="codec=$c run=$r" \
                run_decode "$label" --frames "$N" --exec -- \
                ffmpeg -v error -nostdin $opts -i "$F" -f null -
            PROC_FPS[$c/$label]=$(best "$(result_get fps)" "${PROC_FPS[$c/$label]:-0}")
            if [ -s "$lt" ]; then
                sf=$(tr ' ' '\n' < "$lt" | sed -n 's/^steady_fps=//p' | head -n1)
                echo "    ($label: steady $sf fps from the first to the last decoded frame, lavc-time)"
                STEADY_FPS[$c/$label]=$(best "$sf" "${STEADY_FPS[$c/$label]:-0}")
            fi
            rm -f "$lt"
        done
    done
    echo
    echo "Best of $RUNS run(s), $c:"
    echo
    echo "| decoder | fps, whole process | steady fps |"
    echo "| --- | ---: | ---: |"
    for k in "${!PROC_FPS[@]}"; do
        case "$k" in "$c/"*) printf '| %s | %.0f | %.0f |\n' "${k#*/}" "${PROC_FPS[$k]}" "${STEADY_FPS[$k]:-0}" ;; esac
    done | sort
    a=${PROC_FPS[$c/avhwdec $DEVICE]:-0}; as=${STEADY_FPS[$c/avhwdec $DEVICE]:-0}
    for ref in "ffmpeg cuda" "ffmpeg cuda -threads 1" "ffmpeg vulkan" "nv${c}dec" "avdec_$c (CPU)" "ffmpeg CPU"; do
        b=${PROC_FPS[$c/$ref]:-}; bs=${STEADY_FPS[$c/$ref]:-}
        [ -n "$b" ] || continue
        awk -v n="$ref" -v a="$a" -v b="$b" -v as="$as" -v bs="$bs" 'BEGIN {
            printf "- avhwdec / %s: %.2fx whole process, %.2fx steady\n", n, (b > 0 ? a / b : 0), (bs > 0 ? as / bs : 0) }'
    done
    echo
done
