#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""Decode a folder of clips into batches of RGB tensors (docs/python.md).

    python3 docs/examples/clip_batches.py [--device cuda:0] [--size 224]
                                          [--batch 32] [--check] FOLDER

Each clip goes through its own pipeline,

    filesrc ! parsebin ! avhwdec ! avhwupload ! avhwconvertscale
            ! video/x-raw(memory:AVHWCUDA),width=224,height=224
            ! appsink

(NVDEC gives NV12; frames decoded in software are I420), and pipelines
one after another share one device (and, where the stream
allows, one opened decoder). On a cuda device the frames reach PyTorch
through DLPack without a copy, and the conversion to RGB runs on the GPU;
on other devices avhwdownload brings them to system memory first and the
tensors are on the CPU. Batches are float32, (N, 3, size, size), RGB in
[0, 1]. --check also checks every batch and compares the first frame with
GStreamer's own videoconvertscale.
"""
import argparse
import glob
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

# Kr and Kb of the YCbCr matrices (ITU-R BT.601, BT.709, BT.2020)
_KRKB = {
    GstVideo.VideoColorMatrix.BT601: (0.299, 0.114),
    GstVideo.VideoColorMatrix.BT709: (0.2126, 0.0722),
    GstVideo.VideoColorMatrix.BT2020: (0.2627, 0.0593),
}


def to_rgb(planes, info):
    """(3, H, W) float RGB in [0, 1] from 4:2:0 planes: NV12's y (H, W) and
    uv (H/2, W/2, 2), or I420's y, u, v; with the matrix and range of the
    frame's caps."""
    if len(planes) == 3:
        y, uv = planes[0], torch.stack(planes[1:], -1)
    else:
        y, uv = planes
    kr, kb = _KRKB.get(info.colorimetry.matrix, _KRKB[GstVideo.VideoColorMatrix.BT709])
    full = info.colorimetry.range.value_nick == "0-255"
    y, uv = y.float(), uv.float()
    if full:
        y, c = y / 255, (uv - 128) / 255
    else:
        y, c = (y - 16) / 219, (uv - 128) / 224
    h, w = y.shape
    c = c.repeat_interleave(2, 0).repeat_interleave(2, 1)[:h, :w]
    cb, cr = c[..., 0], c[..., 1]
    r = y + 2 * (1 - kr) * cr
    b = y + 2 * (1 - kb) * cb
    g = (y - kr * r - kb * b) / (1 - kr - kb)
    return torch.stack((r, g, b)).clamp_(0, 1)


def clip_batches(paths, device="cuda:0", size=224, batch=32):
    """Yields (N, 3, size, size) RGB tensors, N = batch (less at the end)."""
    dev = GstAvhw.Device.open(device, None)
    backend = dev.get_backend()
    caps = f"video/x-raw({backend.get_caps_feature()}),width={size},height={size}"
    if backend.get_name() != "cuda":        # no array interface on the device
        caps += " ! avhwdownload"
    on_gpu = backend.get_name() == "cuda"
    frames = []
    for path in paths:
        # avhwupload passes the device's frames through and uploads those
        # decoded in software (a codec the device does not decode)
        p = Gst.parse_launch(f"filesrc location=\"{path}\" ! parsebin ! "
                             f"avhwdec device={device} ! avhwupload device={device} ! "
                             "avhwconvertscale ! "
                             f"{caps} ! appsink name=s sync=false max-buffers=4")
        sink = p.get_by_name("s")
        p.set_state(Gst.State.PLAYING)
        while True:
            sample = sink.emit("try-pull-sample", 10 * Gst.SECOND)
            if sample is None:
                break
            with GstAvhw.Frame(sample) as f:
                planes = [torch.from_dlpack(plane) for plane in f.planes]
                frames.append(to_rgb(planes, f.info))
                if on_gpu:
                    # the surface goes back to the decoder when the planes
                    # go: let the conversion finish reading it first
                    torch.cuda.current_stream().synchronize()
                del planes
            if len(frames) == batch:
                yield torch.stack(frames)
                frames = []
        err = p.get_bus().pop_filtered(Gst.MessageType.ERROR)
        p.set_state(Gst.State.NULL)
        if err is not None:
            raise RuntimeError(f"{path}: {err.parse_error()[0].message}")
    if frames:
        yield torch.stack(frames)


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
    p = Gst.parse_launch(f"filesrc location=\"{path}\" ! parsebin ! avhwdec ! avhwdownload ! "
                         f"videoconvertscale ! video/x-raw,format=RGB,width={size},"
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
    ap.add_argument("--check", action="store_true")
    a = ap.parse_args()
    paths = sorted(p for p in glob.glob(os.path.join(a.folder, "*")) if os.path.isfile(p))
    if not paths:
        sys.exit(f"no clips in {a.folder}")
    n, first, where, t0 = 0, None, None, time.perf_counter()
    for b in clip_batches(paths, a.device, a.size, a.batch):
        if a.check:
            assert b.dtype == torch.float32 and b.shape[1:] == (3, a.size, a.size), b.shape
            assert 0 < b.shape[0] <= a.batch
            assert float(b.min()) >= 0 and float(b.max()) <= 1
        if first is None:
            first = b[0].cpu()
            where = b.device
        n += b.shape[0]
    dt = time.perf_counter() - t0
    print(f"{len(paths)} clips, {n} frames in {dt:.2f} s: {len(paths) / dt:.1f} clips/s, "
          f"{n / dt:.0f} frames/s, batches of {a.batch} on {where}")
    if a.check:
        want = sum(count_frames(p) for p in paths)
        assert n == want, f"{n} frames decoded, the clips hold {want}"
        diff = float((first - reference_rgb(paths[0], a.size)).abs().mean())
        print(f"check: {n} frames; first frame against videoconvertscale: mean |diff| {diff:.4f}")
        assert diff < 0.04, "the RGB conversion differs from GStreamer's"


if __name__ == "__main__":
    main()
