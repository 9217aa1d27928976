#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# vulkan-video.sh - Vulkan Video decoding through FFmpeg's vulkan hwaccel (issue 15,
# item 3), measured beside the cuda backend and ffmpeg, time-boxed, ending with one
# summary table. run-on-gpu.sh's vulkanvideo stage runs it with the bundle's
# environment (env.sh); it also runs from any environment where gst-avhw-info,
# gst-launch-1.0 and ffmpeg are the ones to measure (a rehearsal on lavapipe:
# DEVICE=vulkan in the Debian 13 chroot, where every decode part fails fast).
#
# Usage: vulkan-video.sh [--device D] [--cuda C] [--clips DIR] [--manifest M]
#                        [--out DIR] [--logs DIR] [--budget S] [--parts "LIST"]
#   --device D    the Vulkan device (default vulkan)
#   --cuda C      the CUDA device beside it (default cuda:0)
#   --clips DIR   tests/bench/make-clips.sh's clips (default .gpu/bench)
#   --manifest M  the conformance corpus (default .gpu/media/MANIFEST.tsv)
#   --out DIR     results (default $OUT or /tmp/gpu-out): conformance-vulkan.tsv,
#                 conformance-vulkan.md, vulkan-video.md (the summary table)
#   --logs DIR    per-part logs (default $LOGS/vulkan-video or /tmp/gpu-logs/...)
#   --budget S    seconds for everything (default 300); each part is time-boxed
#                 within what is left, and a part cut short says so
#   --parts LIST  of: info conformance throughput scaling memory reuse downloadrate
#                 download concurrent
#                 (default all, in that order)
# ffmpeg -hwaccel vulkan decodes in software where the hwaccel fails (lavapipe), so
# its row is a hardware figure only where avhwdec's says the device decodes.
# Parts:
#   info         gst-avhw-info's line for the device: what it decodes, bit depths
#   conformance  tests/gpu/conformance-gst.sh over the manifest through
#                avhwdec device=D fallback=false: bit-exact counts by codec
#   throughput   tests/bench/throughput.sh, one 1080p stream of H.264 and H.265:
#                avhwdec D, ffmpeg -hwaccel vulkan, ffmpeg -hwaccel cuda, then
#                avhwdec C; fps over the whole process (fallback=false)
#   scaling      tests/bench/scaling.sh, 1 and 7 H.264 streams on D in one process,
#                and 1 and 7 ffmpeg -hwaccel vulkan processes (a VkDevice each)
#   memory       peak device memory (nvidia-smi memory.used every 100 ms, over the
#                level before) of one H.264 stream on D and on C
#   reuse        avhw-bench-reuse -n 10 on the 30-frame H.264 and H.265 clips on D:
#                TTFF, clips per second, decoder cache hits (issue 17 on Vulkan)
#   downloadrate avhwdec ! avhwdownload ! fakesink (H.264 1080p) on D with threads=1
#                and by default, and on C: steady fps of frames leaving the device
#   download     avhwdec D ! vulkandownload ! videoconvert: the NV12 MD5
#                (videocodectestsink) against avhwdec D ! avhwdownload and ffmpeg's
#                software decoder, and the VkDevices the pipeline made (GST_DEBUG:
#                GStreamer's "Creating a device from physical", FFmpeg's "Device N
#                selected" or the backend's "made VkDevice" for FFmpeg, the backend's
#                "on GStreamer's" for a wrapped one)
#   hangs        (not in the default list) VV_HANG_STREAMS (manifest paths; default the
#                two corpus streams that hung through Vulkan) through ffmpeg -hwaccel
#                vulkan and avhwdec, 20 s each: exit, time, MD5, the last log lines
#   concurrent   elements_concurrent (every backend present, vulkan included)
#                CONCURRENT_REPEAT times (default 50): passes, crashes (exit 139 or
#                another signal), other failures
# Exits 0 after SKIP when the FFmpeg in use has no Vulkan decoder (FFmpeg < 6.1:
# the Debian 12 bundle) or there is no Vulkan device; otherwise 0 too: the table
# is the result. Env: CONF_JOBS (4), VV_CONF_S (90: the conformance part's seconds),
# VV_CONF_TIMEOUT (30: seconds per stream there),
# CONCURRENT_REPEAT (50), CONCURRENT_BIN
# (elements_concurrent: $GPUBUNDLE/bin, else build*/tests/check), PLUGINS (plugin
# folder for elements_concurrent: $GPUBUNDLE/plugins, else GST_PLUGIN_PATH as set).
set -u
TOP=$(cd "$(dirname "$0")/../.." && pwd)
cd "$TOP" || exit 1
export LC_ALL=C
T0=$(date +%s)
DEV=vulkan
CUDA_DEV=cuda:0
CLIPS=.gpu/bench
MANIFEST=.gpu/media/MANIFEST.tsv
VOUT=${OUT:-/tmp/gpu-out}
VLOGS=${LOGS:-/tmp/gpu-logs}/vulkan-video
BUDGET=300
PARTS="info conformance throughput scaling memory reuse downloadrate download concurrent"
while [ $# -gt 0 ]; do
    case "$1" in
        --device) DEV=$2; shift 2 ;;
        --cuda) CUDA_DEV=$2; shift 2 ;;
        --clips) CLIPS=$2; shift 2 ;;
        --manifest) MANIFEST=$2; shift 2 ;;
        --out) VOUT=$2; shift 2 ;;
        --logs) VLOGS=$2; shift 2 ;;
        --budget) BUDGET=$2; shift 2 ;;
        --parts) PARTS=$2; shift 2 ;;
        -h|--help) sed -n '2,/^set -u/{/^set -u/d;s/^# \{0,1\}//;p}' "$0"; exit 0 ;;
        *) echo "vulkan-video: unknown argument $1" >&2; exit 2 ;;
    esac
