#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""docs/examples/clip_batches.py runs, with --check, over a folder of clips
(H.264 and H.265 MP4, made with the ffmpeg CLI), on the first device here
that can scale (a cuda, vulkan or vaapi device; AVHW_EXAMPLE_DEVICE picks
one). --check fails on a wrong frame count, shape, range or colour
conversion. Exit 77 (SKIP) naming what is missing: PyTorch, or a device
with a scaling filter.
"""
import os
import subprocess
import sys
import tempfile

from docs_common import SOURCE_ROOT, make_clip, scaling_device  # noqa: E402


def main():
    try:
        import torch  # noqa: F401
    except ImportError:
        print("SKIP: PyTorch is not installed (python3-torch)")
        return 77
    device = scaling_device()
    if device is None:
        print("SKIP: no cuda, vulkan or vaapi device with a scaling filter")
        return 77
    with tempfile.TemporaryDirectory(prefix="avhw-example-") as d:
        for name in ("a.mp4", "b-265.mp4", "c.mp4"):
            make_clip(name, d)
        cmd = [sys.executable, os.path.join(SOURCE_ROOT, "docs", "examples",
                                            "clip_batches.py"),
               "--device", device, "--size", "96", "--batch", "8", "--check", d]
        print("running:", " ".join(cmd), flush=True)
        r = subprocess.run(cmd, timeout=240)
        return r.returncode


if __name__ == "__main__":
    sys.exit(main())
