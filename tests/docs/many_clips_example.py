#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""docs/examples/many-clips.c (built by Meson, path in argv[1]) and
docs/examples/many_clips.py run with --check over a folder of eight clips
(H.264 and H.265, MP4 and Matroska, made with the ffmpeg CLI), three
rounds, each with three pipelines at once. Both fail unless every clip decodes and
gives the same frames in every round; the C one also must report, from
the second round on, at most two of the eight decoders opened, the others
kept and taken. The Python one runs on the first device here with a scaling
filter; exit 77 (SKIP) naming what is missing.
"""
import os
import re
import subprocess
import sys
import tempfile

from docs_common import SOURCE_ROOT, make_clip, scaling_device  # noqa: E402

CLIPS = ["a.mp4", "b-265.mp4", "c.mkv", "d-265.mkv", "e.mp4", "f.mkv",
         "g-265.mp4", "h.mp4"]


def run(cmd):
    print("running:", " ".join(cmd), flush=True)
    r = subprocess.run(cmd, capture_output=True, text=True, timeout=240)
    print(r.stdout + r.stderr, flush=True)
    return r


def main():
    many_clips = sys.argv[1]
    with tempfile.TemporaryDirectory(prefix="avhw-many-") as d:
        paths = [make_clip(name, d, 6 + i) for i, name in enumerate(CLIPS)]
        r = run([many_clips, "-n", "3", "-r", "3", "--check"] + paths)
        if r.returncode != 0 or "check: every clip" not in r.stdout:
            print("FAIL: many-clips")
            return 1
        # Clips of one codec and size share kept decoders, so how many of a
        # codec are kept depends on which clips ran at the same time in the
        # round before: a later round may open one or two where it runs more
        # of one codec at once. Without reuse it would open all eight.
        rounds = [(int(a), int(b)) for a, b in
                  re.findall(r"kept and taken (\d+), opened (\d+)", r.stdout)]
        if len(rounds) != 3 or any(rounds[i][0] + rounds[i][1] != len(CLIPS)
                                   or rounds[i][1] > 2 for i in (1, 2)):
            print(f"FAIL: decoders not kept for rounds 2 and 3: {rounds}")
            return 1
        try:
            import torch  # noqa: F401
        except ImportError:
            print("SKIP: PyTorch is not installed (python3-torch); the C "
                  "example passed")
            return 77
        device = scaling_device()
        if device is None:
            print("SKIP: no device with a scaling filter; the C example "
                  "passed")
            return 77
        # Three pipelines at once, converting to RGB: on lavapipe (Mesa
        # 25, Debian 13) this crashed lavapipe's queue thread in about one
        # run of three until the vulkan backend made FFmpeg's semaphores
        # wait for that thread (backends/vulkan/gstavhwvulkansemfix.c).
        r = run([sys.executable, os.path.join(SOURCE_ROOT, "docs", "examples",
                                              "many_clips.py"),
                 "--threads", "3", "--rounds", "3", "--device", device,
                 "--size", "64", "--check", d])
        if r.returncode != 0 or "check: every clip" not in r.stdout:
            print("FAIL: many_clips.py")
            return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
