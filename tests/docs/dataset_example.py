#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""docs/examples/clip_dataset.py runs as torchrun would start it: two
processes on this machine, joined by torch.distributed's gloo backend, each
with two DataLoader workers, over a folder of five clips of different
lengths (H.264 and H.265, MP4 and Matroska, made with the ffmpeg CLI).
--check fails unless every clip is read once per epoch over all ranks and
workers, with its frame count, and alike in both epochs. The ranks get the
environment torchrun gives them (RANK, LOCAL_RANK, WORLD_SIZE,
MASTER_ADDR, MASTER_PORT): Debian 12's torchrun itself fails to start
(torch 1.13 on Python 3.11). Exit 77 (SKIP) naming what is missing:
PyTorch with gloo, or a device with a scaling filter.
"""
import os
import socket
import subprocess
import sys
import tempfile

from docs_common import SOURCE_ROOT, make_clip, scaling_device  # noqa: E402

CLIPS = [("a.mp4", 7), ("b-265.mp4", 10), ("c.mkv", 13), ("d-265.mkv", 9),
         ("e.mp4", 11)]


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def main():
    try:
        import torch.distributed as dist
    except ImportError:
        print("SKIP: PyTorch is not installed (python3-torch)")
        return 77
    if not (dist.is_available() and dist.is_gloo_available()):
        print("SKIP: this PyTorch has no torch.distributed gloo backend")
        return 77
    device = scaling_device()
    if device is None:
        print("SKIP: no cuda, vulkan or vaapi device with a scaling filter")
        return 77
    backend = device.split(":")[0]
    with tempfile.TemporaryDirectory(prefix="avhw-dataset-") as d:
        for name, frames in CLIPS:
            make_clip(name, d, frames)
        cmd = [sys.executable, os.path.join(SOURCE_ROOT, "docs", "examples",
                                            "clip_dataset.py"),
               "--device", backend, "--size", "64", "--workers", "2",
               "--backend", "gloo", "--check", d]
        port = str(free_port())
        procs = []
        for rank in (0, 1):
            env = dict(os.environ, RANK=str(rank), LOCAL_RANK=str(rank),
                       WORLD_SIZE="2", LOCAL_WORLD_SIZE="2",
                       MASTER_ADDR="127.0.0.1", MASTER_PORT=port)
            print(f"rank {rank}: running", " ".join(cmd), flush=True)
            procs.append(subprocess.Popen(cmd, env=env, stdout=subprocess.PIPE,
                                          stderr=subprocess.STDOUT, text=True))
        rcs = []
        for rank, p in enumerate(procs):
            try:
                out, _ = p.communicate(timeout=240)
            except subprocess.TimeoutExpired:
                for q in procs:
                    q.kill()
                out, _ = p.communicate()
                print(out)
                print(f"FAIL: rank {rank} did not finish in 240 s")
                return 1
            print(f"--- rank {rank} (exit {p.returncode}):\n{out}", flush=True)
            rcs.append(p.returncode)
            if rank == 0 and p.returncode == 0 and "check: 5 clips" not in out:
                print("FAIL: rank 0 printed no check line")
                return 1
        return 0 if rcs == [0, 0] else 1


if __name__ == "__main__":
    sys.exit(main())
