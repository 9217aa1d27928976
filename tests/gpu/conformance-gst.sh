#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# conformance-gst.sh - bit-exact conformance of avhwdec over a MANIFEST.tsv,
# with gst-launch-1.0 alone (no Python, no PyGObject): for machines such as
# the GPU test machine, which has only the gpubundle (shared/gpu/README.md).
# It follows tests/conformance/conformance.py's rules (same pix_fmt map, same
# repack-only videoconvert, same alternate-MD5 and robustness-stream rules);
# conformance.py stays the reference harness where PyGObject exists.
#
# Usage: conformance-gst.sh [options] MANIFEST.tsv
#   --device D        avhwdec device (default auto), e.g. cuda:0, vulkan
#   --fallback B      avhwdec fallback=true|false (default false)
#   --decoder DESC    decoder bin instead of avhwdec (e.g. avdec_h264, decodebin);
#                     then --device/--fallback are unused
#   --demuxer E       the element E (e.g. qtdemux) in parsebin's place; the decoder
#                     description then starts with a parser (h264parse ! avhwdec)
#   --no-download     no avhwdownload after the decoder
#   --timeout S       per-stream limit in seconds (default 60); past it the
#                     stream is killed and FAILs (hang)
#   --jobs N          streams in parallel (default 1)
#   --filter RE       only files matching the extended regex RE
#   --files LIST      only the files listed in LIST (one manifest path a line)
#   --logdir DIR      keep each stream's gst-launch output there
#   --results FILE    also write the result lines (TSV: result file reason) there
#   --one-process     decode every stream in ONE process, one after the other, with
#                     avhw-decode-many (tests/bench/decode-many.c): devices and
#                     decoders are kept from stream to stream as in an application
#                     (issue 17); --jobs is unused. With it:
#     --shuffle SEED  shuffled order (each pass its own; awk's srand(SEED + pass))
#     --passes N      the list N times over (default 1)
#     --first LIST    comma-separated files decoded first, in this order (repeats
#                     allowed): e.g. pairs of equal coded size and different crop
#     --decoders-limit N  gst_avhw_cache_set_decoders_limit() in that process
#     --expect-reuse  exit 1 unless the decoder cache had hits
#
# Per stream it runs (F = the stream, FMT = the GStreamer name of its pix_fmt):
#   gst-launch-1.0 filesrc location=F ! parsebin ! avhwdec device=D fallback=B
#     ! avhwdownload ! videoconvert <repack only> ! video/x-raw,format=FMT
#     ! videocodectestsink location=OUT.yuv
# videocodectestsink writes the visible rows of every plane with no stride
# padding, so md5sum OUT.yuv equals `ffmpeg -f md5` of rawvideo (the
# manifest's ffmpeg_md5); the frame count is the file size over the frame size.
#
# One line per stream: RESULT<TAB>file<TAB>reason, with RESULT one of
#   PASS   MD5 equal (or an alternate "md5 with <how> = <md5>" from the notes)
#   FAIL   wrong MD5, a hang (timeout), a crash (signal), or no output at all
#   ERROR  the pipeline posted an error (its text is the reason)
#   SKIP   file missing, a pix_fmt with no GStreamer format, or the decoder
#          does not take the stream's caps (not-linked, no frame out)
# Robustness streams (notes "expect: error-or-concealment" or "reflects FFmpeg's
# own error concealment", or no/NONE ffmpeg_md5) PASS when the run ends by
# itself (EOS or error), without hang or crash.
# Then a per-codec table and the last line "N passed, N failed, N skipped"
# (failed includes ERROR). Exit status: 0 when nothing FAILed or ERRORed, else 1.
set -u
export LC_ALL=C

DEVICE=auto
FALLBACK=false
DECODER="" DEMUXER=""
DOWNLOAD=1
TIMEOUT=60
JOBS=1
FILTER=""
FILES=""
LOGDIR=""
RESULTS=""
MANIFEST=""
ONE_PROCESS=0
SHUFFLE=""
PASSES=1
FIRST=""
DEC_LIMIT=""
EXPECT_REUSE=0

