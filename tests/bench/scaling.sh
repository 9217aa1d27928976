#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# scaling.sh - K concurrent streams (issue 8, items 3 to 5). Prints Markdown.
#
# Usage: scaling.sh [--device D] [--props P] [--clip F] [--streams "1 2 4 7"] [--no-nvdec]
#                   [--decoders "avhwdec ffmpeg nvdec"]
#   --device D    avhwdec device (default auto)
#   --props P     more avhwdec properties (fallback=false)
#   --clip F      default .gpu/bench/bench-1080p-h264.mp4
#   --streams L   stream counts (default "1 2 4 7")
#
# For each K:
#   avhwdec, K pipelines in one process   filesrc ! parsebin ! avhwdec device=D ! fakesink
#   ffmpeg cuda, K processes (CUDA)       ffmpeg -hwaccel cuda -hwaccel_output_format cuda -i F -f null -
#   nvh264dec, K pipelines in one process (CUDA, unless --no-nvdec)
#   ffmpeg vulkan, K processes (Vulkan devices: -hwaccel vulkan, each process
#                 its own VkDevice; where the hwaccel fails ffmpeg decodes in
#                 software, as on lavapipe)
#   ffmpeg CPU, K processes (other devices)
# Aggregate fps = all frames / (first start to last EOS or exit). Device memory:
# peak of the process (avhwdec, nvh264dec) or of the K processes summed (ffmpeg),
# from NVML, and for avhwdec also what the process holds at EOS; the
# per-decoder cost is (held(K) - held(1)) / (K - 1) (the peak includes the
# CUDA context's moment at full size before its stack limit is lowered).
# CPU ms/frame: user + system time of the process(es) over all frames.
set -u
. "$(dirname "$0")/bench-lib.sh"
DEVICE=auto
CLIP=$TOP/.gpu/bench/bench-1080p-h264.mp4
STREAMS="1 2 4 7"
NVDEC=1
DECODERS=""
PROPS=""
while [ $# -gt 0 ]; do
    case "$1" in
        --device) DEVICE=$2; shift 2 ;;
        --props) PROPS=$2; shift 2 ;;
        --clip) CLIP=$2; shift 2 ;;
        --streams) STREAMS=$2; shift 2 ;;
        --no-nvdec) NVDEC=0; shift ;;
        --decoders) DECODERS=$2; shift 2 ;;
        -h|--help) sed -n '2,/^set -u/{/^set -u/d;s/^# \{0,1\}//;p}' "$0"; exit 0 ;;
        *) echo "scaling: unknown argument $1" >&2; exit 2 ;;
    esac
done
find_bench_bin
[ -f "$CLIP" ] || { echo "scaling: no clip $CLIP (tests/bench/make-clips.sh)" >&2; exit 2; }
BENCH_NAME=scaling
CUDA=0; case "$DEVICE" in cuda*) CUDA=1 ;; esac
N=$(clip_frames "$CLIP"); [ "$N" -gt 0 ] || N=1800
C=h264; case "$CLIP" in *265*|*hevc*) C=h265 ;; esac
SINK="fakesink name=sink sync=false"

echo "## Scaling: concurrent streams (device=$DEVICE${PROPS:+ $PROPS}), $(basename "$CLIP"), $N frames each"
echo
machine_info
echo
declare -A FPS MEM HELD
HEADER=--header
NVDESC=""
if [ "$CUDA" = 1 ] && [ "$NVDEC" = 1 ] && want nvdec && has_element "nv${C}dec"; then
    SHORT=${CLIP%.mp4}-30f.mp4; [ -f "$SHORT" ] || SHORT=$CLIP
    NVDESC=$(nvdec_desc "$C" "$CLIP" "$SHORT")
fi
for k in $STREAMS; do
    if want avhwdec; then
        BENCH_EXTRA="k=$k" run_decode "avhwdec $DEVICE, 1 process" -k "$k" $HEADER -- \
            "filesrc location=$CLIP ! parsebin ! avhwdec device=$DEVICE${PROPS:+ $PROPS} ! $SINK"
        HEADER=""
        FPS[avhwdec/$k]=$(result_get fps); MEM[avhwdec/$k]=$(result_get peak_proc_mib)
        HELD[avhwdec/$k]=$(result_get eos_proc_mib)
    fi
    if [ "$CUDA" = 1 ]; then
        if want ffmpeg; then
            BENCH_EXTRA="k=$k" run_decode "ffmpeg cuda, $k process(es)" -k "$k" --frames "$N" $HEADER --exec -- \
                ffmpeg -v error -nostdin -hwaccel cuda -hwaccel_output_format cuda -i "$CLIP" -f null -
            HEADER=""
            FPS[ffmpeg/$k]=$(result_get fps); MEM[ffmpeg/$k]=$(result_get peak_proc_mib)
        fi
        if [ -n "$NVDESC" ]; then
            BENCH_EXTRA="k=$k" run_decode "nv${C}dec, 1 process" -k "$k" $HEADER -- "$NVDESC"
            HEADER=""
            FPS[nvdec/$k]=$(result_get fps); MEM[nvdec/$k]=$(result_get peak_proc_mib)
        fi
    elif want ffmpeg && [ "${DEVICE%%:*}" = vulkan ]; then
        BENCH_EXTRA="k=$k" run_decode "ffmpeg vulkan, $k process(es)" -k "$k" --frames "$N" --exec -- \
            ffmpeg -v error -nostdin -init_hw_device vulkan=vk -hwaccel vulkan \
            -hwaccel_device vk -hwaccel_output_format vulkan -i "$CLIP" -f null -
        FPS[ffmpeg/$k]=$(result_get fps); MEM[ffmpeg/$k]=$(result_get peak_proc_mib)
    elif want ffmpeg; then
        BENCH_EXTRA="k=$k" run_decode "ffmpeg CPU, $k process(es)" -k "$k" --frames "$N" --exec -- \
            ffmpeg -v error -nostdin -i "$CLIP" -f null -
        FPS[ffmpeg/$k]=$(result_get fps); MEM[ffmpeg/$k]=$(result_get peak_proc_mib)
    fi
done
echo
echo "| streams | avhwdec fps (1 process) | ffmpeg fps (K processes) | avhwdec / ffmpeg | nv${C}dec fps (1 process) | avhwdec dev MiB (peak / held at EOS) | per extra decoder MiB (held) | ffmpeg dev MiB (sum) | nv${C}dec dev MiB |"
echo "| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"
first=${STREAMS%% *}
for k in $STREAMS; do
    awk -v k="$k" -v a="${FPS[avhwdec/$k]:-}" -v f="${FPS[ffmpeg/$k]:-}" -v n="${FPS[nvdec/$k]:--}" \
        -v am="${MEM[avhwdec/$k]:--}" -v ah="${HELD[avhwdec/$k]:--}" -v a1="${HELD[avhwdec/$first]:--}" -v k1="$first" \
        -v fm="${MEM[ffmpeg/$k]:--}" -v nm="${MEM[nvdec/$k]:--}" 'BEGIN {
        per = (k > k1 && ah != "-" && a1 != "-" && ah >= 0 && a1 >= 0) ? sprintf("%.0f", (ah - a1) / (k - k1)) : "-"
        printf "| %d | %.0f | %.0f | %s | %s | %s / %s | %s | %s | %s |\n", k, a, f,
            (f > 0 ? sprintf("%.2f", a / f) : "-"), n, am, ah, per, fm, nm }'
done
