#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# transcode.sh CLIP [DEVICE] [FALLBACK] - the full chain of issue 16 with
# gst-launch-1.0 alone (the GPU machine has no PyGObject for
# tests/python/test_transcode.py): for each muxer,
#   filesrc CLIP ! parsebin ! avhwdec device=DEVICE ! avhwenc fallback=FALLBACK
#     ! PARSER ! MUXER ! filesink
# then checks, with ffprobe, that the file holds as many decodable frames as
# CLIP and that its frame PTS sequence (from the first) is CLIP's.
# DEVICE defaults to cuda:0 (NVDEC in), FALLBACK to libx264 (the H200 has no
# NVENC, so the encoder falls back to software). Prints one line per muxer,
# PASS or FAIL; exit 1 when any fails, 77 when a tool is missing.
set -u
clip=${1:?usage: transcode.sh CLIP [DEVICE] [FALLBACK]}
dev=${2:-cuda:0}
fb=${3:-libx264}
for t in gst-launch-1.0 ffprobe; do
  command -v $t >/dev/null || { echo "SKIP: $t not found"; exit 77; }
done
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
case "$fb" in libx265) parser=h265parse ;; *) parser=h264parse ;; esac

# frame PTS (seconds, 6 decimals) relative to the first, one per line
pts_list() {
  ffprobe -v error -select_streams v:0 -show_entries frame=pts_time -of csv=p=0 "$1" \
    | awk 'NF { if (n++ == 0) t0 = $1; printf "%.3f\n", $1 - t0 }' | sort -n
}
pts_list "$clip" > "$tmp/in.pts"
n_in=$(wc -l < "$tmp/in.pts")
rc=0
for m in mp4mux:mp4 matroskamux:mkv mpegtsmux:ts; do
  mux=${m%%:*} ext=${m##*:} out=$tmp/out.$ext
  start=$(date +%s%N)
  if ! gst-launch-1.0 -q filesrc location="$clip" ! parsebin ! avhwdec device="$dev" \
      ! avhwenc fallback="$fb" ! $parser ! $mux ! filesink location="$out" \
      > "$tmp/$ext.log" 2>&1; then
    echo "FAIL $mux: pipeline error: $(grep -m1 -i error "$tmp/$ext.log")"
    rc=1
    continue
  fi
  ms=$(( ($(date +%s%N) - start) / 1000000 ))
  pts_list "$out" > "$tmp/out.pts"
  n_out=$(wc -l < "$tmp/out.pts")
  if [ "$n_out" -eq "$n_in" ] && cmp -s "$tmp/in.pts" "$tmp/out.pts"; then
    echo "PASS $mux: $n_out/$n_in frames, PTS sequence equal ($dev in, $fb out, $ms ms)"
  else
    echo "FAIL $mux: $n_out/$n_in frames decodable; PTS differ at: $(diff "$tmp/in.pts" "$tmp/out.pts" | head -n 3 | tr '\n' ' ')"
    rc=1
  fi
done
exit $rc
