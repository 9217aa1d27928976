#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""Decode a folder of clips into RGB tensors with N pipelines at once in
one process, sharing one device and one decoder cache (docs/python.md).

    python3 docs/examples/many_clips.py [--threads 4] [--device cuda:0]
                                        [--size 224] [--rounds 2] [--check]
                                        FOLDER

N threads each take the next clip from one queue and run

    filesrc ! parsebin ! avhwdec ! avhwupload ! avhwconvertscale
            ! video/x-raw(memory:AVHWCUDA),format=RGBP,width=224,height=224
            ! appsink

handing every clip as one (T, 3, size, size) uint8 tensor to consume()
(on the GPU for a cuda device; avhwdownload first elsewhere). Decoding
runs on GStreamer's threads, so the Python threads mostly wait and the GIL
is no limit. Every round decodes every clip once; from the second round
on, every pipeline finds its decoder kept. --check: each clip's tensor
equal in every round to the first round's.
"""
import argparse
import glob
import os
import queue
import sys
import threading
import time

import gi

gi.require_version("Gst", "1.0")
gi.require_version("GstAvhw", "1.0")
from gi.repository import Gst, GstAvhw  # noqa: E402

try:
    import torch
except ImportError:
    print("SKIP: PyTorch is not installed")
    sys.exit(77)

Gst.init(None)


def rgb_caps(dev, size):
    """What follows avhwconvertscale for RGB frames of size x size on
    GstAvhw.Device dev: planar RGB where its converter makes it, else
    packed; in system memory on a device other than cuda."""
    backend = dev.get_backend()
    caps = (f"video/x-raw({backend.get_caps_feature()}),"
            "format=(string){RGBP,RGBA,RGBx,BGRA,BGRx},"
            f"width={size},height={size}")
    if backend.get_name() != "cuda":        # no array interface on the device
        caps += " ! avhwdownload"
    return caps


def decode_clip(path, device, caps):
    """All frames of one clip, (T, 3, H, W) uint8 RGB."""
    # avhwupload passes the device's frames through and uploads those
    # decoded in software (a codec the device does not decode)
    p = Gst.parse_launch(f"filesrc location=\"{path}\" ! parsebin ! "
                         f"avhwdec device={device} ! avhwupload device={device} ! "
                         f"avhwconvertscale ! {caps} ! "
                         "appsink name=s sync=false max-buffers=4")
    p.set_state(Gst.State.PLAYING)
    try:
        return torch.cat(list(GstAvhw.batches(p.get_by_name("s"), 32)))
    except RuntimeError as e:
        raise RuntimeError(f"{path}: {e}") from None
    finally:
        p.set_state(Gst.State.NULL)


def decode_all(paths, device, size, threads, consume):
    """Decodes every clip once, `threads` at a time; consume(path, clip)
    is called on the decoding thread. Raises the first clip's error."""
    dev = GstAvhw.Device.open(device, None)
    caps = rgb_caps(dev, size)
    todo, errors = queue.Queue(), []
    for p in paths:
        todo.put(p)

    def work():
        while not errors:
            try:
                path = todo.get_nowait()
            except queue.Empty:
                return
            try:
                consume(path, decode_clip(path, dev.get_name(), caps))
            except Exception as e:      # noqa: BLE001 (reported below)
                errors.append(e)
    workers = [threading.Thread(target=work) for _ in range(threads)]
    for w in workers:
        w.start()
    for w in workers:
        w.join()
    if errors:
        raise errors[0]


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("folder")
    ap.add_argument("--threads", type=int, default=4)
    ap.add_argument("--device", default="auto")
    ap.add_argument("--size", type=int, default=224)
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("--check", action="store_true")
    a = ap.parse_args()
    paths = sorted(p for p in glob.glob(os.path.join(a.folder, "*"))
                   if os.path.isfile(p))
    if not paths:
        sys.exit(f"no clips in {a.folder}")
    first, lock = {}, threading.Lock()
    for r in range(a.rounds):
        frames, seen = [0], {}

        def consume(path, clip):
            # a model would run here, on the clip's device
            with lock:
                frames[0] += clip.shape[0]
                seen[path] = clip.cpu() if a.check else None
        _, h0, m0 = GstAvhw.cache_get_decoder_stats()
        t0 = time.perf_counter()
        decode_all(paths, a.device, a.size, a.threads, consume)
        dt = time.perf_counter() - t0
        _, h1, m1 = GstAvhw.cache_get_decoder_stats()
        print(f"round {r + 1}: {len(paths)} clips, {frames[0]} frames in "
              f"{dt:.2f} s: {len(paths) / dt:.1f} clips/s with {a.threads} "
              f"pipelines at once; decoders kept and taken {h1 - h0}, "
              f"opened {m1 - m0}", flush=True)
        assert sorted(seen) == paths, "a clip was not decoded"
        if a.check:
            if r == 0:
                first = seen
            for p in paths:
                assert torch.equal(seen[p], first[p]), \
                    f"{p}: other frames than in the first round"
    if a.check:
        print(f"check: every clip alike in all {a.rounds} rounds")


if __name__ == "__main__":
    main()
