#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# run-clips.sh OUTDIR [conformance.py options...]
# Generates the clips of tests/media/make-clips.sh (the set CLIPS_SET names:
# conformance, the default, or distinct) into OUTDIR, then runs the
# conformance harness on OUTDIR/MANIFEST.tsv. Exit 77 (skip) when ffmpeg with
# libx264/libx265 is missing.
set -e
here=$(cd "$(dirname "$0")" && pwd)
[ $# -ge 1 ] || { echo "usage: $0 OUTDIR [conformance.py options]" >&2; exit 2; }
out=$1
shift
rc=0
"$here/../media/make-clips.sh" "$out" "${CLIPS_SET:-conformance}" >/dev/null || rc=$?
[ "$rc" -eq 0 ] || exit "$rc"
exec "${PYTHON:-/usr/bin/python3}" "$here/conformance.py" "$out/MANIFEST.tsv" "$@"
