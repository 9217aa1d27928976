#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""Decode a folder of clips into batches of RGB tensors (docs/python.md).

    python3 docs/examples/clip_batches.py [--device cuda:0] [--size 224]
                                          [--batch 32] [--pipelines 4]
                                          [--check] FOLDER

Each clip goes through its own pipeline,

    filesrc ! parsebin ! avhwdec ! avhwupload ! avhwconvertscale
            ! video/x-raw(memory:AVHWCUDA),format=RGBP,width=224,height=224
            ! appsink

and the pipelines share one device (and, where the stream allows, the
decoders they leave). --pipelines clips (default 4) are decoded at once,
ahead of the batch being filled: a clip's set-up and start overlap the
others' decoding, so the device's decoder is kept busy; batches still come
in the folder's order. Each clip is held whole (a (T, 3, size, size) uint8
tensor, 4.5 MiB for 30 frames at 224) until its frames are batched.
The device converts to RGB while it scales
(cuda-convert on a cuda device, libplacebo on Vulkan, which makes packed
RGBA); GstAvhw.batches() stacks the frames into tensors without any colour
arithmetic here. On a cuda device the frames reach PyTorch through DLPack
and the batches are on the GPU; on other devices avhwdownload brings the
frames to system memory first and the tensors are on the CPU. Batches are
float32, (N, 3, size, size), RGB in [0, 1]. --check also checks every
batch and compares the first frame with GStreamer's own videoconvertscale.
"""
import argparse
import collections
import concurrent.futures
import functools
import glob
import itertools
import math
import os
import sys
import time

import gi

gi.require_version("Gst", "1.0")
gi.require_version("GstVideo", "1.0")
gi.require_version("GstAvhw", "1.0")
from gi.repository import Gst, GstAvhw, GstVideo  # noqa: E402

try:
    import torch
except ImportError:
    print("SKIP: PyTorch is not installed")
    sys.exit(77)

Gst.init(None)

# one clip's pipeline, as many_clips.py runs it (this folder is on sys.path)
from many_clips import decode_clip, rgb_caps  # noqa: E402


def clip_batches(paths, device="cuda:0", size=224, batch=32, pipelines=4):
    """Yields (N, 3, size, size) RGB tensors, N = batch (less at the end)."""
    dev = GstAvhw.Device.open(device, None)
    decode = functools.partial(decode_clip, device=dev.get_name(),
                               caps=rgb_caps(dev, size))
    held, n_held = [], 0
    with concurrent.futures.ThreadPoolExecutor(max(1, pipelines)) as pool:
        todo = iter(paths)
        pending = collections.deque(pool.submit(decode, p)
                                    for p in itertools.islice(todo, max(1, pipelines)))
        while pending:
            clip = pending.popleft().result()
            # the next clip takes the freed place
            pending.extend(pool.submit(decode, p) for p in itertools.islice(todo, 1))
            # batches run on across clips: all but the last are full
            held.append(clip)
            n_held += clip.shape[0]
            while n_held >= batch:
                frames = torch.cat(held)
                yield frames[:batch].float().div_(255)
                held, n_held = [frames[batch:]], frames.shape[0] - batch
        if n_held:
            yield torch.cat(held).float().div_(255)


def as_bytes(batch):
    """A [0, 1] float batch back as the uint8 it was made from, on the CPU."""
    return batch.mul(255).round_().to(torch.uint8).cpu()


def count_frames(path):
    """Frames in a clip: parsebin's access units."""
    p = Gst.parse_launch(f"filesrc location=\"{path}\" ! parsebin ! appsink name=s sync=false")
    sink, n = p.get_by_name("s"), 0
    p.set_state(Gst.State.PLAYING)
    while sink.emit("try-pull-sample", 10 * Gst.SECOND) is not None:
        n += 1
    p.set_state(Gst.State.NULL)
    return n


def reference_rgb(path, size):
    """The first frame through GStreamer's own CPU path, (3, size, size)."""
    import numpy
    # bilinear2: GStreamer's linear scaler with its kernel widened where it
    # shrinks, the nearest to the device's area (cuda-convert) and to
    # libplacebo's bilinear (Vulkan)
    p = Gst.parse_launch(f"filesrc location=\"{path}\" ! parsebin ! avhwdec ! avhwdownload ! "
                         f"videoconvertscale method=bilinear2 ! "
                         f"video/x-raw,format=RGB,width={size},"
                         f"height={size} ! appsink name=s sync=false")
    sink = p.get_by_name("s")
    p.set_state(Gst.State.PLAYING)
    sample = sink.emit("try-pull-sample", 10 * Gst.SECOND)
    buf = sample.get_buffer()
    info = GstVideo.VideoInfo.new_from_caps(sample.get_caps())
    data = numpy.frombuffer(buf.extract_dup(0, buf.get_size()), numpy.uint8)
    rows = data[: info.stride[0] * size].reshape(size, info.stride[0])[:, : size * 3]
    p.set_state(Gst.State.NULL)
    return torch.from_numpy(rows.reshape(size, size, 3).copy()).permute(2, 0, 1).float() / 255


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("folder")
    ap.add_argument("--device", default="auto")
    ap.add_argument("--size", type=int, default=224)
    ap.add_argument("--batch", type=int, default=32)
    ap.add_argument("--pipelines", type=int, default=4,
                    help="clips decoded at once (default 4)")
    ap.add_argument("--check", action="store_true")
    a = ap.parse_args()
    paths = sorted(p for p in glob.glob(os.path.join(a.folder, "*")) if os.path.isfile(p))
    if not paths:
        sys.exit(f"no clips in {a.folder}")
    n, first, where, got, t0 = 0, None, None, [], time.perf_counter()
    for b in clip_batches(paths, a.device, a.size, a.batch, a.pipelines):
        if a.check:
            assert b.dtype == torch.float32 and b.shape[1:] == (3, a.size, a.size), b.shape
            assert 0 < b.shape[0] <= a.batch
            assert float(b.min()) >= 0 and float(b.max()) <= 1
            got.append(as_bytes(b))
        if first is None:
            first = b[0].cpu()
            where = b.device
        n += b.shape[0]
    dt = time.perf_counter() - t0
    print(f"{len(paths)} clips, {n} frames in {dt:.2f} s: {len(paths) / dt:.1f} clips/s, "
          f"{n / dt:.0f} frames/s, batches of {a.batch} on {where}, "
          f"{a.pipelines} pipeline(s) at once")
    if a.check:
        want = sum(count_frames(p) for p in paths)
        assert n == want, f"{n} frames decoded, the clips hold {want}"
        err = first - reference_rgb(paths[0], a.size)
        diff = float(err.abs().mean())
        mse = float((err * err).mean())
        psnr = 10 * math.log10(1 / mse) if mse > 0 else float("inf")
        print(f"check: {n} frames; first frame against videoconvertscale: "
              f"mean |diff| {diff:.4f}, PSNR {psnr:.1f} dB")
        assert diff < 0.04, "the RGB conversion differs from GStreamer's"
        if a.pipelines > 1:
            # the same batches, in the same order, as one clip at a time
            for i, b in enumerate(clip_batches(paths, a.device, a.size, a.batch, 1)):
                assert i < len(got) and torch.equal(as_bytes(b), got[i]), \
                    f"batch {i} differs from one clip at a time"
            assert i == len(got) - 1, "fewer batches one clip at a time"
            print(f"check: the {len(got)} batches equal those of one pipeline at a time")


if __name__ == "__main__":
    main()
