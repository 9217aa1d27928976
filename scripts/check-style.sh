#!/usr/bin/env bash
# Fails when a tracked C file is not formatted as scripts/gst-indent formats
# it (GStreamer's gst-indent settings). Run from anywhere; exit 77 without
# git or GNU indent.
set -u
cd "$(dirname "$0")/.."
command -v git >/dev/null && git rev-parse --git-dir >/dev/null 2>&1 \
  || { echo "SKIP: not a git checkout"; exit 77; }
files=$(git ls-files '*.c')
bash scripts/gst-indent --check $files
rc=$?
[ $rc -eq 0 ] && echo "$(echo "$files" | wc -l) C files gst-indent clean"
[ $rc -eq 1 ] && echo "run: scripts/gst-indent \$(git ls-files '*.c')"
exit $rc
