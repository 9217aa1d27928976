#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# run-cpu.sh MANIFEST WORKDIR - the Meson test robustness/cpu: damaged copies of
# the corpus's small H.264 and H.265 streams (make-fuzz.py, 3 seeds) through
#   avhwdec device=auto (software decode + upload here) ! avhwdownload
# a crash, a hang or a CRITICAL fails the test. Skipped (77) without the corpus
# (meson option media-dir). VP9 in IVF is left out: GStreamer 1.22's ivfparse
# itself prints a CRITICAL on one damaged file, which would hide ours.
set -u
HERE=$(cd "$(dirname "$0")" && pwd)
MANIFEST=$1
WORK=$2
if [ ! -f "$MANIFEST" ]; then
    echo "SKIP: no corpus manifest at $MANIFEST (meson option media-dir)"
    exit 77
fi
rm -rf "$WORK"
"${PYTHON:-python3}" "$HERE/make-fuzz.py" "$(dirname "$MANIFEST")" "$WORK/in" \
    --codecs h264,hevc,h265 --seeds 3 || exit 1
FALLBACKS=true ROBUST_LOGS="$WORK/logs" bash "$HERE/robustness.sh" "$WORK/in" auto 2
