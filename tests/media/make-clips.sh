#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# make-clips.sh OUTDIR [SET]
#
# Generates small, deterministic H.264/H.265 Annex-B test clips with the ffmpeg CLI
# (libx264/libx265, single-threaded, lavfi testsrc2 source) and writes
#   OUTDIR/h264/*.h264, OUTDIR/h265/*.h265
#   OUTDIR/MANIFEST.tsv         same columns as ../shared/media/MANIFEST.tsv
#   OUTDIR/framemd5/<name>.framemd5
# The reference MD5 is the command of ../shared/media/README.md:
#   ffmpeg -v error -i FILE -map 0:v:0 -fps_mode passthrough -autoscale 0 -f md5 -
# Clips whose notes say "expect: error-or-concealment" (corrupt, truncated) are
# robustness clips: tests/conformance/conformance.py passes them when the decode
# finishes (EOS or a reported error) without hang or crash; their MD5 is FFmpeg's
# own concealment output, recorded for information only.
#
# Then e.g.:  tests/conformance/conformance.py OUTDIR/MANIFEST.tsv --decoder decodebin
#
# SET is "conformance" (the default: the clips above, one feature each) or
# "distinct": clips of one size and format that differ only in how they were
# encoded (profile, references, B-frames, entropy coder, 8x8 transform,
# weighted prediction, scaling matrices, QP; H.265: references, B-frames,
# SAO, AMP, transform skip), so that a decoder kept from one clip decodes the
# next with other parameter sets under the same IDs (issue 30's wrong
# picture; tests/conformance: conformance/distinct-reuse). SIZE (320x240)
# and FRAMES (10) set their size and length. "distinct-mp4": the same clips
# encoded into MP4 (h264/*.mp4, h265/*.mp4, hvc1), whose parameter sets are
# in the codec data only (avcC, hvcC), none in the stream: a kept decoder
# must be given the next clip's codec data.
# Needs: ffmpeg/ffprobe with libx264 and libx265, python3 (stdlib only).
# Outputs are byte-identical between runs with the same ffmpeg/x264/x265 builds.
set -eu

