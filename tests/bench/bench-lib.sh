# SPDX-License-Identifier: LGPL-2.1-or-later
# Shared by the tests/bench scripts (sourced, not run).
#   BENCH_BIN   folder of avhw-bench-decode / avhw-bench-reuse (default: PATH,
#               then build-gpu/ and build/ of this tree)
#   BENCH_RESULTS  file that collects RESULT lines (key=value) for plot.py
# Environment for an uninstalled tree: point GST_PLUGIN_PATH at the build's
# ext/avhw and backends/* (tests/bench/README.md).
BENCH_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
TOP=$(cd "$BENCH_DIR/../.." && pwd)

find_bench_bin() {
    if [ -n "${BENCH_BIN:-}" ]; then return; fi
    if command -v avhw-bench-decode > /dev/null; then
        BENCH_BIN=$(dirname "$(command -v avhw-bench-decode)")
        return
    fi
    for d in "$TOP/build-gpu/tests/bench" "$TOP/build/tests/bench"; do
        if [ -x "$d/avhw-bench-decode" ]; then BENCH_BIN=$d; return; fi
    done
    echo "bench: avhw-bench-decode not found: build the tree (tests/bench/meson.build) or set BENCH_BIN" >&2
    exit 2
}

has_element() { gst-inspect-1.0 "$1" > /dev/null 2>&1; }

# frames of a clip's video stream, with ffprobe (counted) or from the name
clip_frames() {
    local f=$1 n=""
    if command -v ffprobe > /dev/null; then
        n=$(ffprobe -v error -select_streams v:0 -count_packets \
            -show_entries stream=nb_read_packets -of csv=p=0 "$f" 2>/dev/null | head -n1)
    fi
    echo "${n:-0}"
}

# run_decode LABEL [decode-bench options...] -- ARGS: runs avhw-bench-decode,
# prints its Markdown row, appends "bench=$BENCH_NAME $extra RESULT..." to
# $BENCH_RESULTS, and sets LAST_RESULT to the RESULT line.
run_decode() {
    local label=$1; shift
    local err rc
    err=$(mktemp)
    "$BENCH_BIN/avhw-bench-decode" --label "$label" "$@" 2> "$err"
    rc=$?
    LAST_RESULT=$(grep '^RESULT ' "$err" | tail -n1)
    grep -v '^RESULT ' "$err" | sed 's/^/    (stderr) /' | head -n 20 >&2
    if [ -n "${BENCH_RESULTS:-}" ] && [ -n "$LAST_RESULT" ]; then
        echo "bench=${BENCH_NAME:-?} ${BENCH_EXTRA:-} ${LAST_RESULT#RESULT }" >> "$BENCH_RESULTS"
    fi
    rm -f "$err"
    return $rc
}

# value of KEY in LAST_RESULT
result_get() { echo "$LAST_RESULT" | tr ' ' '\n' | sed -n "s/^$1=//p"; }

machine_info() {
    echo "- date: $(date -u '+%Y-%m-%d %H:%M UTC')"
    echo "- host: $(uname -n), $(nproc) CPU(s): $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')"
    if command -v nvidia-smi > /dev/null; then
        echo "- GPU: $(nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader 2>/dev/null | head -n1)"
    fi
    echo "- GStreamer: $(gst-launch-1.0 --version 2>/dev/null | sed -n 's/^GStreamer //p' | head -n1); FFmpeg: $(ffmpeg -version 2>/dev/null | head -n1 | cut -d' ' -f3)"
}

# nvdec_desc CODEC CLIP SHORTCLIP: a pipeline description for GStreamer's own
# NVDEC decoder (nvh264dec / nvh265dec) with CUDA memory out, the first of a
# few forms that decodes SHORTCLIP (parsebin's avc output does not link to
# every nvcodec build); empty when none does. The choice goes to stderr.
nvdec_desc() {
    local c=$1 f=$2 s=$3 parse=h264parse cand n
    [ "$c" = h265 ] && parse=h265parse
    for cand in \
        "filesrc location=@F@ ! parsebin ! nv${c}dec ! video/x-raw(memory:CUDAMemory) ! fakesink name=sink sync=false" \
        "filesrc location=@F@ ! qtdemux ! $parse ! nv${c}dec ! video/x-raw(memory:CUDAMemory) ! fakesink name=sink sync=false" \
        "filesrc location=@F@ ! qtdemux ! $parse ! video/x-${c/h265/h265},stream-format=byte-stream ! nv${c}dec ! video/x-raw(memory:CUDAMemory) ! fakesink name=sink sync=false" \
        "filesrc location=@F@ ! qtdemux ! $parse ! nv${c}dec ! fakesink name=sink sync=false"; do
        n=$("$BENCH_BIN/avhw-bench-decode" --label probe -- "${cand//@F@/$s}" 2>&1 | sed -n 's/.* frames=\([0-9]*\) .*/\1/p')
        if [ "${n:-0}" -gt 0 ]; then
            echo "nvdec_desc: nv${c}dec through: ${cand//@F@/F}" >&2
            echo "${cand//@F@/$f}"
            return
        fi
        echo "nvdec_desc: no frames through: ${cand//@F@/F}" >&2
    done
}

# named NAME: TRUE when --decoders (DECODERS) names NAME itself: rows of
# another device than --device's (ffmpeg cuda beside avhwdec device=vulkan)
named() { case " ${DECODERS:-} " in *" $1 "*) return 0 ;; esac; return 1; }

# want NAME: TRUE when the --decoders list (DECODERS, default all) has NAME
want() { [ -z "${DECODERS:-}" ] && return 0; case " $DECODERS " in *" $1 "*) return 0 ;; esac; return 1; }
