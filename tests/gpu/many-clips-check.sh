#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# many-clips-check.sh - run-on-gpu.sh's check stage: seven pipelines at once
# over 70 copies of the 30-frame 1080p H.264 clip, two rounds, on
# MC_DEVICE (vulkan:0), with every clip's MD5 compared to its first
# decode's (docs/examples/many-clips --check). The second round takes every
# decoder kept and joined from the first: seven kept H.264 decoders at once
# stopped NVIDIA's Vulkan decoder for good before one decode queue a
# VkDevice (runs 91-92). Exit 0 when every clip decoded alike.
set -u
bin=${GPUBUNDLE:?}/bin/many-clips
clip=${MC_CLIP:-.gpu/bench/bench-1080p-h264-30f.mp4}
[ -x "$bin" ] || { echo "SKIP: no $bin"; exit 77; }
[ -f "$clip" ] || { echo "SKIP: no $clip"; exit 77; }
clips=()
for _ in $(seq "${MC_N_CLIPS:-70}"); do clips+=("$clip"); done
exec "$bin" -n "${MC_CHECK_THREADS:-7}" -r 2 --check -d "${MC_DEVICE:-vulkan:0}" "${clips[@]}"
