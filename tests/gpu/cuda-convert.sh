#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# cuda-convert.sh - the device's converter (issue 31) on the GPU machine,
# through decoded frames: 1080p H.264 and H.265 to 224x224 RGBP on the
# device. With a cuda device: NVDEC and the CUDA backend's cuda-convert;
# with a vulkan one: FFmpeg's Vulkan hwaccel and libplacebo. Prints Markdown.
#
#   bash tests/gpu/cuda-convert.sh [--device cuda:0|vulkan] [--clips .gpu/bench]
#                                  [--frames 60] [--codecs "h264 h265"]
#
# Per codec (F = CLIPS/bench-1080p-CODEC.mp4):
#   quality  the first FRAMES frames through avhwdec ! avhwconvertscale
#            (cuda: method=area, then bilinear; vulkan: bilinear, then
#            lanczos) ! RGBP (vulkan: RGBA) 224x224 ! avhwdownload, and
#            through avhwdec ! avhwdownload ! videoconvertscale (bilinear2,
#            then bilinear; vulkan: bilinear2, then lanczos) to the same caps:
#            PSNR of the two (tests/gpu/psnr.py over the raw planes; the
#            pass mark is 35 dB), and the active converter (must be
#            cuda-convert, or libplacebo)
#   speed    fps of the whole file through avhw-bench-decode: decode only
#            (avhwdec ! fakesink), decode + convert to 224x224, the same
#            letterboxed (cuda only: add-borders, pixel-aspect-ratio=1/1), the
#            same + avhwdownload, and avhwdownload ! videoconvertscale on the CPU
# PARTS (default "quality speed") picks the parts.
# FALLBACK=true (rehearsals without video decode, e.g. lavapipe) lets avhwdec
# decode in software.
# Exits 1 when a quality row is under 35 dB or not the expected converter.
set -u
. "$(dirname "$0")/../bench/bench-lib.sh"
DEVICE=cuda:0
CLIPS=$TOP/.gpu/bench
FRAMES=60
CODECS="h264 h265"
while [ $# -gt 0 ]; do
    case "$1" in
        --device) DEVICE=$2; shift 2 ;;
        --clips) CLIPS=$2; shift 2 ;;
        --frames) FRAMES=$2; shift 2 ;;
        --codecs) CODECS=$2; shift 2 ;;
        -h|--help) sed -n '3,19p' "$0"; exit 0 ;;
        *) echo "cuda-convert: unknown argument $1" >&2; exit 2 ;;
    esac
done
find_bench_bin
case $DEVICE in
    # libplacebo makes packed RGB only, has no area method (its bilinear
    # widens its kernel where it shrinks, as videoconvertscale's bilinear2)
    # and adds no borders
    vulkan*) MEM=memory:AVHWVulkan CONV=libplacebo FMT=RGBA PSNR_OPT=--rgba
             PAIRS="bilinear:bilinear2 lanczos:lanczos" BORDERS=0 ;;
    *) MEM=memory:AVHWCUDA CONV=cuda-convert FMT=RGBP PSNR_OPT=
       PAIRS="area:bilinear2 bilinear:bilinear~" BORDERS=1 ;;
esac
export BENCH_NAME=$CONV
OUTC="video/x-raw($MEM),format=$FMT,width=224,height=224"
CPUC="video/x-raw,format=$FMT,width=224,height=224"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
rc=0
echo "## $CONV: 1080p to 224x224 $FMT on $DEVICE"
echo
machine_info
echo
for c in $CODECS; do
    F=$CLIPS/bench-1080p-$c.mp4
    [ -f "$F" ] || { echo "cuda-convert: no clip $F (tests/bench/make-clips.sh $CLIPS)" >&2; rc=1; continue; }
    DEC="filesrc location=$F ! parsebin ! avhwdec device=$DEVICE fallback=${FALLBACK:-false}"
    echo "### $c: $(basename "$F")"
    echo
    echo "| method (videoconvertscale's) | PSNR (first $FRAMES frames) | converter |"
    echo "|---|---|---|"
    # a pair ending in ~ is for information, with no pass mark: at 1080p to
    # 224 videoconvertscale's bilinear spreads its two taps' triangle over
    # the ratio (nearly a mean of two pixels), where cuda-convert's is the
    # textbook one (two taps at the pixel's centre: torch's, OpenCV's)
    for pair in $PAIRS; do
        info=0
        case $pair in *\~) info=1 pair=${pair%\~} ;; esac
        m=${pair%%:*} cm=${pair#*:}
        dev=$tmp/$c-$m-dev.raw cpu=$tmp/$c-$m-cpu.raw
        # -v prints the element's active-converter in the caps notify lines
        timeout 120 gst-launch-1.0 -v $DEC ! identity eos-after="$FRAMES" ! \
            avhwconvertscale name=c method="$m" ! "$OUTC" ! avhwdownload ! \
            filesink location="$dev" > "$tmp/dev.log" 2>&1
        timeout 120 gst-launch-1.0 -q $DEC ! identity eos-after="$FRAMES" ! \
            avhwdownload ! videoconvertscale method="$cm" ! "$CPUC" ! \
            filesink location="$cpu" > "$tmp/cpu.log" 2>&1
        conv=$(sed -n 's/.*GstAvhwConvertScale:c: active-converter = \(.*\)$/\1/p' "$tmp/dev.log" | tail -n1)
        # the planes as they are on both sides (RGBP's three, RGBA's one);
        # tests/gpu/psnr.py: the bundle's FFmpeg has no psnr filter
        psnr=$(python3 tests/gpu/psnr.py "$dev" "$cpu" $PSNR_OPT 2>&1 | tail -n1)
        echo "| $m ($cm) | $psnr dB ($(( $(wc -c < "$dev") )) and $(( $(wc -c < "$cpu") )) bytes)$([ "$info" = 1 ] && echo ", for information") | ${conv:-?} |"
        [ "$info" = 1 ] || case "$psnr" in
            inf) ;;
            ''|*[!0-9.]*) rc=1 ;;
            *) awk "BEGIN { exit !($psnr >= 35) }" || rc=1 ;;
        esac
        [ "$conv" = "$CONV" ] || rc=1
    done
    echo
    # PARTS="quality": no speed rows (clips cut short for a smaller carry)
    case " ${PARTS:-quality speed} " in *" speed "*) ;; *) continue ;; esac
    S="fakesink name=sink sync=false"
    rows=(
        "decode only|$DEC ! $S"
        "decode + $CONV $FMT 224x224|$DEC ! avhwconvertscale ! $OUTC ! $S"
    )
    [ "$BORDERS" = 0 ] || rows+=(
        "... letterboxed|$DEC ! avhwconvertscale add-borders=true ! $OUTC,pixel-aspect-ratio=1/1 ! $S"
    )
    rows+=(
        "... + avhwdownload|$DEC ! avhwconvertscale ! $OUTC ! avhwdownload ! $S"
        "CPU: avhwdownload ! videoconvertscale|$DEC ! avhwdownload ! videoconvertscale method=bilinear2 ! $CPUC ! $S"
    )
    HEADER=--header
    for row in "${rows[@]}"; do
        label=${row%%|*}; desc=${row#*|}
        BENCH_EXTRA="codec=$c" run_decode "$label" $HEADER -- "$desc" ||
            echo "| $label | failed (exit $?): see the stderr lines above |"
        HEADER=""
    done
    echo
done
exit $rc