while [ $# -gt 0 ]; do
    case "$1" in
        --device) DEVICE=$2; shift 2 ;;
        --fallback) FALLBACK=$2; shift 2 ;;
        --decoder) DECODER=$2; shift 2 ;;
        --demuxer) DEMUXER=$2; shift 2 ;;
        --no-download) DOWNLOAD=0; shift ;;
        --timeout) TIMEOUT=$2; shift 2 ;;
        --jobs) JOBS=$2; shift 2 ;;
        --filter) FILTER=$2; shift 2 ;;
        --files) FILES=$2; shift 2 ;;
        --logdir) LOGDIR=$2; shift 2 ;;
        --results) RESULTS=$2; shift 2 ;;
        --one-process) ONE_PROCESS=1; shift ;;
        --shuffle) SHUFFLE=$2; shift 2 ;;
        --passes) PASSES=$2; shift 2 ;;
        --first) FIRST=$2; shift 2 ;;
        --decoders-limit) DEC_LIMIT=$2; shift 2 ;;
        --expect-reuse) EXPECT_REUSE=1; shift ;;
        -h|--help) sed -n '2,/^set -u/{/^set -u/d;s/^# \{0,1\}//;p}' "$0"; exit 0 ;;
        -*) echo "conformance-gst: unknown option $1" >&2; exit 2 ;;
        *) MANIFEST=$1; shift ;;
    esac
done
[ -n "$MANIFEST" ] || { echo "usage: conformance-gst.sh [options] MANIFEST.tsv" >&2; exit 2; }
[ -f "$MANIFEST" ] || { echo "SKIP: no manifest $MANIFEST"; exit 77; }
MEDIA=$(cd "$(dirname "$MANIFEST")" && pwd)
command -v gst-launch-1.0 >/dev/null || { echo "conformance-gst: gst-launch-1.0 not found" >&2; exit 2; }

if [ -z "$DECODER" ]; then
    DECODER="avhwdec device=$DEVICE fallback=$FALLBACK"
    [ "$DOWNLOAD" = 1 ] && DECODER="$DECODER ! avhwdownload"
    LABEL="avhwdec device=$DEVICE fallback=$FALLBACK"
else
    LABEL=$DECODER
fi
CONVERT="videoconvert qos=false dither=none chroma-mode=none matrix-mode=none gamma-mode=none primaries-mode=none"

WORK=$(mktemp -d "${TMPDIR:-/tmp}/conformance-gst.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
[ -n "$LOGDIR" ] && mkdir -p "$LOGDIR"

# FFmpeg pix_fmt -> GStreamer format (as conformance.py; videocodectestsink
# takes I420, Y42B, Y444 and their 10/12-bit forms).
gst_format() {
    case "$1" in
        yuv420p|yuvj420p) echo I420 ;;
        yuv422p|yuvj422p) echo Y42B ;;
        yuv444p|yuvj444p) echo Y444 ;;
        yuv420p10le) echo I420_10LE ;;
        yuv422p10le) echo I422_10LE ;;
        yuv444p10le) echo Y444_10LE ;;
        yuv420p12le) echo I420_12LE ;;
        yuv422p12le) echo I422_12LE ;;
        yuv444p12le) echo Y444_12LE ;;
        *) echo "" ;;
    esac
}

# bytes of one frame of FMT at WxH, as videocodectestsink writes it
frame_bytes() {
    local fmt=$1 w=$2 h=$3 cw ch bps=1
    cw=$(( (w + 1) / 2 )); ch=$(( (h + 1) / 2 ))
    case "$fmt" in *_10LE|*_12LE) bps=2 ;; esac
    case "$fmt" in
        I420*) echo $(( (w * h + 2 * cw * ch) * bps )) ;;
        Y42B|I422*) echo $(( (w * h + 2 * cw * h) * bps )) ;;
        Y444*) echo $(( 3 * w * h * bps )) ;;
        *) echo 0 ;;
    esac
}