if [ $# -lt 1 ] || [ $# -gt 2 ]; then
    echo "usage: $0 OUTDIR [conformance|distinct|distinct-mp4]" >&2
    exit 2
fi
OUT=$1 SET=${2:-conformance}
HERE=$(cd "$(dirname "$0")" && pwd)
FFMPEG=${FFMPEG:-ffmpeg}
FFPROBE=${FFPROBE:-ffprobe}
PYTHON=${PYTHON:-python3}

for t in "$FFMPEG" "$FFPROBE" "$PYTHON"; do
    command -v "$t" >/dev/null 2>&1 || { echo "$0: $t not found" >&2; exit 77; }
done
for e in libx264 libx265; do
    "$FFMPEG" -hide_banner -encoders 2>/dev/null | grep -q " $e " || {
        echo "$0: $FFMPEG has no $e encoder" >&2; exit 77; }
done

mkdir -p "$OUT/h264" "$OUT/h265" "$OUT/framemd5"
TMP=$(mktemp -d "${TMPDIR:-/tmp}/make-clips.XXXXXX")
trap 'rm -rf "$TMP"' EXIT INT TERM

# deterministic source: lavfi test pattern with motion, fixed frame count
# (generated directly in the target pix_fmt: testsrc2 alone rounds odd sizes down to even)
src() { # size frames pix_fmt
    echo "-f lavfi -i testsrc2=size=$1:rate=25,format=$3 -frames:v $2"
}
X264_PARAMS="threads=1:lookahead-threads=1:sliced-threads=0"
X265_PARAMS="pools=none:frame-threads=1:wpp=0:log-level=error"
COMMON="-v error -y -nostdin"
BITEXACT="-fflags +bitexact -flags +bitexact"

h264() { # name size frames pix_fmt x264-params extra-args...
    name=$1 size=$2 n=$3 pix=$4 xp=$5; shift 5
    # shellcheck disable=SC2046,SC2086
    "$FFMPEG" $COMMON $(src "$size" "$n" "$pix") -pix_fmt "$pix" "$@" $BITEXACT -c:v libx264 -preset veryfast \
        -x264-params "$X264_PARAMS${xp:+:$xp}" -f "${H264_FORMAT:-h264}" "$OUT/h264/$name"
}
h265() { # name size frames pix_fmt x265-params extra-args...
    name=$1 size=$2 n=$3 pix=$4 xp=$5; shift 5
    # shellcheck disable=SC2046,SC2086
    "$FFMPEG" $COMMON $(src "$size" "$n" "$pix") -pix_fmt "$pix" "$@" $BITEXACT -c:v libx265 -preset fast \
        -x265-params "$X265_PARAMS${xp:+:$xp}" ${H265_FORMAT:+-tag:v hvc1} -f "${H265_FORMAT:-hevc}" \
        "$OUT/h265/$name"
}

NOTES="$TMP/notes.tsv"
: > "$NOTES"
note() { printf '%s\t%s\n' "$1" "$2" >> "$NOTES"; }

distinct_set() { # [mp4]
    size=${SIZE:-320x240} n=${FRAMES:-10} e264=h264 e265=h265
    if [ "${1:-}" = mp4 ]; then
        e264=mp4 e265=mp4 H264_FORMAT=mp4 H265_FORMAT=mp4
    fi
    for v in "baseline-ref1::-profile:v baseline -refs 1" \
             "baseline-ref3::-profile:v baseline -refs 3" \
             "main-ref1::-profile:v main -refs 1 -bf 0" \
             "main-ref3::-profile:v main -refs 3 -bf 0" \
             "main-ref3-bf2:b-adapt=0:-profile:v main -refs 3 -bf 2" \
             "high-ref3-bf3:b-adapt=0:b-pyramid=none:-profile:v high -refs 3 -bf 3" \
             "high-ref3-bf3-pyramid:b-adapt=0:b-pyramid=normal:-profile:v high -refs 3 -bf 3" \
             "high-ref3-no8x8:no-8x8dct=1:-profile:v high -refs 3 -bf 0" \
             "high-ref3-cavlc:cabac=0:-profile:v high -refs 3 -bf 0" \
             "high-ref3-weightp:weightp=2:-profile:v high -refs 3 -bf 0" \
             "high-ref3-cqm:cqm=jvt:-profile:v high -refs 3 -bf 0" \
             "high-ref3-qp20:qp=20:-profile:v high -refs 3 -bf 0" \
             "high-ref3-qp40:qp=40:-profile:v high -refs 3 -bf 0" \
             "high-ref3-bf3-cqm:b-adapt=0:cqm=jvt:-profile:v high -refs 3 -bf 3"; do
        f=distinct-${v%%:*}.$e264 rest=${v#*:}
        xp=${rest%:-*} args=-${rest##*:-}
        [ "$xp" = "$rest" ] && xp=""
        # shellcheck disable=SC2086
        h264 "$f" "$size" "$n" yuv420p "$xp" $args
        note "h264/$f" "distinct: $size, $n frames, x264 $args${xp:+ ($xp)}"
    done
    for v in "ref1:ref=1:bframes=0" "ref3:ref=3:bframes=0" \
             "ref3-bf3:ref=3:bframes=3:b-adapt=0:b-pyramid=0" \
             "ref2-bf2-pyramid:ref=2:bframes=2:b-adapt=0:b-pyramid=1" \
             "ref3-nosao:ref=3:bframes=0:no-sao=1" \
             "ref3-amp-tskip:ref=3:bframes=0:amp=1:rect=1:tskip=1"; do
        f=distinct-${v%%:*}.$e265 xp=${v#*:}
        h265 "$f" "$size" "$n" yuv420p "$xp" -profile:v main
        note "h265/$f" "distinct: $size, $n frames, x265 main ($xp)"
    done
}

if [ "$SET" = distinct ]; then
    distinct_set
elif [ "$SET" = distinct-mp4 ]; then
    distinct_set mp4
elif [ "$SET" != conformance ]; then
    echo "$0: unknown set $SET (conformance, distinct or distinct-mp4)" >&2
    exit 2
else
# --- H.264 ------------------------------------------------------------------------------
h264 h264-8bit-420-320x240.h264 320x240 64 yuv420p "" -profile:v high -bf 0
note h264/h264-8bit-420-320x240.h264 "8-bit 4:2:0 High, I/P only, 64 frames"

h264 h264-high10-320x240.h264 320x240 24 yuv420p10le "" -profile:v high10
note h264/h264-high10-320x240.h264 "10-bit 4:2:0 High 10 (most HW decoders lack H.264 10-bit: expect fallback)"

h264 h264-odd-174x98.h264 174x98 20 yuv420p "" -profile:v high
note h264/h264-odd-174x98.h264 "size not MB-aligned (coded 176x112, cropped to 174x98)"
h264 h264-crop-320x232.h264 320x232 24 yuv420p "" -profile:v high -bf 0
note h264/h264-crop-320x232.h264 "coded 320x240 like h264-8bit-420-320x240.h264, cropped to 320x232: equal coded size, different crop (the decoder-reuse test decodes the two back to back)"

h264 h264-444-odd-175x97.h264 175x97 16 yuv444p "" -profile:v high444
note h264/h264-444-odd-175x97.h264 "odd size 175x97 (crop unit 1 needs 4:4:4), High 4:4:4 Predictive (HW rarely: expect fallback)"

h264 h264-bframes-320x240.h264 320x240 30 yuv420p "b-adapt=0:b-pyramid=normal" \
    -profile:v high -bf 3 -refs 3
note h264/h264-bframes-320x240.h264 "B-frames: bf=3 fixed (b-adapt=0), B-pyramid, refs=3: decode order != display order"

h264 h264-interlaced-tff-320x240.h264 320x240 20 yuv420p "" -profile:v high \
    -vf setfield=tff -flags +ildct+ilme
note h264/h264-interlaced-tff-320x240.h264 "interlaced, top field first (x264 MBAFF, +ildct+ilme); output is interleaved frames"

h264 seg-a.h264 320x240 12 yuv420p "" -profile:v main
mv "$OUT/h264/seg-a.h264" "$TMP/h264-a"
h264 seg-b.h264 176x144 12 yuv420p "" -profile:v main
mv "$OUT/h264/seg-b.h264" "$TMP/h264-b"
cat "$TMP/h264-a" "$TMP/h264-b" > "$OUT/h264/h264-reschange-320x240-176x144.h264"
note h264/h264-reschange-320x240-176x144.h264 "resolution change: 12 frames 320x240 then 12 frames 176x144 (two Annex-B streams concatenated, new SPS+IDR); width/height columns give the first size; md5 of each frame at its own size (-autoscale 0)"

d=$("$PYTHON" "$HERE/mangle.py" corrupt "$OUT/h264/h264-bframes-320x240.h264" \
    "$OUT/h264/h264-corrupt.h264" --seed h264)
note h264/h264-corrupt.h264 "expect: error-or-concealment | h264-bframes-320x240.h264 with $d; ffmpeg_md5 is FFmpeg's concealment, not a reference"
d=$("$PYTHON" "$HERE/mangle.py" truncate "$OUT/h264/h264-8bit-420-320x240.h264" \
    "$OUT/h264/h264-truncated.h264")
note h264/h264-truncated.h264 "expect: error-or-concealment | h264-8bit-420-320x240.h264 $d; ffmpeg_md5 is FFmpeg's output, not a reference"

# --- H.265 ------------------------------------------------------------------------------
h265 h265-main-320x240.h265 320x240 24 yuv420p "" -profile:v main
note h265/h265-main-320x240.h265 "8-bit 4:2:0 Main"

h265 h265-main10-320x240.h265 320x240 24 yuv420p10le "" -profile:v main10
note h265/h265-main10-320x240.h265 "10-bit 4:2:0 Main 10"

h265 h265-odd-174x98.h265 174x98 16 yuv420p "" -profile:v main
note h265/h265-odd-174x98.h265 "size not CTU/min-CU aligned (conformance window to 174x98)"
h265 h265-crop-320x236.h265 320x236 24 yuv420p "" -profile:v main
note h265/h265-crop-320x236.h265 "coded 320x240 like h265-main-320x240.h265, conformance window to 320x236: equal coded size, different crop (the decoder-reuse test decodes the two back to back)"

h265 h265-bframes-320x240.h265 320x240 30 yuv420p "bframes=3:b-adapt=0:b-pyramid=1:ref=3" \
    -profile:v main
note h265/h265-bframes-320x240.h265 "B-frames: bframes=3 fixed (b-adapt=0), B-pyramid, ref=3"

h265 seg-a.h265 320x240 12 yuv420p "" -profile:v main
mv "$OUT/h265/seg-a.h265" "$TMP/h265-a"
h265 seg-b.h265 176x144 12 yuv420p "" -profile:v main
mv "$OUT/h265/seg-b.h265" "$TMP/h265-b"
cat "$TMP/h265-a" "$TMP/h265-b" > "$OUT/h265/h265-reschange-320x240-176x144.h265"
note h265/h265-reschange-320x240-176x144.h265 "resolution change: 12 frames 320x240 then 12 frames 176x144 (two Annex-B streams concatenated, new VPS/SPS/PPS+IRAP); width/height columns give the first size; md5 of each frame at its own size (-autoscale 0)"

d=$("$PYTHON" "$HERE/mangle.py" corrupt "$OUT/h265/h265-bframes-320x240.h265" \
    "$OUT/h265/h265-corrupt.h265" --seed h265)
note h265/h265-corrupt.h265 "expect: error-or-concealment | h265-bframes-320x240.h265 with $d; ffmpeg_md5 is FFmpeg's concealment, not a reference"
d=$("$PYTHON" "$HERE/mangle.py" truncate "$OUT/h265/h265-main-320x240.h265" \
    "$OUT/h265/h265-truncated.h265")
note h265/h265-truncated.h265 "expect: error-or-concealment | h265-main-320x240.h265 $d; ffmpeg_md5 is FFmpeg's output, not a reference"

fi

# --- manifest ---------------------------------------------------------------------------
# ffmpeg_md5/frames use exactly the command of ../shared/media/README.md. Exception: the
# robustness clips are decoded with -threads 1 too, because FFmpeg's error concealment with
# frame threads differs from run to run (their MD5 is informative only).
FFVER=$("$FFMPEG" -version | head -n 1 | cut -d' ' -f1-3)
row() { # index file notes -> $TMP/row.index
    f="$OUT/$2" base=$(basename "$2") notes=$3 err="$TMP/err.$1" thr=""
    case "$notes" in *"expect: error-or-concealment"*)
        thr="-threads 1"
        notes="$notes; ffmpeg_md5/framemd5 computed with '-threads 1' added (concealment with frame threads is not deterministic)";;
    esac
    probe=$("$FFPROBE" -v error -select_streams v:0 \
        -show_entries stream=codec_name,width,height,pix_fmt -of default=nw=1 "$f" </dev/null || true)
    get() { printf '%s\n' "$probe" | sed -n "s/^$1=//p" | head -n 1; }
    # shellcheck disable=SC2086
    md5=$("$FFMPEG" -nostdin $thr -v error -i "$f" -map 0:v:0 -fps_mode passthrough -autoscale 0 -f md5 - \
        2>"$err" | sed -n 's/^MD5=//p' || true)
    # shellcheck disable=SC2086
    "$FFMPEG" -nostdin $thr -v error -i "$f" -map 0:v:0 -fps_mode passthrough -autoscale 0 -f framemd5 \
        "$OUT/framemd5/$base.framemd5" 2>>"$err" || true
    frames=$(grep -vc '^#' "$OUT/framemd5/$base.framemd5" || true)
    enc=$(grep -a -o -m 1 -E 'x264 - core [0-9]+ r[0-9]+ [0-9a-f]+|x265 \(build [0-9]+\) - [^:]+' "$f" | head -n 1 || true)
    warn=$(sed 's/ @ 0x[0-9a-f]*\]/]/' "$err" | sort -u | head -n 3 | tr '\n\t' '  ' | sed 's/ *$//')
    size=$(wc -c < "$f" | tr -d ' ')
    n="$notes | encoder: ${enc:-?}, $FFVER"
    [ -n "$warn" ] && n="$n | FFmpeg messages: $warn"
    printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$2" "$(get codec_name)" \
        "$(get width)" "$(get height)" "$(get pix_fmt)" "$frames" "${md5:-NONE}" \
        generated tests/media/make-clips.sh - "$size" "$n" > "$TMP/row.$1"
}
i=0
while IFS="$(printf '\t')" read -r file notes <&3; do
    i=$((i + 1))
    row "$i" "$file" "$notes" &
done 3< "$NOTES"
wait

MAN="$OUT/MANIFEST.tsv"
printf 'file\tcodec\twidth\theight\tpix_fmt\tframes\tffmpeg_md5\tsource_repo\tsource_path\tsource_commit\tsize_bytes\tnotes\n' > "$MAN"
j=1
while [ "$j" -le "$i" ]; do
    cat "$TMP/row.$j" >> "$MAN"
    j=$((j + 1))
done
echo "wrote $i clips and $MAN"
