#!/usr/bin/env bash
# Runs the leaks program under valgrind; fails when a definitely-lost block
# was allocated from gst-avhw's own code (the library, the elements, a
# backend). Leaks inside GLib/GStreamer/driver start-up are not ours and are
# reported only as a count.
set -u
prog="$1"
log=$(mktemp)
command -v valgrind >/dev/null || { echo "SKIP: valgrind not installed"; exit 77; }
# FFmpeg 7.1's vulkan hwcontext (libavutil 59) leaks by itself: each upload
# keeps a clone of its destination frame for the execution context, which
# holds the frames context, and neither is freed (seen on Debian 13 with
# lavapipe; the number of records changes from run to run). The GStreamer
# leaks tracer (leaks/tracer) still checks the vulkan backend there; under
# valgrind it is left out, saying so.
avutil=$(ldd "$prog" 2>/dev/null | grep -o 'libavutil\.so\.[0-9]*' | head -n1)
if [ "${avutil##*.}" -ge 59 ] 2>/dev/null; then
  echo "note: $avutil (FFmpeg 7): vulkan left out of the valgrind run (FFmpeg's own leak)"
  export AVHW_LEAKS_SKIP=vulkan
fi
G_SLICE=always-malloc valgrind --leak-check=full --show-leak-kinds=definite \
  --num-callers=40 --log-file="$log" "$prog"
rc=$?
[ $rc -eq 77 ] && { rm -f "$log"; exit 77; }
# Valgrind's own limit, not a leak: an instruction its VEX cannot decode on
# this CPU (seen: valgrind 3.19 on RDTSCP in libhwy's start-up, a library
# FFmpeg links through libjxl, before main() runs) kills the program.
if grep -q "unhandled instruction bytes" "$log"; then
  where=$(grep -m1 -A1 "Unrecognised instruction" "$log" | tail -n1 | sed 's/^==[0-9]*== *//')
  echo "SKIP: valgrind $(valgrind --version 2>/dev/null) cannot run this program on this CPU: an instruction it does not decode ($where); the leaks tracer test (leaks/tracer) still runs"
  rm -f "$log"
  exit 77
fi
ours=$(awk '/definitely lost in loss record/{rec=$0; keep=0; next}
  rec && /(gstavhw|avhw_|gst_avhw|backends\/)/ {keep=1}
  rec && /^==[0-9]+== $/ { if (keep) print rec; rec=""; keep=0 }' "$log")
total=$(grep -c "definitely lost in loss record" "$log")
echo "valgrind: $total definitely-lost record(s) in total, $(printf '%s' "$ours" | grep -c .) from gst-avhw"
if [ -n "$ours" ] || [ $rc -ne 0 ]; then
  printf '%s\n' "$ours"
  grep -A40 "definitely lost in loss record" "$log" | grep -E "avhw" | head -40
  rm -f "$log"
  exit 1
fi
rm -f "$log"
exit 0