# run_one INDEX FILE CODEC PIXFMT MD5 NOTES: writes $WORK/INDEX.res
run_one() {
    local idx=$1 file=$2 codec=$3 pixfmt=$4 md5=$5 notes=$6
    local res=$WORK/$idx.res path=$MEDIA/$file fmt log out rc t0 t1 secs
    local robust=0 got alt how reason frames caps w h fb err sizes
    local tag
    tag=$(echo "$file" | tr '/' '_')
    log=${LOGDIR:-$WORK}/$tag.log
    [ "$ONE_PROCESS" = 1 ] && log=${LOGDIR:-$WORK}/$idx-$tag.log
    out=$WORK/$idx.yuv
    case "$notes" in
        *"expect: error-or-concealment"*|*"reflects FFmpeg's own error concealment"*) robust=1 ;;
    esac
    [ -z "$md5" ] || [ "$md5" = NONE ] && robust=1
    if [ ! -f "$path" ]; then
        printf 'SKIP\t%s\t%s\t%s\n' "$file" "$codec" "file missing" > "$res"; return
    fi
    fmt=$(gst_format "$pixfmt")
    if [ -z "$fmt" ] && [ "$robust" = 0 ]; then
        printf 'SKIP\t%s\t%s\t%s\n' "$file" "$codec" "no GStreamer format for pix_fmt '${pixfmt}'" > "$res"; return
    fi
    [ -n "$fmt" ] || fmt=I420
    if [ "$ONE_PROCESS" = 1 ]; then
        # avhw-decode-many already ran it: LOG and LOG.rc ("RC SECONDS")
        if [ ! -f "$log.rc" ]; then
            if [ -f "$log" ]; then
                printf 'FAIL\t%s\t%s\t%s\n' "$file" "$codec" "crash: avhw-decode-many ended in this stream" > "$res"
            else
                printf 'FAIL\t%s\t%s\t%s\n' "$file" "$codec" "not run: avhw-decode-many ended in an earlier stream" > "$res"
            fi
            return
        fi
        read -r rc secs < "$log.rc"
    else
        t0=$(date +%s.%N)
        # shellcheck disable=SC2086
        timeout -k 10 "$TIMEOUT" gst-launch-1.0 -v filesrc location="$path" ! "${DEMUXER:-parsebin}" ! \
            $DECODER ! $CONVERT ! video/x-raw,format=$fmt ! \
            videocodectestsink name=vcts location="$out" > "$log" 2>&1
        rc=$?
        t1=$(date +%s.%N)
        secs=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.2f", b - a }')
    fi
    got=""; [ -f "$out" ] && got=$(md5sum < "$out" | cut -d' ' -f1)
    # caps at the sink: every distinct size; frames from the size when one
    sizes=$(grep -o 'vcts.GstPad:sink: caps = video/x-raw[^;]*' "$log" | \
        sed -n 's/.*width=(int)\([0-9]*\), height=(int)\([0-9]*\).*/\1x\2/p' | sort -u)
    frames="?"
    if [ -f "$out" ] && [ "$(echo "$sizes" | grep -c x)" = 1 ]; then
        w=${sizes%x*}; h=${sizes#*x}
        fb=$(frame_bytes "$fmt" "$w" "$h")
        [ "$fb" -gt 0 ] && frames=$(( $(stat -c %s "$out") / fb ))
    elif [ ! -s "$out" ]; then
        frames=0
    fi
    rm -f "$out"
    err=$(grep -m1 '^ERROR: from element' "$log" | sed 's/^ERROR: from element [^ ]*: //')
    [ -n "$err" ] && err="$err ($(grep -m1 -A2 '^Additional debug info' "$log" | tail -n1 | cut -c1-200))"
    reason="${frames} frames, ${secs} s, out ${fmt}$( [ -n "$sizes" ] && echo " $(echo $sizes | tr ' ' ',')")"
    if [ "$rc" = 124 ] || [ "$rc" = 137 ]; then
        printf 'FAIL\t%s\t%s\t%s\n' "$file" "$codec" "timeout: no end in ${TIMEOUT} s (hang), $reason" > "$res"; return
    fi
    if [ "$rc" -gt 128 ]; then
        printf 'FAIL\t%s\t%s\t%s\n' "$file" "$codec" "crash: killed by signal $((rc - 128)), $reason" > "$res"; return
    fi
    if [ "$robust" = 1 ]; then
        how="decode ended"; [ -n "$err" ] && how="decode ended with an error ($err)"
        if [ -n "$md5" ] && [ "$got" = "$md5" ]; then how="$how; equals FFmpeg's concealment output"; fi
        printf 'PASS\t%s\t%s\t%s\n' "$file" "$codec" "robustness stream: $how, $reason" > "$res"; return
    fi
    if [ "$frames" = 0 ] && grep -q 'reason not-linked' "$log"; then
        printf 'SKIP\t%s\t%s\t%s\n' "$file" "$codec" "the decoder does not take this stream's caps (not-linked), $reason" > "$res"; return
    fi
    if [ "$rc" != 0 ] || [ -n "$err" ]; then
        printf 'ERROR\t%s\t%s\t%s\n' "$file" "$codec" "${err:-gst-launch exit $rc}; $reason" > "$res"; return
    fi
    if [ "$got" = "$md5" ]; then
        printf 'PASS\t%s\t%s\t%s\n' "$file" "$codec" "md5 ok, $reason" > "$res"; return
    fi
    # alternate MD5s named in the notes: "md5 with <how> = <md5>"
    alt=$(echo "$notes" | grep -oE 'md5 with [^=|]+= [0-9a-f]{32}' | while read -r l; do
        if [ "${l##* }" = "$got" ]; then echo "${l% = *}"; fi; done | head -n1)
    if [ -n "$alt" ]; then
        printf 'PASS\t%s\t%s\t%s\n' "$file" "$codec" "$alt, $reason" > "$res"; return
    fi
    if [ ! -s "$log" ] || [ "$frames" = 0 ]; then
        printf 'FAIL\t%s\t%s\t%s\n' "$file" "$codec" "no frames came out, $reason" > "$res"; return
    fi
    printf 'FAIL\t%s\t%s\t%s\n' "$file" "$codec" "md5 ${got:-none} != $md5, $reason" > "$res"
}
export -f run_one gst_format frame_bytes
export WORK MEDIA DECODER CONVERT TIMEOUT LOGDIR ONE_PROCESS