done
mkdir -p "$VOUT" "$VLOGS"
REPEAT=${CONCURRENT_REPEAT:-50}
H264=$CLIPS/bench-1080p-h264.mp4

left() { echo $(( BUDGET - ($(date +%s) - T0) )); }
# budget CAP: seconds a part may take: CAP, or what is left less 10 s for the table
budget() { local l; l=$(( $(left) - 10 )); [ "$l" -lt "$1" ] && echo "$l" || echo "$1"; }
part() { echo; echo "---------- vulkanvideo: $* ($(( $(date +%s) - T0 )) s in, $(left) s left)"; }
has_part() { case " $PARTS " in *" $1 "*) return 0 ;; esac; return 1; }
ROWS=()
row() { ROWS+=("| $1 | $2 |"); }
# enough CAP: TRUE when at least CAP seconds are left for a part, else a row says so
enough() {
    [ "$(budget 1000)" -ge "$1" ] && return 0
    row "$2" "NOT RUN (out of time: $(left) s left)"
    return 1
}

table() {
    local gpu
    gpu=$(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null | head -n1)
    {
        echo "## Vulkan Video (issue 15): device=$DEV beside $CUDA_DEV"
        echo
        echo "- $(head -n1 "$VLOGS/info.txt" 2>/dev/null); $(gst-launch-1.0 --version 2>/dev/null | sed -n 's/^GStreamer /GStreamer /p' | head -n1)"
        echo "- GPU: ${gpu:-none (no nvidia-smi)}"
        echo "- VK_DRIVER_FILES=${VK_DRIVER_FILES:-unset}; $(( $(date +%s) - T0 )) s of $BUDGET"
        echo
        echo "| measure | result |"
        echo "| --- | --- |"
        printf '%s\n' "${ROWS[@]}"
    } > "$VOUT/vulkan-video.md"
    echo
    cat "$VOUT/vulkan-video.md"
}

