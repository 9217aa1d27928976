#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# claims-check.sh - run-on-gpu.sh's check stage: worker processes on
# vulkan:0 decode on decode queues of their own (NVIDIA decodes queue k of
# every VkDevice, in every process, on one engine). CL_PROCS (7) processes
# at once, each docs/examples/many-clips -n 1 -r 3 --check over 20 copies of
# the 30-frame 1080p H.264 clip (a few seconds, so the processes overlap
# while the driver makes their devices one after another). Each process's
# log says which queue its device decodes on; with as many processes as
# the device has decode queues, every queue once. Exit 0 when every process
# decoded every clip alike and the queues were spread; 77 without the
# program, the clip, or a device with several decode queues.
set -u
bin=${GPUBUNDLE:?}/bin/many-clips
clip=${MC_CLIP:-.gpu/bench/bench-1080p-h264-30f.mp4}
procs=${CL_PROCS:-7}
[ -x "$bin" ] || { echo "SKIP: no $bin"; exit 77; }
[ -f "$clip" ] || { echo "SKIP: no $clip"; exit 77; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
clips=()
for _ in $(seq 20); do clips+=("$clip"); done
pids=()
for i in $(seq "$procs"); do
    GST_DEBUG=avhwvulkan:5 GST_DEBUG_NO_COLOR=1 "$bin" -n 1 -r 3 --check -d vulkan:0 \
        "${clips[@]}" > "$tmp/out$i" 2> "$tmp/log$i" & pids+=($!)
done
rc=0
for i in $(seq "$procs"); do
    wait "${pids[$((i - 1))]}" || { echo "process $i failed:"; tail -n 5 "$tmp/out$i" "$tmp/log$i"; rc=1; }
done
queues=$(sed -n 's/.*lane 0 decodes on queue \([0-9]*\) of \([0-9]*\).*/\1 \2/p' "$tmp"/log* | sort -n)
echo "lane-0 queues of the $procs processes (queue, of):"
echo "$queues" | tr '\n' ';'; echo
[ "$rc" = 0 ] || exit 1
n=$(echo "$queues" | awk 'NF { print $2; exit }')
[ -n "$n" ] || { echo "SKIP: no device with several decode queues (no claim logged)"; exit 77; }
# each queue at most ceil(procs / n) times
echo "$queues" | awk -v p="$procs" -v n="$n" 'NF { c[$1]++ } END {
    most = int((p + n - 1) / n); bad = 0
    for (q in c) if (c[q] > most) { print "queue " q ": " c[q] " processes (at most " most " expected)"; bad = 1 }
    exit bad }' || exit 1
echo "every process alike, queues spread"