# the manifest's rows: file codec width height pix_fmt frames ffmpeg_md5 ... notes(12)
awk -F'\t' 'NR > 1 && $1 != "" { print NR "\t" $1 "\t" $2 "\t" $5 "\t" $7 "\t" $12 }' "$MANIFEST" > "$WORK/rows"
if [ -n "$FILTER" ]; then
    awk -F'\t' -v re="$FILTER" '$2 ~ re' "$WORK/rows" > "$WORK/rows.f" && mv "$WORK/rows.f" "$WORK/rows"
fi
if [ -n "$FILES" ]; then
    awk -F'\t' 'NR == FNR { want[$1] = 1; next } ($2 in want)' "$FILES" "$WORK/rows" > "$WORK/rows.f" \
        && mv "$WORK/rows.f" "$WORK/rows"
fi
N=$(wc -l < "$WORK/rows")
echo "# conformance-gst: $N stream(s) of $MANIFEST through: $LABEL (timeout ${TIMEOUT} s, $JOBS job(s))"
echo "# gst-launch-1.0 filesrc location=F ! ${DEMUXER:-parsebin} ! $DECODER ! $CONVERT ! video/x-raw,format=FMT ! videocodectestsink location=OUT.yuv"

# Build the registry once, before parallel runs race to write it.
gst-inspect-1.0 videocodectestsink > /dev/null 2>&1