# --- info: also decides whether the rest can run
timeout 60 gst-avhw-info > "$VLOGS/info.txt" 2>&1
echo "gst-avhw-info exit $?"
LAVC=$(head -n1 "$VLOGS/info.txt" | sed -n 's/.*libavcodec \([0-9]*\)\..*/\1/p')
IDX=${DEV#vulkan}; IDX=${IDX#:}; IDX=${IDX:-0}
DESC=$(sed -n "s/^    vulkan:$IDX  //p" "$VLOGS/info.txt" | head -n1)
DECODE=$(awk -v d="    vulkan:$IDX  " 'index($0, d) == 1 { on = 1; next }
    on && /^    [a-z]/ { exit } on && /^      decode:/ { sub(/^ *decode: /, ""); print; exit }' "$VLOGS/info.txt")
if has_part info; then
    part "info"
    sed -n "/^  vulkan:/,/^  [a-z]/p" "$VLOGS/info.txt" | sed '$d'
    row "gst-avhw-info vulkan:$IDX" "${DESC:-no such device}: decode: ${DECODE:-?}"
fi
if [ -z "$LAVC" ] || [ "$LAVC" -lt 60 ]; then
    echo "SKIP vulkanvideo: FFmpeg libavcodec ${LAVC:-?} (FFmpeg 5.1 is 59) has no Vulkan decoder; FFmpeg >= 6.1 has: run it with the Debian 13 bundle (BUNDLES=d13)"
    row "decode parts" "SKIP: FFmpeg libavcodec ${LAVC:-?} has no Vulkan decoder (FFmpeg >= 6.1 needed: BUNDLES=d13)"
    # elements_concurrent has Vulkan in it all the same (software decoding
    # uploaded to the device): only that part runs
    if ! has_part concurrent; then
        table
        exit 0
    fi
    PARTS=concurrent
fi
if [ -z "$DESC" ] && [ "$PARTS" != concurrent ]; then
    echo "SKIP vulkanvideo: no device $DEV in gst-avhw-info"
    row "all parts" "SKIP: no device $DEV ($(grep -A1 '^  vulkan:' "$VLOGS/info.txt" | tail -n1 | sed 's/^ *//'))"
    table
    exit 0
fi
case "$DECODE" in
    h264\ \(*) ;;
    *) echo "note: $DEV does not decode H.264 in hardware here (${DECODE:-?}): every decode part with fallback=false is expected to fail, quickly" ;;
esac

# --- conformance
if has_part conformance && enough 30 "conformance, avhwdec device=$DEV fallback=false"; then
    part "conformance: $MANIFEST through avhwdec device=$DEV fallback=false"
    b=$(budget "${VV_CONF_S:-90}")
    rm -f "$VOUT/conformance-vulkan.tsv"
    timeout -k 10 "$b" bash tests/gpu/conformance-gst.sh --device "$DEV" --fallback false \
        --jobs "${CONF_JOBS:-4}" --timeout "${VV_CONF_TIMEOUT:-30}" --logdir "$VLOGS/conformance" \
        --results "$VOUT/conformance-vulkan.tsv" "$MANIFEST" > "$VOUT/conformance-vulkan.md" 2>&1
    rc=$?
    grep -E '^\||passed,' "$VOUT/conformance-vulkan.md"
    echo "conformance-gst exit $rc (124: cut at ${b} s)"
    if [ -s "$VOUT/conformance-vulkan.tsv" ]; then
        # result, file (CODEC/NAME), reason
        totals=$(awk -F'\t' '{ split($2, f, "/"); n[f[1]]++; if ($1 == "PASS") p[f[1]]++ }
            END { for (c in n) printf "%s %d/%d, ", c, p[c], n[c] }' "$VOUT/conformance-vulkan.tsv" | sed 's/, $//')
        # the commonest reason of the rest, to say at a glance why
        why=$(awk -F'\t' '$1 != "PASS" { sub(/;.*/, "", $3); sub(/ \(fallback=false\): set fallback=true.*lists them\)\./, ":", $3); print substr($3, 1, 160) }' "$VOUT/conformance-vulkan.tsv" |
            sort | uniq -c | sort -rn | head -n1 | sed 's/^ *//')
        row "conformance, bit-exact (fallback=false)" "$totals${why:+; most common other: $why}"
    else
        row "conformance, bit-exact (fallback=false)" "no results (exit $rc$([ "$rc" = 124 ] && echo ", cut at $b s"))"
    fi
fi

# --- throughput: RESULT lines of both throughput.sh calls in one file
# fps_of BENCH CODEC LABEL [K]: whole-process fps (ffmpeg: fps, which counts from
# process start; pipelines: frames / process_s), "failed" or "-"
fps_of() {
    awk -v b="$1" -v c="$2" -v l="$3" -v k="${4:-}" '{
        split("", kv); for (i = 1; i <= NF; i++) { split($i, a, "="); kv[a[1]] = a[2] }
        if (kv["bench"] != b || kv["label"] != l) next
        if (c != "" && kv["codec"] != c) next
        if (k != "" && kv["k"] != k) next
        f = (kv["steady_fps"] == "-" || kv["process_s"] <= 0) ? kv["fps"] : kv["frames"] / kv["process_s"]
        if (kv["failures"] > 0 || kv["frames"] == 0) v = "failed"; else v = sprintf("%.0f", f)
        m = kv["peak_gpu_delta_mib"]; agg = sprintf("%.0f", kv["fps"])
    } END { if (v == "") v = "-"; print v, agg, m }' "$VLOGS/results.txt" 2>/dev/null
}
export BENCH_RESULTS=$VLOGS/results.txt
rm -f "$BENCH_RESULTS"
if has_part throughput && enough 30 "throughput"; then
    part "throughput: one 1080p stream, $DEV and ffmpeg's hwaccels, then $CUDA_DEV"
    b=$(budget 80)
    timeout -k 5 "$b" bash tests/bench/throughput.sh --device "$DEV" --props fallback=false \
        --clips "$CLIPS" --runs 1 --decoders "avhwdec ffmpeg-vulkan ffmpeg-cuda" > "$VLOGS/throughput-vulkan.md"
    echo "throughput.sh --device $DEV exit $? (124: cut at ${b} s)"
    b=$(budget 40)
    if [ "$b" -ge 10 ]; then
        timeout -k 5 "$b" bash tests/bench/throughput.sh --device "$CUDA_DEV" --props fallback=false \
            --clips "$CLIPS" --runs 1 --decoders avhwdec > "$VLOGS/throughput-cuda.md"
        echo "throughput.sh --device $CUDA_DEV exit $? (124: cut at ${b} s)"
    fi
    grep -hE '^\| ' "$VLOGS/throughput-vulkan.md" "$VLOGS/throughput-cuda.md" 2>/dev/null | grep -v -- '---'
    for c in h264 h265; do
        r=""
        for l in "avhwdec $DEV" "avhwdec $CUDA_DEV" "ffmpeg vulkan" "ffmpeg cuda"; do
            read -r v _ _ <<< "$(fps_of throughput "$c" "${l// /_}")"
            r="$r${r:+, }$l ${v:--}"
        done
        row "throughput $c 1080p, fps (whole process)" "$r"
    done
fi

# --- scaling
if has_part scaling && enough 20 "scaling H.264, 7 streams on $DEV"; then
    part "scaling: 1 and 7 H.264 streams on $DEV in one process, and in 7 ffmpeg processes"
    b=$(budget 100)
    timeout -k 5 "$b" bash tests/bench/scaling.sh --device "$DEV" --props fallback=false \
        --clip "$H264" --streams "1 7" --decoders "avhwdec ffmpeg" > "$VLOGS/scaling.md"
    echo "scaling.sh exit $? (124: cut at ${b} s)"
    grep -E '^\| ' "$VLOGS/scaling.md" | grep -v -- '---'
    label="avhwdec $DEV, 1 process"; label=${label// /_}
    read -r _ f1 m1 <<< "$(fps_of scaling "" "$label" 1)"
    read -r s7 f7 m7 <<< "$(fps_of scaling "" "$label" 7)"
    read -r _ g1 _ <<< "$(fps_of scaling "" "ffmpeg_vulkan,_1_process(es)" 1)"
    read -r _ g7 _ <<< "$(fps_of scaling "" "ffmpeg_vulkan,_7_process(es)" 7)"
    row "scaling H.264 on $DEV, one process" "7 streams: ${f7:--} fps aggregate$([ "$s7" = failed ] && echo " (failed)") (GPU memory +${m7:--} MiB); 1 stream: ${f1:--} fps (+${m1:--} MiB); ffmpeg -hwaccel vulkan, 7 processes: ${g7:--} fps aggregate (1: ${g1:--})"
fi

# --- memory: nvidia-smi memory.used while one stream decodes
# mem_peak DEVICE: "+N MiB" (peak over the level before) or why not
mem_peak() {
    local d=$1 log=$VLOGS/memory-${1//:/_} b base peak pid rc
    b=$(budget 40)
    if ! command -v nvidia-smi > /dev/null; then echo "n/a (no nvidia-smi)"; return; fi
    base=$(nvidia-smi --query-gpu=memory.used --format=csv,noheader,nounits 2>/dev/null | head -n1)
    timeout -k 5 "$b" gst-launch-1.0 filesrc location="$H264" ! parsebin ! \
        avhwdec device="$d" fallback=false ! fakesink sync=false > "$log.log" 2>&1 &
    pid=$!
    : > "$log.samples"
    while kill -0 "$pid" 2> /dev/null; do
        nvidia-smi --query-gpu=memory.used --format=csv,noheader,nounits 2>/dev/null | head -n1 >> "$log.samples"
        sleep 0.1
    done
    wait "$pid"; rc=$?
    peak=$(sort -n "$log.samples" | tail -n1)
    if [ "$rc" != 0 ]; then echo "failed (gst-launch exit $rc: $(grep -m1 -E 'ERROR' "$log.log" | cut -c1-100))"; return; fi
    echo "+$(( ${peak:-0} - ${base:-0} )) MiB (peak ${peak:-?} of $(wc -l < "$log.samples") samples, ${base:-?} before)"
}
if has_part memory && enough 15 "device memory, one H.264 stream"; then
    part "memory: one H.264 stream, nvidia-smi memory.used"
    mv=$(mem_peak "$DEV"); echo "$DEV: $mv"
    mc=$(mem_peak "$CUDA_DEV"); echo "$CUDA_DEV: $mc"
    row "device memory, one H.264 stream (nvidia-smi)" "$DEV $mv; $CUDA_DEV $mc"
fi

# --- reuse (issue 17 on vulkan): 30-frame clips one after another in one process
if has_part reuse && enough 20 "reuse, 30-frame clips in one process"; then
    part "reuse: avhw-bench-reuse -n 10 on the 30-frame clips, device=$DEV"
    r=""
    for c in h264 h265; do
        b=$(budget 60)
        timeout -k 5 "$b" avhw-bench-reuse -n 10 -d "$DEV" "$CLIPS/bench-1080p-$c-30f.mp4" \
            > "$VLOGS/reuse-$c.md" 2>&1
        echo "avhw-bench-reuse $c exit $?"
        grep -E '^summary|^phases' "$VLOGS/reuse-$c.md"
        res=$(grep '^RESULT' "$VLOGS/reuse-$c.md")
        get() { echo "$res" | tr ' ' '\n' | sed -n "s/^$1=//p"; }
        r="$r${r:+; }$c: TTFF first $(get ttff_first_ms) ms, median $(get ttff_median_ms) ms, $(get clips_per_s) clips/s, decoder hits $(get decoder_hits)"
    done
    row "reuse, 10 x 30-frame 1080p clips on $DEV" "$r"
fi

# --- downloadrate: how fast decoded frames leave the device (avhwdownload)
if has_part downloadrate && enough 20 "avhwdec ! avhwdownload rate"; then
    part "downloadrate: avhwdec ! avhwdownload ! fakesink, H.264 1080p"
    r=""
    for d in "$DEV threads=1" "$DEV" "$CUDA_DEV"; do
        b=$(budget 40)
        timeout -k 5 "$b" avhw-bench-decode --no-memory --label "$d" \
            "filesrc location=$H264 ! parsebin ! avhwdec device=${d%% *} fallback=false ${d#"${d%% *}"} ! avhwdownload ! fakesink name=sink sync=false" \
            > "$VLOGS/downloadrate.txt" 2> "$VLOGS/downloadrate.err"
        echo "$d: exit $?"
        res=$(grep '^RESULT' "$VLOGS/downloadrate.err")
        get() { echo "$res" | tr ' ' '\n' | sed -n "s/^$1=//p"; }
        r="$r${r:+; }$d: $(get steady_fps) fps steady"
    done
    echo "$r"
    row "avhwdec ! avhwdownload, H.264 1080p" "$r"
fi

# --- download: GStreamer's vulkandownload after avhwdec, bit-exact? how many VkDevices?
# vd_md5 NAME PIPELINE-TAIL...: the MD5 videocodectestsink posts (visible NV12 rows,
# chroma de-interleaved: what `ffmpeg -pix_fmt yuv420p -f md5` gives)
# VD_DEBUG: GST_DEBUG for the run (the first counts VkDevices and wrapped frames:
# a verbose log that slows decoding down to ~45 fps; the others run with *:2).
vd_md5() {
    local name=$1 b; shift
    b=$(budget 60)
    GST_DEBUG="${VD_DEBUG:-*:2}" GST_DEBUG_NO_COLOR=1 \
        timeout -k 5 "$b" gst-launch-1.0 -m filesrc location="$H264" ! parsebin ! "$@" ! \
        video/x-raw,format=NV12 ! videocodectestsink > "$VLOGS/$name.log" 2>&1
    echo "$name: gst-launch exit $? (limit ${b} s): $*"
    grep -m1 -oE 'conformance/checksum.*checksum=\(string\)[0-9a-f]{32}' "$VLOGS/$name.log" |
        grep -oE '[0-9a-f]{32}$' > "$VLOGS/$name.md5"
}
if has_part download && enough 20 "avhwdec ! vulkandownload"; then
    part "download: avhwdec device=$DEV ! vulkandownload, MD5 and VkDevices"
    if ! timeout 30 gst-inspect-1.0 vulkandownload > /dev/null 2>&1; then
        row "avhwdec ! vulkandownload" "SKIP: no vulkandownload element"
    else
        VD_DEBUG="*:2,vulkandevice:4,avhwvulkan*:5,avhwvulkanexport:6,avhw-ffmpeg:5" \
            vd_md5 vulkandownload avhwdec device="$DEV" fallback=false ! vulkandownload ! videoconvert
        # the same across a queue: GStreamer and FFmpeg submit from two threads
        vd_md5 vulkandownload-queue avhwdec device="$DEV" fallback=false ! queue ! vulkandownload ! videoconvert
        vd_md5 avhwdownload avhwdec device="$DEV" fallback=false ! avhwdownload
        timeout -k 5 "$(budget 60)" ffmpeg -v error -nostdin -i "$H264" -map 0:v:0 -pix_fmt yuv420p -f md5 - \
            2> "$VLOGS/ffmpeg-md5.err" | sed 's/^MD5=//' > "$VLOGS/ffmpeg.md5"
        m_vd=$(cat "$VLOGS/vulkandownload.md5") m_ad=$(cat "$VLOGS/avhwdownload.md5") m_ff=$(cat "$VLOGS/ffmpeg.md5")
        m_vq=$(cat "$VLOGS/vulkandownload-queue.md5")
        echo "md5: vulkandownload ${m_vd:-none}, avhwdownload ${m_ad:-none}, ffmpeg software ${m_ff:-none}"
        L=$VLOGS/vulkandownload.log
        n_gst=$(grep -c 'Creating a device from physical' "$L")
        n_ff=$(grep -cE 'Device [0-9]+ selected|made VkDevice .* for FFmpeg' "$L")
        n_wrap=$(grep -c "on GStreamer's" "$L")
        n_frames=$(grep -c 'wrapped [0-9]* VkImage' "$L")
        n_copies=$(grep -c 'not lent, to be copied' "$L")
        grep -m3 -E "ERROR|cannot use GStreamer's|not-negotiated" "$L" | cut -c1-240
        ex=no; [ -n "$m_vd" ] && [ "$m_vd" = "$m_ad" ] && ex=yes
        ffx=no; [ -n "$m_vd" ] && [ "$m_vd" = "$m_ff" ] && ffx=yes
        err=$(grep -m1 -oE 'ERROR: from element [^ ]*: .*' "$L" | cut -c1-120)
        row "avhwdec ! vulkandownload (H.264 1080p)" "MD5 ${m_vd:-none}$([ -n "$err" ] && echo " ($err)"); = avhwdownload: $ex; = ffmpeg software: $ffx; VkDevices made: $(( n_gst + n_ff )) (GStreamer $n_gst, FFmpeg $n_ff), FFmpeg on GStreamer's: $n_wrap; frames wrapped: $n_frames, of them device copies of a decoder's reference image: $n_copies; across a queue: $([ -n "$m_vq" ] && [ "$m_vq" = "$m_ad" ] && echo bit-exact || echo "MD5 ${m_vq:-none}")"
    fi
fi

# --- hangs: streams that hung in the corpus through Vulkan (runs 37-38), each through
# ffmpeg -hwaccel vulkan and avhwdec under a 20 s timeout: exit, time, MD5 against the
# manifest, how many frames avhwdec sent into FFmpeg, and the last log lines
if has_part hangs && enough 30 "hangs"; then
    part "hangs: ${VV_HANG_STREAMS:=h264/MR2_TANDBERG_E.264 h264/FRExt4_Panasonic.avc}"
    mdir=$(dirname "$MANIFEST")
    for st in $VV_HANG_STREAMS; do
        f=$mdir/$st; n=$(basename "$st"); ref=$(awk -F'\t' -v s="$st" '$1 == s { print $7 }' "$MANIFEST")
        [ -f "$f" ] || { row "hang probe $n" "no file $f"; continue; }
        # ffmpeg as it is, and with avhwdec's strict compliance for H.264
        for fo in "" "-strict strict"; do
            k=ffmpeg$(echo "$fo" | tr ' ' '_')
            t=$(date +%s%N)
            # shellcheck disable=SC2086  # fo: options
            timeout -k 5 20 ffmpeg -v verbose -nostdin $fo -init_hw_device vulkan=vk -hwaccel vulkan -hwaccel_device vk \
                -i "$f" -pix_fmt yuv420p -f md5 - > "$VLOGS/hang-$n.$k.md5" 2> "$VLOGS/hang-$n.$k.log"
            rf=$?; tf=$(( ($(date +%s%N) - t) / 1000000 ))
            mf=$(sed 's/^MD5=//' "$VLOGS/hang-$n.$k.md5")
            echo "== $n: ffmpeg ${fo:-(defaults)} exit $rf in $tf ms (md5 ${mf:-none}), reference $ref"
            echo "-- last lines:"; tail -n 8 "$VLOGS/hang-$n.$k.log" | cut -c1-200
            row "hang probe $n (reference MD5 ${ref:-?}), ffmpeg -hwaccel vulkan ${fo}" "exit $rf in $tf ms, $([ -n "$mf" ] && [ "$mf" = "$ref" ] && echo bit-exact || echo "MD5 ${mf:-none}")"
        done
        # avhwdec once per property set (VV_HANG_VARIANTS, ';'-separated): what
        # differs from the ffmpeg CLI (frame threads, extra surfaces) and the fallback
        IFS=';' read -r -a variants <<< "${VV_HANG_VARIANTS:-fallback=false;fallback=false threads=1;fallback=false extra-frames=0;fallback=true}"
        for v in "${variants[@]}"; do
            k=$(echo "$v" | tr ' =' '_-')
            t=$(date +%s%N)
            # shellcheck disable=SC2086  # the variant is a property list
            GST_DEBUG="*:2,avhwdec:5,avhw-ffmpeg:5,avhwvulkan*:4" GST_DEBUG_NO_COLOR=1 timeout -k 5 20 \
                gst-launch-1.0 -m filesrc location="$f" ! h264parse ! avhwdec device="$DEV" $v ! \
                avhwdownload ! videoconvert ! video/x-raw,format=I420 ! videocodectestsink > "$VLOGS/hang-$n.$k.gst.log" 2>&1
            rg=$?; tg=$(( ($(date +%s%N) - t) / 1000000 ))
            mg=$(grep -m1 -oE 'checksum=\(string\)[0-9a-f]{32}' "$VLOGS/hang-$n.$k.gst.log" | grep -oE '[0-9a-f]{32}$')
            nf=$(grep -c 'Decoding frame\|Frame num gap\|Decoding pic' "$VLOGS/hang-$n.$k.gst.log")
            echo "== $n, avhwdec $v: exit $rg in $tg ms (md5 ${mg:-none})"
            echo "-- last lines:"; grep -v 'Decoding frame' "$VLOGS/hang-$n.$k.gst.log" | grep -E 'WARN|ERROR|failed|fallback|software' | tail -n 10 | cut -c1-260
            row "hang probe $n, avhwdec $v" "exit $rg in $tg ms, $([ -n "$mg" ] && [ "$mg" = "$ref" ] && echo bit-exact || echo "MD5 ${mg:-none}"), $nf decode log lines"
        done
    done
fi

# --- concurrent: elements_concurrent again and again
if has_part concurrent && enough 20 "elements_concurrent x $REPEAT"; then
    part "concurrent: elements_concurrent x $REPEAT"
    bin=${CONCURRENT_BIN:-}
    for c in "${GPUBUNDLE:-/nonexistent}/bin/elements_concurrent" "${BUILD_DIR:-build}/tests/check/elements_concurrent" \
        build-debian13/tests/check/elements_concurrent build/tests/check/elements_concurrent; do
        [ -z "$bin" ] && [ -x "$c" ] && bin=$c
    done
    plugins=${PLUGINS:-${GPUBUNDLE:+$GPUBUNDLE/plugins}}
    envs=("GST_REGISTRY_1_0=$VLOGS/concurrent.registry" CK_FORK=no CK_DEFAULT_TIMEOUT=60)
    [ -n "$plugins" ] && envs+=(GST_PLUGIN_SYSTEM_PATH_1_0= "GST_PLUGIN_PATH_1_0=$plugins")
    pass=0 skip=0 crash=0 fail=0 runs=0 crashes=""
    if [ -z "$bin" ]; then
        row "elements_concurrent" "NOT RUN: no elements_concurrent (CONCURRENT_BIN)"
    else
        for i in $(seq "$REPEAT"); do
            b=$(budget 60)
            [ "$b" -lt 10 ] && break
            log=$VLOGS/concurrent-$i.log
            env "${envs[@]}" timeout -k 5 "$b" "$bin" > "$log" 2>&1
            rc=$?
            runs=$i
            case $rc in
                0) pass=$((pass + 1)); [ "$i" = 1 ] || rm -f "$log" ;;
                77) skip=$((skip + 1)) ;;
                124|137) fail=$((fail + 1)); echo "run $i: timeout (${b} s)" ;;
                *) if [ "$rc" -gt 128 ]; then
                       crash=$((crash + 1)); crashes="$crashes $i(exit $rc)"
                       echo "run $i: CRASH exit $rc"; tail -n 5 "$log" | sed 's/^/     /'
                   else
                       fail=$((fail + 1)); echo "run $i: exit $rc"; grep -m3 -E ': (E|F):|SKIP|CRITICAL' "$log"
                   fi ;;
            esac
        done
        ran=$(grep -oE '^[a-z]+: [0-9]+ pipelines at once' "$VLOGS/concurrent-1.log" 2>/dev/null | cut -d: -f1 | tr '\n' ' ' | sed 's/ $//')
        echo "elements_concurrent: $runs of $REPEAT runs: $pass passed, $crash crashed, $fail failed, $skip skipped; backends: ${ran:-?}"
        row "elements_concurrent x $REPEAT (backends: ${ran:-?})" "$runs runs: $pass passed, $crash crashed${crashes:+ (runs$crashes)}, $fail failed, $skip skipped$([ "$runs" -lt "$REPEAT" ] && echo "; cut by the time box after $runs")"
    fi
fi

table
exit 0