if [ "$ONE_PROCESS" = 1 ]; then
    command -v avhw-decode-many >/dev/null || { echo "conformance-gst: avhw-decode-many not found (tests/bench)" >&2; exit 2; }
    # the order: --first, then PASSES passes (shuffled with --shuffle); each line gets
    # its position as index (a stream may come several times)
    : > "$WORK/order"
    IFS=, read -r -a first <<< "$FIRST"
    for f in "${first[@]}"; do
        awk -F'\t' -v f="$f" '$2 == f' "$WORK/rows" | head -n1 | grep . >> "$WORK/order" ||
            { echo "conformance-gst: --first: $f is not in the manifest" >&2; exit 2; }
    done
    for pass in $(seq "$PASSES"); do
        if [ -n "$SHUFFLE" ]; then
            awk -v s=$((SHUFFLE + pass)) 'BEGIN { srand(s) } { printf "%.9f\t%s\n", rand(), $0 }' "$WORK/rows" |
                sort -k1,1 | cut -f2- >> "$WORK/order"
        else
            cat "$WORK/rows" >> "$WORK/order"
        fi
    done
    awk -F'\t' 'BEGIN { OFS = "\t" } { $1 = NR; print }' "$WORK/order" > "$WORK/rows"
    : > "$WORK/jobs"
    awk -F'\t' '{ printf "%s\t%s\t%s\n", $1, $2, ($4 == "" ? "-" : $4) }' "$WORK/rows" |
    while IFS=$'\t' read -r i f p; do
        fmt=$(gst_format "$p"); [ -n "$fmt" ] || fmt=I420
        tag=$(echo "$f" | tr '/' '_')
        printf '%s\tfilesrc location="%s" ! '"${DEMUXER:-parsebin}"' ! %s ! %s ! video/x-raw,format=%s ! videocodectestsink name=vcts location="%s"\n' \
            "${LOGDIR:-$WORK}/$i-$tag.log" "$MEDIA/$f" "$DECODER" "$CONVERT" "$fmt" "$WORK/$i.yuv" >> "$WORK/jobs"
    done
    N=$(wc -l < "$WORK/rows")
    echo "# one process: $N decodes (avhw-decode-many${DEC_LIMIT:+ --decoders-limit $DEC_LIMIT})"
    timeout -k 10 $(( N * TIMEOUT + 60 )) avhw-decode-many --timeout "$TIMEOUT" \
        ${DEC_LIMIT:+--decoders-limit "$DEC_LIMIT"} "$WORK/jobs" > "$WORK/many.out" 2>&1
    echo "# avhw-decode-many exit $?: $(tail -n1 "$WORK/many.out")"
    JOBS=1
fi

# The codec's empty column (a stream FFmpeg cannot probe) is passed as "-".
awk -F'\t' '{ printf "%s\t%s\t%s\t%s\t%s\t%s\n", $1, $2, ($3 == "" ? "-" : $3), ($4 == "" ? "-" : $4), ($5 == "" ? "-" : $5), ($6 == "" ? "-" : $6) }' "$WORK/rows" | \
    tr '\n' '\0' | xargs -0 -P "$JOBS" -I{} bash -c '
        IFS=$'"'"'\t'"'"' read -r i f c p m n <<< "$1"
        [ "$c" = - ] && c=""; [ "$p" = - ] && p=""; [ "$m" = - ] && m=""; [ "$n" = - ] && n=""
        run_one "$i" "$f" "${c:-unknown}" "$p" "$m" "$n"
        cut -f1,2,4 "$WORK/$i.res" | sed "s/\t/ /; s/\t/  /"' _ {}

# In manifest order.
: > "$WORK/all"
while IFS=$'\t' read -r i _; do cat "$WORK/$i.res" >> "$WORK/all"; done < "$WORK/rows"
[ -n "$RESULTS" ] && cut -f1,2,4 "$WORK/all" > "$RESULTS"

echo
echo "| codec | streams | PASS | FAIL | ERROR | SKIP |"
echo "| --- | ---: | ---: | ---: | ---: | ---: |"
awk -F'\t' '{ n[$3]++; r[$3, $1]++; t[$1]++; all++ }
    END { for (c in n) printf "| %s | %d | %d | %d | %d | %d |\n", c, n[c], r[c, "PASS"], r[c, "FAIL"], r[c, "ERROR"], r[c, "SKIP"] | "sort";
          close("sort");
          printf "| all | %d | %d | %d | %d | %d |\n", all, t["PASS"], t["FAIL"], t["ERROR"], t["SKIP"] }' "$WORK/all"
echo
rc=0
if [ "$ONE_PROCESS" = 1 ] && [ "$EXPECT_REUSE" = 1 ]; then
    hits=$(sed -n 's/.*decoder cache: \([0-9]*\) hits.*/\1/p' "$WORK/many.out")
    if [ "${hits:-0}" = 0 ]; then echo "REUSE: --expect-reuse, but no decoder was reused"; rc=1; fi
fi
awk -F'\t' '{ t[$1]++ } END { printf "%d passed, %d failed, %d skipped\n", t["PASS"], t["FAIL"] + t["ERROR"], t["SKIP"]; exit (t["FAIL"] + t["ERROR"] > 0) }' "$WORK/all" || rc=1
exit $rc
